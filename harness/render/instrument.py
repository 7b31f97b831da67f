"""What a task page needs to know about an instrument, whether it comes from a spec or the store.

Render never reads the store: the web layer builds an `Instrument` from stored rows (the frozen
spec JSON, the item rows and the guidelines), the CLI builds one from a loaded spec.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from harness.hosting import Hosting
from harness.render.client_order import client_order
from harness.render.plan import HitPlan, showing_order
from harness.resources import templates_dir
from harness.spec.load import LoadedSpec
from harness.spec.model import TaskSpec
from harness.spec.scale import Scale, resolve_scale
from harness.spec.templates import default_template, template_search_path

_META_COLUMNS = {"item_id", "role", "gold", "group"}


@dataclass(frozen=True, eq=False)
class Instrument:
    """The spec, the items (``item_id``, ``role``, display columns, ``gold``, ``group``), the
    guidelines text and the folders the page template is looked up in (custom folder first).

    ``display`` names the columns a worker sees, in order; empty means the spec's
    ``items.display``, else the first two non-meta columns of ``items``. An instrument never
    changes once built, so what is derived from it (its scale, its items by key) is worked
    out once and kept with it.
    """

    spec: TaskSpec
    items: pd.DataFrame
    guidelines: str
    template_dirs: list[Path] = field(default_factory=lambda: [templates_dir()])
    display: tuple[str, ...] = ()

    @classmethod
    def from_loaded(cls, loaded: LoadedSpec) -> Instrument:
        return cls(
            spec=loaded.spec,
            items=loaded.items,
            guidelines=loaded.guidelines,
            template_dirs=template_search_path(loaded.path.parent, loaded.spec.template),
            display=tuple(loaded.display),
        )

    @property
    def display_columns(self) -> list[str]:
        return list(self._display_columns)

    @cached_property
    def _display_columns(self) -> tuple[str, ...]:
        if self.display:
            return tuple(self.display)
        if self.spec.items.display:
            return tuple(self.spec.items.display)
        return tuple([c for c in self.items.columns if c not in _META_COLUMNS][:2])

    @cached_property
    def scale(self) -> Scale:
        return resolve_scale(self.spec.type, self.spec.scale)

    @property
    def template_name(self) -> str:
        """The page template's file name (a custom template is found in its own folder)."""
        if self.spec.template:
            return Path(self.spec.template).name
        return default_template(self.spec.type)

    @property
    def min_gap(self) -> int:
        """Positions at least between a repeated item's two showings (3 without repeats)."""
        repeated = self.spec.controls.repeated
        return repeated.min_gap if repeated else 3

    def page_order(
        self,
        plan: HitPlan,
        *,
        study_name: str,
        worker_id: str,
        hosting: Hosting | str | None = None,
    ) -> list[str]:
        """Item key per position as the page shows it to ``worker_id``: `showing_order` for
        pages harness serves, `client_order` for self-contained (``mturk``) pages; ``hosting``
        defaults to the spec's."""
        chosen = Hosting(hosting) if hosting is not None else self.spec.hosting
        order = showing_order if chosen is Hosting.EXTERNAL else client_order
        return order(
            plan,
            study_name=study_name,
            worker_id=worker_id,
            seed=self.spec.order.seed,
            policy=self.spec.order.policy,
            min_gap=self.min_gap,
        )

    def sides(self, item_key: str) -> list[str]:
        """What the worker reads for an item: its display columns' text, in order."""
        row = self._rows[item_key]
        return ["" if row.get(c) is None else str(row.get(c)) for c in self._display_columns]

    def has_item(self, item_key: str) -> bool:
        return item_key in self._rows

    @cached_property
    def _rows(self) -> dict[str, dict[Hashable, Any]]:
        """Each item's row by its key."""
        return {str(r["item_id"]): r for r in self.items.to_dict(orient="records")}


class Frozen(Protocol):
    """What the store keeps of an instrument (`harness.store.instruments.FrozenInstrument`)."""

    @property
    def spec(self) -> dict[str, Any]: ...
    @property
    def items(self) -> list[dict[str, Any]]: ...
    @property
    def guidelines(self) -> str: ...


def stored_instrument(frozen: Frozen, template_dirs: list[Path] | None = None) -> Instrument:
    """The instrument of a stored study, from what the store keeps: the frozen spec JSON, one
    dict per item (``item_id``, ``role``, ``gold``, ``group`` and the display columns) and the
    guidelines. The one way to rebuild a stored instrument (task server, sync, simulation)."""
    return Instrument(
        spec=TaskSpec.model_validate(frozen.spec),
        items=pd.DataFrame.from_records(frozen.items),
        guidelines=frozen.guidelines,
        template_dirs=list(template_dirs) if template_dirs else [templates_dir()],
    )
