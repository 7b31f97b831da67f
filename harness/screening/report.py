"""The combined per-worker screening report: one column group per heuristic, and ``flagged``.

``flagged`` is true when any heuristic whose policy action is not ``report`` flags the worker:
only those decide anything; the others (and radical/centrist) are shown for information.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from harness.screening.context import ScreeningContext, sharing, workers_of
from harness.screening.registry import HEURISTICS, REPORT_ONLY, get, resolve
from harness.spec.model import Action


@dataclass(frozen=True)
class ScreeningReport:
    """Each heuristic's result frame by key, the workers, and who is flagged under the policy."""

    results: dict[str, pd.DataFrame]
    actions: dict[str, Action]
    workers: pd.Index

    @property
    def flagged(self) -> pd.Series:
        """Per worker: flagged by a heuristic whose action is not ``report``."""
        flagged = pd.Series(False, index=self.workers)
        for key, frame in self.results.items():
            if self.actions.get(key, Action.REPORT) is not Action.REPORT:
                flagged |= frame.set_index("worker_id")["flag"].reindex(
                    self.workers, fill_value=False
                )
        return flagged

    def summary(self) -> str:
        """How many workers are flagged, in one line."""
        flagged = int(self.flagged.sum())
        return f"{flagged} of {len(self.workers)} workers flagged under the spec's policy."

    def table(self) -> pd.DataFrame:
        """The wide table: index ``worker_id``, columns (heuristic key, field), plus flagged."""
        parts = {key: frame.set_index("worker_id") for key, frame in self.results.items()}
        wide = pd.concat(parts, axis=1) if parts else pd.DataFrame(index=self.workers)
        wide = wide.reindex(self.workers)
        wide[("flagged", "")] = self.flagged
        return wide

    def records(self) -> list[dict[str, Any]]:
        """One JSON-ready object per worker: worker_id, each key's fields, and flagged."""
        flagged = self.flagged
        out: list[dict[str, Any]] = []
        indexed = {key: frame.set_index("worker_id") for key, frame in self.results.items()}
        for worker in self.workers:
            record: dict[str, Any] = {"worker_id": worker}
            for key, frame in indexed.items():
                row = frame.loc[worker]
                record[key] = {name: json_value(row[name]) for name in frame.columns}
            record["flagged"] = bool(flagged[worker])
            out.append(record)
        return out


def screen_workers(
    judgments: pd.DataFrame, context: ScreeningContext, only: Iterable[str] | None = None
) -> ScreeningReport:
    """Run the heuristics named in ``only`` (keys or codes; default: all, with the extremes).

    The table is screened as final (`ScreeningContext.fitted_to`).
    """
    context = context.fitted_to(judgments)
    keys = [*HEURISTICS, *REPORT_ONLY] if only is None else list(dict.fromkeys(map(resolve, only)))
    with sharing():  # the answered rows, cells and aggregates once for every heuristic
        results = {key: get(key)(judgments, context) for key in keys}
    actions = {key: context.action(key) for key in keys if key in HEURISTICS}
    return ScreeningReport(results=results, actions=actions, workers=workers_of(judgments))


def json_value(value: Any) -> Any:
    """A JSON value: NaN -> None, numpy scalars -> Python ones."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return None if np.isnan(value) else float(value)
    if value is None or value is pd.NA:
        return None
    return value


__all__ = ["ScreeningReport", "json_value", "screen_workers"]
