"""What `harness characterize` reads: instruments named by reference, and the screened set.

An instrument reference is a long judgments CSV, ``ws353[:DIR]`` (WS353 as the WS353 study
characterized it: raters 1-13 on all 353 pairs), ``ws353-16[:DIR]`` (all 16 raters of the
distribution), or a stored study's name (read from the store). The screened set comes from a
screened CSV, a list of flagged workers, or a spec whose screening policy flags them.

A study with arms is as many instruments as it has arms (docs/arms.md), so its judgments are
never pooled: the instrument read is one arm's, the base (the spec's first arm) unless an arm
is named, and its name says which (``small (arm long)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from harness.characterize.instrument import (
    Instrument,
    instrument_from_csv,
    instrument_from_study,
    instrument_from_table,
    instrument_from_ws353,
)
from harness.datasets import load_ws353
from harness.errors import InputError, StudyNotFound
from harness.judgments import read_judgments
from harness.screening import ScreeningContext, screen_workers
from harness.screening.impact import screening_impact
from harness.spec import load_spec

if TYPE_CHECKING:
    from harness.characterize.arm_inputs import StoredArms

# WS353's named instruments: the study's 13 raters (the default) and the whole distribution.
DATASET_RATERS = {"ws353": 13, "ws353-13": 13, "ws353-16": 16}


def read_instrument(ref: str, db: str | None, arm: str | None = None) -> Instrument:
    """A CSV path, ``ws353[-13|-16][:DIR]``, or a stored study's name (in the store ``db``);
    of a study with arms, the arm ``arm`` (default: the base)."""
    return read_with_arms(ref, db, arm, arms=False)[0]


def read_with_arms(
    ref: str, db: str | None, arm: str | None = None, *, arms: bool = True
) -> tuple[Instrument, StoredArms | None]:
    """`read_instrument`, and (``arms``) of a stored study with arms every arm as the
    comparison reads them (`harness.characterize.arm_inputs.read_arms`), from one read of
    the study's judgments; None for a file, a dataset or a study without arms."""
    if is_dataset(ref):
        name, _, directory = ref.partition(":")
        _no_arms(ref, arm)
        return instrument_from_ws353(load_ws353(directory or None), DATASET_RATERS[name]), None
    path = Path(ref)
    if path.is_file():
        _no_arms(ref, arm)
        return instrument_from_csv(path), None
    if path.suffix.lower() == ".csv" or "/" in ref:
        raise InputError(f"{ref}: no such file")
    return _stored(ref, db, arm, with_arms=arms)


def _no_arms(ref: str, arm: str | None) -> None:
    if arm is not None:
        raise InputError(f"--arm {arm}: {ref} is not a stored study (only a study has arms)")


def is_dataset(ref: str) -> bool:
    """``ws353``, ``ws353-13`` or ``ws353-16``, each with an optional ``:DIR`` (a study may be
    called ws353-reproduction)."""
    return ref.partition(":")[0] in DATASET_RATERS


def _stored(
    name: str, db: str | None, arm: str | None = None, *, with_arms: bool = False
) -> tuple[Instrument, StoredArms | None]:
    from harness.characterize.arm_inputs import read_arms
    from harness.store import find_study, load_study, session_scope
    from harness.store.arm_assignment import study_arms
    from harness.store.database import open_store
    from harness.store.models import InstrumentVersion

    engine = open_store(db)
    try:
        with session_scope(engine) as session:
            try:
                found = find_study(session, name)
            except StudyNotFound as exc:
                raise StudyNotFound(f"{name!r} is no file, and {exc}") from None
            stored = load_study(session, found)
            assert found.id is not None
            arms = study_arms(session, found.id)
            chosen = _chosen_arm(name, [a.name for a in arms], arm)
            compared = read_arms(session, found, stored.judgments) if arms and with_arms else None
            if chosen is not None:
                ref = next(a for a in arms if a.name == chosen)
                version = session.get(InstrumentVersion, ref.instrument_id)
                assert version is not None
                instrument = version.model_dump(mode="json")
    finally:
        engine.dispose()
    if chosen is None:
        return instrument_from_study(stored.study, stored.instrument, stored.judgments), None
    judgments = stored.judgments[stored.judgments["instrument_hash"] == instrument["hash"]]
    if judgments.empty:
        raise InputError(f"stored study {name!r} has no judgments in arm {chosen!r} yet")
    study = stored.study | {"name": f"{name} (arm {chosen})"}
    one = instrument_from_study(study, instrument, judgments.reset_index(drop=True))
    base = " (the base)" if chosen == arms[0].name else ""
    what = (
        f"{chosen}{base}, one of the study's {len(arms)} arms "
        f"({', '.join(a.name for a in arms)}); each arm is its own instrument"
    )
    known = {k: v for k, v in one.known.items() if k == "source"}
    return replace(one, known=known | {"arm": what} | one.known), compared


def _chosen_arm(study: str, arms: list[str], arm: str | None) -> str | None:
    """The arm to characterize: ``arm``, else the base; None for a study without arms."""
    if not arms:
        if arm is not None:
            raise InputError(f"--arm {arm}: study {study!r} has no arms")
        return None
    if arm is None:
        return arms[0]
    if arm not in arms:
        raise InputError(
            f"--arm {arm}: study {study!r} has no such arm (its arms: {', '.join(arms)})"
        )
    return arm


def ws353_items(original_ref: str) -> Callable[[], pd.DataFrame]:
    """The WS353 items (read once, when first asked) for mapping WS353 system files."""

    @cache
    def items() -> pd.DataFrame:
        directory = original_ref.partition(":")[2] or None
        return load_ws353(directory if is_dataset(original_ref) else None).items

    return items


def screened_inputs(
    new: Instrument, screened: Path | None, flagged: Path | None, policy: str | None
) -> tuple[pd.DataFrame | None, list[str] | None, str]:
    """The screened table or the flagged workers (checked against the new raters), and a name."""
    if screened is not None:
        table = instrument_from_table(
            read_judgments(screened), name=screened.stem, kind="csv"
        ).judgments
        return table, None, policy or screened.stem
    if flagged is not None:
        workers = worker_list(flagged)
        unknown = sorted(workers - set(new.judgments["worker_id"]))
        if unknown:
            raise InputError(
                f"{flagged}: {len(unknown)} worker(s) are not raters of {new.name} "
                f"(e.g. {unknown[0]!r})"
            )
        return None, sorted(workers), policy or flagged.stem
    return None, None, policy or "screened"


def screen_with_spec(
    new: Instrument, new_ref: str, spec_path: Path, scores: dict[str, pd.Series]
) -> tuple[list[str], pd.DataFrame]:
    """Workers the spec's policy flags in the new judgments (controls included), and the impact
    table of every subset of its heuristics."""
    if new.kind == "dataset" or new.given is None:
        raise InputError(f"--screen: {new_ref} is not a judgments CSV or a stored study")
    judgments = new.given
    context = ScreeningContext.from_spec(load_spec(spec_path))
    flagged = screen_workers(judgments, context).flagged
    impact = screening_impact(judgments, context, scores or None)
    return sorted(str(w) for w in flagged[flagged].index), impact


def worker_list(path: Path) -> set[str]:
    """Worker ids from a file: one per line, or a CSV with a ``worker_id`` column."""
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    lines = [line for line in lines if line]
    if lines and lines[0].split(",")[0].strip() == "worker_id":
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        return {w.strip() for w in frame["worker_id"] if w.strip()}
    return set(lines)
