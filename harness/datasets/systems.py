"""System prediction files: ``item_id, score`` CSVs, or WS353's row-and-words layout.

A generic system file has a header with ``item_id`` and ``score``; a WS353 system file (see
`harness.datasets.ws353_systems`) has ``row, word1, word2, score`` and is mapped to WS353 item
ids. A directory stands for every ``*.csv`` in it, each named by its file stem; the reference
``ws353`` stands for the three systems' WS353 predictions bundled with harness.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pandas as pd

from harness.datasets.ws353_systems import (
    BUNDLED_SYSTEMS,
    bundled_systems_dir,
    is_ws353_system_table,
    ws353_system_scores,
)
from harness.errors import DatasetError

GENERIC_COLUMNS = ("item_id", "score")


def read_system(path: str | Path, ws353_items: Callable[[], pd.DataFrame]) -> pd.Series:
    """item_id -> score from one system file; ``ws353_items`` is called only for WS353 files."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: no such system file")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read as CSV ({exc})") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    if is_ws353_system_table(frame):
        table = ws353_system_scores(frame, ws353_items(), source=str(path))
    elif all(c in frame.columns for c in GENERIC_COLUMNS):
        table = _generic(frame, path)
    else:
        raise DatasetError(
            f"{path}: expected columns item_id, score (or WS353's row, word1, word2, score); "
            f"found {', '.join(frame.columns) or 'none'}"
        )
    return table.set_index("item_id")["score"]


def read_system_refs(
    refs: Iterable[str], ws353_items: Callable[[], pd.DataFrame], option: str = "--system"
) -> tuple[dict[str, pd.Series], dict[str, str]]:
    """Scores and source file per system from ``NAME=FILE``, ``FILE``, ``DIR`` or ``ws353``.

    A file is named by its stem, a directory gives each of its CSVs, ``ws353`` the bundled
    predictions (a folder of that name is ``./ws353``); two systems of the same name are refused
    (``option`` names the command-line option in the message).
    """
    scores: dict[str, pd.Series] = {}
    sources: dict[str, str] = {}
    for ref in refs:
        name, sep, file = ref.partition("=")
        if ref == BUNDLED_SYSTEMS:
            files = system_files(bundled_systems_dir())
        else:
            files = {name: Path(file)} if sep and name else system_files(file if sep else ref)
        for system, path in files.items():
            if system in scores:
                raise DatasetError(f"{option}: two systems are called {system!r}")
            scores[system] = read_system(path, ws353_items)
            sources[system] = str(path)
    return scores, sources


def system_files(path: str | Path) -> dict[str, Path]:
    """A file as {stem: file}; a directory as every CSV in it by stem (sorted)."""
    path = Path(path)
    if path.is_dir():
        found = {p.stem: p for p in sorted(path.glob("*.csv"))}
        if not found:
            raise DatasetError(f"{path}: a directory of system files, but it holds no *.csv")
        return found
    return {path.stem: path}


def _generic(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    items = frame["item_id"].str.strip()
    scores = pd.to_numeric(frame["score"], errors="coerce")
    problems = [
        f"{path}:{i + 2}: score: {frame.at[i, 'score']!r} is not a number"
        for i in frame.index[scores.isna()][:5]
    ]
    problems += [f"{path}:{i + 2}: item_id is empty" for i in frame.index[items == ""][:5]]
    problems += [
        f"{path}:{i + 2}: item {items[i]!r} has a second score"
        for i in frame.index[items.duplicated()][:5]
    ]
    if problems:
        raise DatasetError("\n".join(problems))
    return pd.DataFrame({"item_id": items, "score": scores.astype(float)})
