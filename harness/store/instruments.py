"""Freeze an instrument version (hash, spec, items) and create studies that run it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, select

from harness.roles import ItemRole
from harness.spec import LoadedSpec
from harness.spec.references import resolved
from harness.store.events import EventKind, record_event
from harness.store.models import InstrumentVersion, Item, Study

_ITEM_COLUMNS = {"item_id", "role", "gold", "group"}


def freeze_instrument(session: Session, loaded: LoadedSpec) -> InstrumentVersion:
    """The stored version of ``loaded``'s instrument, created with its items if new.

    Idempotent: the same instrument hash always maps to the same row.
    """
    found = session.exec(
        select(InstrumentVersion).where(InstrumentVersion.hash == loaded.instrument_hash)
    ).first()
    if found is not None:
        return found
    version = InstrumentVersion(
        hash=loaded.instrument_hash,
        name=loaded.spec.study.name,
        study_type=loaded.spec.type,
        spec=_spec_json(loaded),
        guidelines=loaded.guidelines,
    )
    session.add(version)
    session.flush()
    assert version.id is not None
    for record in loaded.items.to_dict(orient="records"):
        session.add(
            Item(
                instrument_id=version.id,
                key=str(record["item_id"]),
                role=ItemRole(str(record["role"])),
                display={str(k): _plain(v) for k, v in record.items() if k not in _ITEM_COLUMNS},
                gold=_number(record.get("gold")),
                group=(str(record["group"]) or None)
                if record.get("group") not in (None, "")
                else None,
            )
        )
    record_event(
        session,
        EventKind.INSTRUMENT_FROZEN,
        subject=loaded.instrument_hash,
        payload={"name": version.name, "items": len(loaded.items)},
    )
    return version


def create_study(
    session: Session, loaded: LoadedSpec, *, name: str | None = None, target: str | None = None
) -> Study:
    """A new study of ``loaded``'s (frozen) instrument; the target is stored with the study
    (default: the spec's, else ``local``)."""
    version = freeze_instrument(session, loaded)
    assert version.id is not None
    study = Study(
        name=name or loaded.spec.study.name,
        instrument_id=version.id,
        target=target or loaded.spec.platform.target or "local",
        budget=loaded.spec.budget,
        max_bonus=loaded.spec.hit.max_bonus,
        currency=loaded.spec.platform.currency,
        alpha_min=loaded.spec.alpha_min,
    )
    session.add(study)
    session.flush()
    record_event(
        session,
        EventKind.STUDY_CREATED,
        study_id=study.id,
        subject=study.name,
        payload={"instrument": version.hash, "target": study.target},
    )
    return study


@dataclass(frozen=True)
class FrozenInstrument:
    """What the store keeps of an instrument version, enough to rebuild it without the spec
    file: the frozen spec (JSON), one dict per item (``item_id``, ``role``, ``gold``, ``group``
    and the display columns) and the guidelines text. `harness.render.Instrument.from_frozen`
    turns it into the instrument pages are rendered and answers checked with."""

    hash: str
    spec: dict[str, Any]
    items: list[dict[str, Any]]
    guidelines: str


def frozen_instrument(session: Session, instrument_id: int) -> FrozenInstrument:
    """The stored instrument version ``instrument_id`` with its items, in item-id order."""
    version = session.get(InstrumentVersion, instrument_id)
    if version is None:
        raise KeyError(f"no instrument version {instrument_id} in the store")
    items = session.exec(
        select(Item).where(Item.instrument_id == instrument_id).order_by(Item.id)  # type: ignore[arg-type]
    ).all()
    rows = [
        {"item_id": i.key, "role": i.role, "gold": i.gold, "group": i.group, **i.display}
        for i in items
    ]
    return FrozenInstrument(version.hash, version.spec, rows, version.guidelines)


def _spec_json(loaded: LoadedSpec) -> dict[str, Any]:
    """The spec as JSON, with the resolved display columns written into ``items.display`` so a
    task page built from the store shows the same columns (a default is resolved from files),
    and H11's reference files as absolute paths (screening reads them wherever it runs)."""
    data = loaded.spec.model_dump(mode="json")
    data["items"]["display"] = list(loaded.display)
    for name, policy in loaded.spec.screening.items():
        if policy.references:
            data["screening"][name]["references"] = resolved(policy.references, loaded.path.parent)
    return data


def _number(value: Any) -> float | None:
    if value is None or value == "":
        return None
    number = float(value)
    return None if math.isnan(number) else number


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value.item() if hasattr(value, "item") else value
