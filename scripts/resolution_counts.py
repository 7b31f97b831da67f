"""Print WS353's item-pair counts at the published resolution: the published set's and harness's.

    python scripts/resolution_counts.py [--threshold 1.8]

The published resolution study counts 61,425 unique pairwise distances, 33,359 above 1.8. This
prints the same counts for the 351-item set that gives them (WS353 without (tiger, tiger) and
(money, bank), printed means), under floating-point comparison and under harness's tolerance,
and for harness's 353 items with means recomputed from the votes (`harness.characterize.
item_pairs`; docs/methods.md, "Counting item pairs").
"""

from __future__ import annotations

import argparse

from harness.characterize.item_pairs import (
    LEFT_OUT,
    PUBLISHED_ABOVE,
    PUBLISHED_PAIRS,
    PUBLISHED_THRESHOLD,
    ItemPairCounts,
    item_pair_counts,
    published_item_set,
)
from harness.datasets.ws353 import load_ws353

THIRTEEN = [f"ws353-r{k:02d}" for k in range(1, 14)]  # the raters of all 353 pairs


def _line(name: str, c: ItemPairCounts) -> str:
    return (
        f"{name}: {c.items} items, {c.pairs:,} item pairs; at or above {c.threshold:g}: "
        f"{c.at_or_above:,}; above: {c.above:,}; above as floating point computes "
        f"|m_i - m_j| > {c.threshold:g}: {c.above_unrounded:,}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threshold", type=float, default=PUBLISHED_THRESHOLD)
    t = parser.parse_args().threshold
    ws = load_ws353()
    print(f"published: {PUBLISHED_PAIRS:,} item pairs, {PUBLISHED_ABOVE:,} above 1.8")
    left_out = "; ".join(f"{a}-{b} ({why})" for (a, b), why in LEFT_OUT.items())
    published = published_item_set(ws.items)
    print(
        _line(
            f"published set (WS353 less {left_out}), printed means",
            item_pair_counts(published["published_mean"], t),
        )
    )
    print(_line("harness's WS353, printed means", item_pair_counts(ws.items["published_mean"], t)))
    votes = ws.judgments.groupby("item_id")["value"].mean()
    print(
        _line("harness's WS353, means from the votes (16-rater table)", item_pair_counts(votes, t))
    )
    raters13 = ws.judgments[ws.judgments["worker_id"].isin(THIRTEEN)]
    if raters13["item_id"].nunique() == len(votes):
        print(
            _line(
                "harness's WS353, means from raters 1-13 (the 13-rater table)",
                item_pair_counts(raters13.groupby("item_id")["value"].mean(), t),
            )
        )


if __name__ == "__main__":
    main()
