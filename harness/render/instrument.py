"""What a task page needs to know about an instrument, whether it comes from a spec or the store.

Render never reads the store: the web layer builds an `Instrument` from stored rows (the frozen
spec JSON, the item rows and the guidelines), the CLI builds one from a loaded spec.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
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
ORDERS_KEPT = 4096
"""Workers' page orders an instrument keeps (a page load and its submission compute the same)."""


@dataclass(frozen=True, eq=False)
class Instrument:
    """The spec, the items (``item_id``, ``role``, display columns, ``gold``, ``group``), the
    guidelines text and the folders the page template is looked up in (custom folder first).

    ``display`` names the columns a worker sees, in order; empty means the spec's
    ``items.display``, else the first two non-meta columns of ``items``. An instrument never
    changes once built, so what is derived from it (its scale, an item's text, a worker's
    order) is worked out once and kept with it.
    """

    spec: TaskSpec
    items: pd.DataFrame
    guidelines: str
    template_dirs: list[Path] = field(default_factory=lambda: [templates_dir()])
    display: tuple[str, ...] = ()

    # kept as worked out: (hosting, plan, study, worker) -> order, oldest first; key -> sides
    _orders: OrderedDict[tuple[object, ...], tuple[str, ...]] = field(
        default_factory=OrderedDict, init=False, repr=False
    )
    _orders_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _side_cache: dict[str, tuple[str, ...]] = field(default_factory=dict, init=False, repr=False)

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
        key = (chosen, plan, study_name, worker_id)
        with self._orders_lock:
            found = self._orders.get(key)
        if found is not None:
            return list(found)
        order = showing_order if chosen is Hosting.EXTERNAL else client_order
        made = order(
            plan,
            study_name=study_name,
            worker_id=worker_id,
            seed=self.spec.order.seed,
            policy=self.spec.order.policy,
            min_gap=self.min_gap,
        )
        with self._orders_lock:
            self._orders[key] = tuple(made)
            if len(self._orders) > ORDERS_KEPT:
                self._orders.popitem(last=False)
        return made

    def sides(self, item_key: str) -> list[str]:
        """What the worker reads for an item: its display columns' text, in order."""
        return list(self._sides(item_key))

    def _sides(self, item_key: str) -> tuple[str, ...]:
        found = self._side_cache.get(item_key)
        if found is None:
            row = self._rows().get(item_key)
            if row is None:
                raise KeyError(item_key)
            columns = self._display_columns
            found = tuple("" if row.get(c) is None else str(row.get(c)) for c in columns)
            self._side_cache[item_key] = found
        return found

    def has_item(self, item_key: str) -> bool:
        return item_key in self._rows()

    def _rows(self) -> dict[str, dict[str, Any]]:
        cached = self.__dict__.get("_row_cache")
        if cached is None:
            records = self.items.to_dict(orient="records")
            cached = {str(r["item_id"]): r for r in records}
            object.__setattr__(self, "_row_cache", cached)
        return cached


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
