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
``instrument_hash`` (str), and the page signals (`harness.page_signals`, empty where unknown):
``visible_seconds``, ``hidden_seconds`` (float), ``hides``, ``blurs``, ``pastes`` (whole
numbers), ``input_kind`` (pointer, keyboard, both, none), ``answered_hidden`` (bool). Any other
column is kept as an item display column (e.g. ``word1``).

The CSV form is the same table with a header row; see ``docs/judgments.md``. pandas is the
currency in code; crowd-kit's columns (``task, worker, label``) are an export's
(`harness.store.export.export_table`).
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from harness.errors import JudgmentsError
from harness.page_signals import SIGNAL_COLUMNS, InputKind
from harness.roles import ItemRole
from harness.showings import mark_repeats
from harness.text_input import NotText, check_characters, decode_utf8

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
    *SIGNAL_COLUMNS,
)
_SIGNAL_SECONDS = ("visible_seconds", "hidden_seconds")
_SIGNAL_COUNTS = ("hides", "blurs", "pastes")
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


def _column_names(columns: pd.Index) -> str:
    """The header's names on one line: a name holding a line break or another control
    character (a quoted header cell may) is shown quoted with it escaped."""
    shown = [n if n.isprintable() else repr(n) for n in map(str, columns)]
    return ", ".join(shown) or "none"


def read_judgments(path: str | Path, *, numeric: bool = True) -> pd.DataFrame:
    """Read a long judgment CSV and return it validated and typed (see the module docstring).

    Raises `JudgmentsError` naming the file, the line and the column of every problem found
    (up to a few per kind), and never returns a half-valid table. In a table with ``role``, an
    item's later showing within an assignment is a ``repeat`` (`harness.showings`), as
    harness writes it now, also in a file exported before it did.

    Fast path: pandas' C parser reads the numeric columns as numbers directly (explicit
    dtypes), and text is stripped only when the file has whitespace at a cell's edge. A cell
    the typed read refuses sends the file through the text path, which reports every problem
    with its line; both paths give the same table for a valid file.
    """
    path = Path(path)
    expected = f"a header row with {', '.join(REQUIRED_COLUMNS)}"
    typed = _read_typed(path, numeric=numeric, expected_header=expected)
    if typed is not None:
        frame, padded = typed
        table = normalize_judgments(
            frame, source=str(path), numeric=numeric, first_line=2, stripped=not padded
        )
    else:
        raw = read_text_csv(path, expected_header=expected)
        table = normalize_judgments(raw, source=str(path), numeric=numeric, first_line=2)
    return mark_repeats(table)  # a file exported before repeats had their own role


def read_text_csv(path: Path, *, expected_header: str) -> pd.DataFrame:
    """Read a CSV as text cells (empty cells stay ""), or raise `JudgmentsError` saying why not.

    ``expected_header`` tells the user what the file should start with when it is empty. A
    header naming a column twice is refused (pandas would silently rename the second).
    """
    header_columns(path, expected_header=expected_header)
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise JudgmentsError(f"{path}: the file is empty; expected {expected_header}") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise JudgmentsError(_unreadable(path, exc)) from None


_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _unreadable(path: Path, exc: Exception) -> str:
    """pandas' parser error as a located message where it names a line."""
    found = _FIELDS.search(str(exc))
    if found:
        expected, line, saw = found.groups()
        return (
            f"{path}:{line}: {saw} cells where the header has {expected}; quote a cell that "
            'holds a comma ("a, b")'
        )
    return f"{path}: not a readable CSV file ({str(exc).strip()})"


_NUL = re.compile("\x00")


def header_columns(path: Path, *, expected_header: str) -> list[str]:
    """The column names of a CSV's header row, as written; `JudgmentsError` for a missing
    file, an empty one, or a header that names a column twice (spaces around names aside)."""
    if not path.is_file():
        raise JudgmentsError(f"{path}: no such file")
    try:
        text = decode_utf8(path.read_bytes())
        check_characters(text, _NUL, "a CSV file cannot hold it")
    except NotText as exc:
        raise JudgmentsError(
            "\n".join(
                f"{path}:{p.line}: {p.message}" if p.line else f"{path}: {p.message}"
                for p in exc.problems
            )
        ) from None
    try:
        names = next(csv.reader(io.StringIO(text, newline="")), [])
    except csv.Error as exc:
        raise JudgmentsError(f"{path}:1: not a readable CSV header ({exc})") from None
    if not names:
        raise JudgmentsError(f"{path}: the file is empty; expected {expected_header}")
    seen: dict[str, list[int]] = {}
    for number, name in enumerate(names, start=1):
        seen.setdefault(name.strip(), []).append(number)
    twice = {name: at for name, at in seen.items() if len(at) > 1}
    if twice:
        raise JudgmentsError(
            "\n".join(
                f"{path}:1: column {name!r} appears {len(at)} times in the header (columns "
                f"{', '.join(map(str, at))}); every column needs its own name"
                for name, at in twice.items()
            )
        )
    return names


# str.strip()'s whitespace: ASCII bytes (but the line ends, checked apart) and the rest.
_ASCII_SPACE = np.zeros(256, dtype=bool)
_ASCII_SPACE[[0x09, 0x0B, 0x0C, 0x1C, 0x1D, 0x1E, 0x1F, 0x20]] = True
_EDGE = np.zeros(256, dtype=bool)
_EDGE[[ord(","), ord('"'), ord("\n"), ord("\r")]] = True
_OTHER_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


def _padded(data: bytes, rows: int) -> bool:
    """Whether some cell of a CSV may have whitespace at its start or end (False: none has).

    Whitespace next to a delimiter, a quote or a line end, a carriage return that does not end
    a line, or more line ends than rows (a cell spanning lines) all answer True: the caller
    then strips every text cell, which is always right, only slower.
    """
    if not data:
        return False
    raw = np.frombuffer(data, dtype=np.uint8)
    if (raw >= 0x80).any() and _OTHER_SPACE.search(data.decode("utf-8", errors="replace")):
        return True
    space, edge = _ASCII_SPACE[raw], _EDGE[raw]
    if space[0] or space[-1] or (space[:-1] & edge[1:]).any() or (edge[:-1] & space[1:]).any():
        return True
    returns = raw == ord("\r")
    if returns[-1] or (returns[:-1] & (raw[1:] != ord("\n"))).any():
        return True
    return int(np.count_nonzero(raw == ord("\n"))) > rows + 1


def _read_typed(
    path: Path, *, numeric: bool, expected_header: str
) -> tuple[pd.DataFrame, bool] | None:
    """The CSV with numbers parsed by the C engine, and whether any cell may need stripping;
    None when a cell does not parse as its column's type (the text path then says where)."""
    names = header_columns(path, expected_header=expected_header)
    if any(name != name.strip() for name in names):
        return None  # spaces around a column name: the text path strips them
    numbers = ("seconds", "position", *_SIGNAL_SECONDS, *_SIGNAL_COUNTS)
    floats: list[str] = [c for c in numbers if c in names]
    if numeric:
        floats.append("value")
    try:
        data = path.read_bytes()
        frame = pd.read_csv(
            io.BytesIO(data),
            dtype={name: ("float64" if name in floats else str) for name in names},
            keep_default_na=False,
            na_values={name: [""] for name in floats},
            skipinitialspace=True,
        )
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError):
        return None
    return frame, _padded(data, len(frame))


def normalize_judgments(
    frame: pd.DataFrame,
    *,
    source: str = "<table>",
    numeric: bool = True,
    first_line: int = 2,
    stripped: bool = False,
) -> pd.DataFrame:
    """Validate a long table (of strings or already typed) and give every known column its type.

    ``first_line`` is the file line of the first data row, used in messages (2 for a CSV with
    a header). ``stripped``: no text cell has spaces around it (the reader checked), so text is
    not stripped again. Raises `JudgmentsError` listing what is wrong and where.
    """
    frame = frame.rename(columns=lambda c: str(c).strip())
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise JudgmentsError(
            f"{source}: missing column(s) {', '.join(missing)}; a judgments table needs "
            f"{', '.join(REQUIRED_COLUMNS)} (found: {_column_names(frame.columns)})"
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

    def text(column: str) -> pd.Series:
        return _as_text(out[column], stripped=stripped)

    for column in _TEXT_COLUMNS:
        if column in out.columns:
            out[column] = text(column)
    for column in ("item_id", "worker_id"):
        report((out[column] == "").to_numpy(), column, "is empty")

    skipped = (
        _as_bool(out["skipped"], stripped=stripped)
        if "skipped" in out.columns
        else pd.Series(False, index=out.index)
    )
    if skipped.isna().any():
        report(skipped.isna().to_numpy(), "skipped", "expected true or false")
        skipped = skipped.fillna(False)
    out["skipped"] = skipped.astype(bool)

    typed = numeric and pd.api.types.is_float_dtype(out["value"])
    value_text = out["value"] if typed else text("value")
    empty_value = (value_text.isna() if typed else value_text == "").to_numpy()
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
    if typed:
        report(~np.isfinite(out["value"].fillna(0).to_numpy()), "value", "is not a number")
        out["value"] = out["value"].astype(float)
    elif numeric:
        values = pd.to_numeric(out["value"].where(~empty_value, None), errors="coerce")
        not_number = (values.isna().to_numpy() & ~empty_value) | ~np.isfinite(
            values.fillna(0).to_numpy()
        )
        report(not_number, "value", "is not a number")
        out["value"] = values.astype(float)
    else:
        out["value"] = value_text.where(~empty_value, None)

    if "position" in out.columns:
        pos, given = _numbers(out["position"], stripped)
        bad = (pos.isna() | (pos < 0) | (pos % 1 != 0)).to_numpy() & given
        report(bad, "position", "expected a whole number >= 0")
        out["position"] = pos.where(~bad).astype("Int64")
    if "seconds" in out.columns:
        secs, given = _numbers(out["seconds"], stripped)
        bad_secs = (secs.isna().to_numpy() & given) | np.asarray(secs < 0)
        report(bad_secs, "seconds", "expected a number of seconds >= 0")
        out["seconds"] = secs.astype(float)
    for column in ("shown_at", "answered_at"):
        if column in out.columns:
            stamp_text = text(column)
            stamps = pd.to_datetime(
                stamp_text.replace("", None), errors="coerce", utc=True, format="ISO8601"
            )
            report(
                (stamps.isna() & (stamp_text != "")).to_numpy(),
                column,
                "expected an ISO 8601 timestamp",
            )
            out[column] = stamps
    _signals(out, stripped, report)
    if "role" in out.columns:
        known = {r.value for r in ItemRole}
        role = out["role"].replace("", ItemRole.ITEM.value)
        report(~role.isin(known).to_numpy(), "role", f"expected one of {', '.join(sorted(known))}")
        out["role"] = role

    if problems:
        raise JudgmentsError("\n".join(problems))
    return out.reset_index(drop=True)


def _signals(out: pd.DataFrame, stripped: bool, report: Any) -> None:
    """Type and check the page-signal columns present (empty: unknown)."""
    for column in (*_SIGNAL_SECONDS, *_SIGNAL_COUNTS):
        if column not in out.columns:
            continue
        number, given = _numbers(out[column], stripped)
        whole = column in _SIGNAL_COUNTS
        bad = (number.isna().to_numpy() & given) | np.asarray(number < 0)
        if whole:
            bad |= np.asarray((number % 1 != 0) & number.notna())
        report(bad, column, "expected a whole number >= 0" if whole else "expected seconds >= 0")
        number = number.where(~bad)
        out[column] = number.astype("Int64") if whole else number.astype(float)
    if "input_kind" in out.columns:
        kind = _as_text(out["input_kind"], stripped=stripped)
        known = {k.value for k in InputKind}
        report(
            (~kind.isin(known) & (kind != "")).to_numpy(),
            "input_kind",
            f"expected one of {', '.join(sorted(known))}, or nothing",
        )
        out["input_kind"] = kind.where(kind.isin(known), None)
    if "answered_hidden" in out.columns:
        cells = out["answered_hidden"].astype(object).where(out["answered_hidden"].notna(), "")
        stated = (_as_text(cells, stripped=stripped) != "").to_numpy()
        flag = _as_bool(out["answered_hidden"], stripped=stripped).where(stated)
        report(flag.isna().to_numpy() & stated, "answered_hidden", "expected true or false")
        out["answered_hidden"] = flag.astype("boolean")


def _numbers(series: pd.Series, stripped: bool) -> tuple[pd.Series, np.ndarray]:
    """A numeric column as floats (NaN where empty or not a number), and where a cell was given."""
    if pd.api.types.is_float_dtype(series):  # parsed by the reader: NaN only where empty
        return series.astype(float), series.notna().to_numpy()
    cells = _as_text(series, stripped=stripped)
    return pd.to_numeric(cells.replace("", None), errors="coerce"), (cells != "").to_numpy()


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
    if "answered_hidden" in out.columns:
        out["answered_hidden"] = out["answered_hidden"].map({True: "true", False: "false"})
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


def _as_text(series: pd.Series, *, stripped: bool = False) -> pd.Series:
    """Strings with NaN/None as empty, surrounding spaces removed (``stripped``: a text column
    known to have no surrounding spaces and no missing cells is returned as it is)."""
    if stripped and isinstance(series.dtype, pd.StringDtype) and not series.isna().any():
        return series
    return series.astype(object).where(series.notna(), "").astype(str).str.strip()


def _as_bool(series: pd.Series, *, stripped: bool = False) -> pd.Series:
    """Parse true/false-like text (bools pass through); anything else becomes NA.

    Each distinct text is parsed once (a column holds a handful), then spread by its codes.
    """
    if pd.api.types.is_bool_dtype(series):
        return series.astype("boolean")
    codes, uniques = pd.factorize(_as_text(series, stripped=stripped).str.lower())
    parsed = pd.array(
        [True if t in _TRUE else (False if t in _FALSE else None) for t in uniques] + [None],
        dtype="boolean",
    )
    return pd.Series(parsed[codes], index=series.index)
