"""WordSimilarity-353 (Finkelstein et al., ACM TOIS 20(1), 2002) as a harness instrument.

harness ships the authors' distribution (``set1.csv``, ``set2.csv``, ``combined.csv``,
``instructions.txt``; every rater's score) in ``harness/datasets/data/ws353/``, byte for byte as
published except that ``instructions.txt`` is UTF-8 (see the README there for provenance and how
to cite). Without a path, `load_ws353` reads that copy; a path or ``$HARNESS_WS353_DIR`` points
it at a user's own copy of the same four files (for example one downloaded from the collection's
home page). Conventions:

- 16 raters x 353 pairs: set2's rater columns ``1``..``13`` are read as the same people as
  set1's ``1``..``13``; set2's ``14``..``16`` rated only set2. So raters 14-16 have no vote on
  the first 153 pairs, and the table has 153 x 13 + 200 x 16 = 5,189 judgments.
- Items are the 353 rows in ``combined.csv`` order (set1 then set2); ``item_id`` is
  ``ws353-NNN`` with NNN the 1-based row, the key the system prediction files use. The two
  ``(money, cash)`` rows stay two items; words are kept case-sensitive as written.
- Means in the files are rounded to 2 decimals; harness recomputes them from the votes.
- Two instruments can be read from the distribution (`WS353.rater_table`): the one the WS353
  study characterized, **13 raters x 353 pairs** (raters 1-13 of both sets, 4,589 votes; its
  interval alpha is 0.590), which is the original harness compares with by default, and
  **all 16 raters** as distributed (5,189 votes, alpha 0.560), a named variant.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.errors import DatasetError
from harness.resources import bundled_data_dir

if TYPE_CHECKING:
    import pandas as pd

ENV_VAR = "HARNESS_WS353_DIR"
BUNDLED_NAME = "ws353"  # harness/datasets/data/ws353
FILES = ("set1.csv", "set2.csv", "combined.csv", "instructions.txt")
SCALE_MIN, SCALE_MAX = 0.0, 10.0
SET1_RATERS = 13
SET2_RATERS = 16
PAPER_RATERS = 13  # the instrument the WS353 study characterized: raters 1-13 on all 353 pairs
VERSION = "1.0"  # the collection's version (released 10 February 2002), the copy bundled here


@dataclass(frozen=True)
class Pair:
    """One WS353 pair as distributed: its row in ``combined.csv`` order, its set, its words,
    the published mean and every rater's score (rater number -> score)."""

    row: int
    set: str
    word1: str
    word2: str
    published_mean: float
    votes: dict[int, float]

    @property
    def item_id(self) -> str:
        return item_id(self.row)

    @property
    def mean(self) -> float:
        """The mean of the votes (harness recomputes the files' rounded means)."""
        return math.fsum(self.votes.values()) / len(self.votes)

    def mean_of(self, raters: int) -> float:
        """The mean of the votes of raters 1..``raters`` (13: the study's instrument)."""
        votes = [v for r, v in self.votes.items() if r <= raters]
        return math.fsum(votes) / len(votes)


@dataclass(frozen=True)
class WS353:
    """The loaded instrument: its items, every vote as a long table, and its guidelines."""

    directory: Path
    bundled: bool  # read from the copy shipped with harness (not a user's own)
    items: pd.DataFrame  # item_id, row, set, word1, word2, published_mean
    judgments: pd.DataFrame  # item_id, worker_id, value, word1, word2 (all 16 raters)
    instructions: str

    def rater_table(self, raters: int = PAPER_RATERS) -> pd.DataFrame:
        """The votes of raters 1..``raters``: 13 (the default) is the study's instrument, every
        rater on all 353 pairs; 16 is the whole distribution."""
        if not 2 <= raters <= SET2_RATERS:
            raise DatasetError(
                f"WS353 has raters 1 to {SET2_RATERS}; asked for raters 1 to {raters}"
            )
        number = self.judgments["worker_id"].str.removeprefix("ws353-r").astype(int)
        return self.judgments[number <= raters].reset_index(drop=True)


def locate_ws353(path: str | Path | None = None, *, base: Path | None = None) -> Path:
    """Find the WS353 directory: ``path`` if given, else ``$HARNESS_WS353_DIR``, else the copy
    bundled with harness.

    A relative path is tried against the working directory and then against ``base`` (for a
    spec, the project root above ``task_specs/``). Raises `DatasetError` saying how to point
    harness at the files.
    """
    if path is None and not os.environ.get(ENV_VAR):
        return bundled_ws353_dir()
    given = Path(path if path is not None else os.environ[ENV_VAR])
    candidates = [given]
    if base is not None and not given.is_absolute():
        candidates.append(base / given)
    for candidate in candidates:
        if _complete(candidate):
            return candidate.resolve()
    tried = ", ".join(str(c) for c in candidates)
    origin = "" if path is not None else f" from ${ENV_VAR}"
    raise DatasetError(
        f"WS353 not found (tried {tried}{origin}): expected a directory holding "
        f"{', '.join(FILES)}. Pass the directory of your own copy (or set {ENV_VAR}), or give "
        "neither to use the copy bundled with harness."
    )


def bundled_ws353_dir() -> Path:
    """The WS353 distribution shipped inside the package (``harness/datasets/data/ws353``)."""
    try:
        directory = bundled_data_dir(BUNDLED_NAME)
    except FileNotFoundError:
        directory = None
    if directory is None or not _complete(directory):
        raise DatasetError(
            f"the WS353 copy bundled with harness is missing or incomplete (expected "
            f"{', '.join(FILES)} in harness/datasets/data/{BUNDLED_NAME}): reinstall harness, "
            f"or set {ENV_VAR} to your own copy"
        )
    return directory


def _complete(directory: Path) -> bool:
    return directory.is_dir() and all((directory / name).is_file() for name in FILES)


def load_ws353(directory: str | Path | None = None, *, base: Path | None = None) -> WS353:
    """Load WS353 from its distribution files; every vote becomes one row of the long table.

    ``directory`` None reads ``$HARNESS_WS353_DIR`` if set, else the copy bundled with harness.
    """
    import pandas as pd

    root = locate_ws353(directory, base=base)
    pairs = read_pairs(root)
    items = pd.DataFrame(
        {
            "item_id": [p.item_id for p in pairs],
            "row": [p.row for p in pairs],
            "set": [p.set for p in pairs],
            "word1": [p.word1 for p in pairs],
            "word2": [p.word2 for p in pairs],
            "published_mean": [p.published_mean for p in pairs],
        }
    )
    votes = [(p, rater, value) for p in pairs for rater, value in sorted(p.votes.items())]
    judgments = pd.DataFrame(
        {
            "item_id": [p.item_id for p, _, _ in votes],
            "worker_id": [f"ws353-r{rater:02d}" for _, rater, _ in votes],
            "value": [value for _, _, value in votes],
            "word1": [p.word1 for p, _, _ in votes],
            "word2": [p.word2 for p, _, _ in votes],
        }
    )
    return WS353(
        directory=root,
        bundled=_is_bundled(root),
        items=items,
        judgments=judgments,
        instructions=read_instructions(root),
    )


def read_pairs(root: Path) -> list[Pair]:
    """The 353 pairs of the distribution in ``root`` (see `locate_ws353`), every score checked,
    read without pandas so that a spec's items cost no table library."""
    set1 = _read_set(root / "set1.csv", SET1_RATERS)
    set2 = _read_set(root / "set2.csv", SET2_RATERS)
    rows = [("set1", r) for r in set1] + [("set2", r) for r in set2]
    _check_combined(root / "combined.csv", _read_csv(root / "combined.csv"), [r for _, r in rows])
    return [
        Pair(
            row=index,
            set=name,
            word1=row["Word 1"],
            word2=row["Word 2"],
            published_mean=float(row["Human (mean)"]),
            votes={r: float(row[str(r)]) for r in range(1, SET2_RATERS + 1) if str(r) in row},
        )
        for index, (name, row) in enumerate(rows, start=1)
    ]


def read_instructions(root: Path) -> str:
    """The authors' instructions to raters (``instructions.txt``)."""
    return (root / "instructions.txt").read_text(encoding="utf-8")


def _is_bundled(root: Path) -> bool:
    try:
        return root.resolve() == bundled_data_dir(BUNDLED_NAME).resolve()
    except FileNotFoundError:
        return False


def item_id(row: int) -> str:
    """The harness item id of WS353's 1-based row in ``combined.csv`` order."""
    return f"ws353-{row:03d}"


def _read_csv(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(encoding="utf-8-sig", newline="") as file:
            return list(csv.DictReader(file, strict=True))
    except (OSError, csv.Error, UnicodeDecodeError) as exc:
        raise DatasetError(f"{path}: cannot read as CSV ({exc})") from None


def _read_set(path: Path, raters: int) -> list[dict[str, str]]:
    """Read set1/set2 and check every vote is a number on the 0-10 scale."""
    rows = _read_csv(path)
    expected = ["Word 1", "Word 2", "Human (mean)", *[str(r) for r in range(1, raters + 1)]]
    found = list(rows[0]) if rows else expected
    if found != expected:
        raise DatasetError(
            f"{path}: expected columns {', '.join(expected)}; found {', '.join(map(str, found))}"
        )
    problems = []
    for column in expected[3:]:
        bad = [(i, row[column]) for i, row in enumerate(rows) if not _score(row[column])]
        problems += [
            f"{path}:{i + 2}: rater {column}: expected a score from 0 to 10, found {text!r}"
            for i, text in bad[:5]
        ]
    if problems:
        raise DatasetError("\n".join(problems))
    return rows


def _score(text: str | None) -> bool:
    """Whether a vote reads as a number on the 0-10 scale."""
    try:
        value = float((text or "").strip())
    except ValueError:
        return False
    return SCALE_MIN <= value <= SCALE_MAX


def _check_combined(path: Path, combined: list[dict[str, str]], both: list[dict[str, str]]) -> None:
    """combined.csv must list the same pairs in the same order as set1 followed by set2."""
    if len(combined) != len(both):
        raise DatasetError(f"{path}: {len(combined)} pairs, but set1 and set2 hold {len(both)}")
    for index, (row, other) in enumerate(zip(combined, both, strict=True)):
        got = (row.get("Word 1"), row.get("Word 2"))
        want = (other["Word 1"], other["Word 2"])
        if got != want:
            raise DatasetError(f"{path}:{index + 2}: pair {got} where set1/set2 order has {want}")
