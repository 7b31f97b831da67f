"""The long judgment table: the one interchange format between every stage of harness.

One row per judgment. Required columns:

- ``item_id`` (str): the item judged, unique within an instrument;
- ``worker_id`` (str): who judged it;
- ``value`` (float, NaN when skipped): the answer on the item's scale. Rating and Likert
  answers are the scale's numbers; a pair comparison is coded ``1`` (the first pair is more
  similar), ``-1`` (the second is) and ``0`` (equally similar). A table for nominal data may
  hold text labels instead (read with ``numeric=False``).

Optional columns, with these names and types wherever they appear:
``skipped`` (bool), ``assignment_id``, ``hit_id`` (str), ``position`` (int, 0-based place in the
worker's sequence), ``shown_at``, ``answered_at`` (ISO 8601 UTC timestamps), ``seconds``
(float), ``role`` (see `harness.roles.ItemRole`), ``group`` (a control group's name),
``instrument_hash`` (str). Any other column is kept as an item display column (e.g. ``word1``).

The CSV form is the same table with a header row; see ``docs/judgments.md``. pandas is the
currency in code; `to_crowdkit` renames for crowd-kit's aggregators (``task, worker, label``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from harness.errors import JudgmentsError
from harness.roles import ItemRole

REQUIRED_COLUMNS: tuple[str, ...] = ("item_id", "worker_id", "value")
OPTIONAL_COLUMNS: tuple[str, ...] = (
    "skipped",
    "assignment_id",
    "hit_id",
    "position",
    "shown_at",
    "answered_at",
    "seconds",
    "role",
    "group",
    "instrument_hash",
)
_TEXT_COLUMNS = (
    "item_id",
    "worker_id",
    "assignment_id",
    "hit_id",
    "role",
    "group",
    "instrument_hash",
)
_TRUE = {"true", "1", "yes", "y", "t"}
_FALSE = {"false", "0", "no", "n", "f", ""}
_MAX_REPORTED = 5


def read_judgments(path: str | Path, *, numeric: bool = True) -> pd.DataFrame:
    """Read a long judgment CSV and return it validated and typed (see the module docstring).

    Raises `JudgmentsError` naming the file, the line and the column of every problem found
    (up to a few per kind), and never returns a half-valid table.
    """
    path = Path(path)
    raw = read_text_csv(path, expected_header=f"a header row with {', '.join(REQUIRED_COLUMNS)}")
    return normalize_judgments(raw, source=str(path), numeric=numeric, first_line=2)


def read_text_csv(path: Path, *, expected_header: str) -> pd.DataFrame:
    """Read a CSV as text cells (empty cells stay ""), or raise `JudgmentsError` saying why not.

    ``expected_header`` tells the user what the file should start with when it is empty.
    """
    if not path.is_file():
        raise JudgmentsError(f"{path}: no such file")
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise JudgmentsError(f"{path}: the file is empty; expected {expected_header}") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise JudgmentsError(f"{path}: not a readable CSV file ({exc})") from None


def normalize_judgments(
    frame: pd.DataFrame, *, source: str = "<table>", numeric: bool = True, first_line: int = 2
) -> pd.DataFrame:
    """Validate a long table (of strings or already typed) and give every known column its type.

    ``first_line`` is the file line of the first data row, used in messages (2 for a CSV with
    a header). Raises `JudgmentsError` listing what is wrong and where.
    """
    frame = frame.rename(columns=lambda c: str(c).strip())
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise JudgmentsError(
            f"{source}: missing column(s) {', '.join(missing)}; a judgments table needs "
            f"{', '.join(REQUIRED_COLUMNS)} (found: {', '.join(map(str, frame.columns)) or 'none'})"
        )
    if frame.empty:
        raise JudgmentsError(f"{source}: no judgments (the table has a header but no rows)")
    out = frame.copy()
    problems: list[str] = []
    lines = np.arange(len(out)) + first_line

    def report(mask: np.ndarray, column: str, message: str) -> None:
        bad = lines[mask]
        for line in bad[:_MAX_REPORTED]:
            problems.append(f"{source}:{line}: {column}: {message}")
        if len(bad) > _MAX_REPORTED:
            problems.append(
                f"{source}: {column}: ... and {len(bad) - _MAX_REPORTED} more rows like that"
            )

    for column in _TEXT_COLUMNS:
        if column in out.columns:
            out[column] = _as_text(out[column])
    for column in ("item_id", "worker_id"):
        report((out[column] == "").to_numpy(), column, "is empty")

    skipped = (
        _as_bool(out["skipped"]) if "skipped" in out.columns else pd.Series(False, index=out.index)
    )
    if skipped.isna().any():
        report(skipped.isna().to_numpy(), "skipped", "expected true or false")
        skipped = skipped.fillna(False)
    out["skipped"] = skipped.astype(bool)

    value_text = _as_text(out["value"])
    empty_value = (value_text == "").to_numpy()
    report(
        empty_value & ~out["skipped"].to_numpy(),
        "value",
        "is empty; give a value, or mark the row skipped=true if the worker skipped the item",
    )
    report(
        ~empty_value & out["skipped"].to_numpy(),
        "value",
        "a skipped judgment has no value; leave value empty or set skipped=false",
    )
    if numeric:
        values = pd.to_numeric(out["value"].where(~empty_value, None), errors="coerce")
        not_number = (values.isna().to_numpy() & ~empty_value) | ~np.isfinite(
            values.fillna(0).to_numpy()
        )
        report(not_number, "value", "is not a number")
        out["value"] = values.astype(float)
    else:
        out["value"] = value_text.where(~empty_value, None)

    if "position" in out.columns:
        pos = pd.to_numeric(_as_text(out["position"]).replace("", None), errors="coerce")
        bad = (pos.isna() | (pos < 0) | (pos % 1 != 0)).to_numpy() & (
            _as_text(out["position"]) != ""
        ).to_numpy()
        report(bad, "position", "expected a whole number >= 0")
        out["position"] = pos.astype("Int64")
    if "seconds" in out.columns:
        secs = pd.to_numeric(_as_text(out["seconds"]).replace("", None), errors="coerce")
        bad_secs = (secs.isna() & (_as_text(out["seconds"]) != "")) | (secs < 0)
        report(bad_secs.to_numpy(), "seconds", "expected a number of seconds >= 0")
        out["seconds"] = secs.astype(float)
    for column in ("shown_at", "answered_at"):
        if column in out.columns:
            text = _as_text(out[column])
            stamps = pd.to_datetime(
                text.replace("", None), errors="coerce", utc=True, format="ISO8601"
            )
            report(
                (stamps.isna() & (text != "")).to_numpy(), column, "expected an ISO 8601 timestamp"
            )
            out[column] = stamps
    if "role" in out.columns:
        known = {r.value for r in ItemRole}
        role = out["role"].replace("", ItemRole.ITEM.value)
        report(~role.isin(known).to_numpy(), "role", f"expected one of {', '.join(sorted(known))}")
        out["role"] = role

    if problems:
        raise JudgmentsError("\n".join(problems))
    return out.reset_index(drop=True)


def write_judgments(frame: pd.DataFrame, path: str | Path) -> None:
    """Write a long table as CSV: known columns first in the documented order, then the rest."""
    known = [c for c in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if c in frame.columns]
    rest = [c for c in frame.columns if c not in known]
    out = frame[known + rest].copy()
    for column in ("shown_at", "answered_at"):
        if column in out.columns and pd.api.types.is_datetime64_any_dtype(out[column]):
            out[column] = (
                out[column].dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ").where(out[column].notna(), "")
            )
    if "skipped" in out.columns:
        out["skipped"] = out["skipped"].map({True: "true", False: "false"})
    out.to_csv(path, index=False, float_format="%.10g")


def wide_to_long(frame: pd.DataFrame, *, item_column: str | None = None) -> pd.DataFrame:
    """Turn a wide table (one row per item, one column per worker) into the long table.

    The item id comes from ``item_column`` (default: the first column); every other column is a
    worker. Empty cells are missing judgments and produce no row.
    """
    if frame.shape[1] < 2:
        raise JudgmentsError("a wide table needs an item column and at least one worker column")
    item_column = item_column or str(frame.columns[0])
    long = frame.melt(id_vars=[item_column], var_name="worker_id", value_name="value")
    long = long.rename(columns={item_column: "item_id"})
    text = _as_text(long["value"])
    long = long[text != ""]
    return long[["item_id", "worker_id", "value"]].reset_index(drop=True)


def to_crowdkit(frame: pd.DataFrame) -> pd.DataFrame:
    """Rename a long table to crowd-kit's ``task, worker, label`` columns (skips left out)."""
    kept = frame[~frame["skipped"]] if "skipped" in frame.columns else frame
    return kept.rename(columns={"item_id": "task", "worker_id": "worker", "value": "label"})[
        ["task", "worker", "label"]
    ]


def _as_text(series: pd.Series) -> pd.Series:
    """Strings with NaN/None as empty, surrounding spaces removed."""
    return series.astype(object).where(series.notna(), "").astype(str).str.strip()


def _as_bool(series: pd.Series) -> pd.Series:
    """Parse true/false-like text (bools pass through); anything else becomes NA."""
    if pd.api.types.is_bool_dtype(series):
        return series.astype("boolean")
    text = _as_text(series).str.lower()
    return text.map(lambda t: True if t in _TRUE else (False if t in _FALSE else None)).astype(
        "boolean"
    )
