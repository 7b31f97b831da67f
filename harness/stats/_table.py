"""Small helpers shared by the statistics: the judgments of a long table that carry a value."""

from __future__ import annotations

import pandas as pd

from harness.errors import JudgmentsError


def valued(judgments: pd.DataFrame) -> pd.DataFrame:
    """The rows that carry a value (not skipped, value present), with the required columns."""
    missing = [c for c in ("item_id", "worker_id", "value") if c not in judgments.columns]
    if missing:
        raise JudgmentsError(f"missing column(s) {', '.join(missing)}")
    return judgments.loc[carries_value(judgments), ["item_id", "worker_id", "value"]]


def carries_value(judgments: pd.DataFrame) -> pd.Series:
    """Per row: whether it carries a value (not skipped, value present)."""
    keep = judgments["value"].notna()
    if "skipped" in judgments.columns:
        keep &= ~judgments["skipped"].fillna(False).astype(bool)
    return keep
