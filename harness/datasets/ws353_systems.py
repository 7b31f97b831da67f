"""System predictions on WS353 keyed by row and words.

harness ships three real systems' predictions for the 353 pairs in
``harness/datasets/data/ws353-systems/`` (``minilm``, ``minilm_frame``, ``char3gram``; computed
once, offline; see the README there); ``--system ws353`` names them. Those files, and any
user file in the same layout, have columns ``row`` (1-353, the order of ``combined.csv``),
``word1``, ``word2`` and ``score``. This adapter maps each row to its harness item id
(``ws353-NNN``, see `harness.datasets.ws353.item_id`) and checks that the row's words are the
words of that WS353 item, so a file written against another ordering fails loudly instead of
scoring the wrong pairs. The result is the generic system table: ``item_id, score``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.datasets.ws353 import item_id
from harness.errors import DatasetError
from harness.resources import bundled_data_dir

WS353_SYSTEM_COLUMNS = ("row", "word1", "word2", "score")
BUNDLED_SYSTEMS = "ws353"  # the name `--system` gives the bundled predictions
BUNDLED_FILES = ("char3gram.csv", "minilm.csv", "minilm_frame.csv")
_MAX_REPORTED = 5


def bundled_systems_dir() -> Path:
    """The three systems' WS353 predictions shipped inside the package."""
    try:
        directory = bundled_data_dir("ws353-systems")
    except FileNotFoundError:
        directory = None
    if directory is None or not all((directory / f).is_file() for f in BUNDLED_FILES):
        raise DatasetError(
            "the WS353 system predictions bundled with harness are missing or incomplete "
            f"(expected {', '.join(BUNDLED_FILES)} in harness/datasets/data/ws353-systems): "
            "reinstall harness"
        )
    return directory


def is_ws353_system_table(frame: pd.DataFrame) -> bool:
    """Whether a system file uses the WS353 row-and-words layout."""
    return all(c in frame.columns for c in WS353_SYSTEM_COLUMNS)


def ws353_system_scores(frame: pd.DataFrame, items: pd.DataFrame, *, source: str) -> pd.DataFrame:
    """``item_id, score`` from a row-and-words table, checked against WS353's ``items``.

    ``items`` is `harness.datasets.ws353.WS353.items` (``item_id, row, word1, word2``).
    Raises `DatasetError` naming ``source`` and the lines whose row is unknown, whose words
    differ from WS353's, or whose score is not a number.
    """
    missing = [c for c in WS353_SYSTEM_COLUMNS if c not in frame.columns]
    if missing:
        raise DatasetError(
            f"{source}: missing column(s) {', '.join(missing)}; a WS353 system file has "
            f"{', '.join(WS353_SYSTEM_COLUMNS)}"
        )
    words = items.set_index("row")[["word1", "word2"]]
    rows = pd.to_numeric(frame["row"], errors="coerce")
    scores = pd.to_numeric(frame["score"], errors="coerce")
    problems: list[str] = []
    for index in frame.index:
        line = index + 2
        row = rows[index]
        if pd.isna(row) or row not in words.index:
            problems.append(f"{source}:{line}: row: {frame.at[index, 'row']!r} is not a WS353 row")
            continue
        expected = tuple(words.loc[int(row)])
        found = (str(frame.at[index, "word1"]).strip(), str(frame.at[index, "word2"]).strip())
        if found != expected:
            problems.append(
                f"{source}:{line}: row {int(row)} has words {found}, but WS353 row {int(row)} "
                f"is {expected}"
            )
        if pd.isna(scores[index]):
            problems.append(f"{source}:{line}: score: {frame.at[index, 'score']!r} is not a number")
    if problems:
        more = len(problems) - _MAX_REPORTED
        shown = problems[:_MAX_REPORTED] + ([f"... and {more} more"] if more > 0 else [])
        raise DatasetError("\n".join(shown))
    out = pd.DataFrame({"item_id": [item_id(int(r)) for r in rows], "score": scores.astype(float)})
    duplicated = out["item_id"].duplicated()
    if duplicated.any():
        first = int(frame.index[duplicated.to_numpy()][0]) + 2
        raise DatasetError(f"{source}:{first}: row {out['item_id'][duplicated].iloc[0]} repeated")
    return out
