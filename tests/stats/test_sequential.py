"""Adaptive collection's rule: an item is finished when its mean is precise enough, judged
with a shrunk and cautious sd, and the next assignment asks about the items farthest from it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.stats.sequential import Rule, item_precision, next_items, unfinished


def _table(values: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"item_id": item, "worker_id": f"w{i}", "value": v}
            for item, vs in values.items()
            for i, v in enumerate(vs)
        ]
    )


def test_half_width_without_shrinkage_or_caution_is_the_t_interval():
    table = _table({"a": [1, 2, 3, 4, 5], "b": [2, 2, 3, 3, 4]})
    got = item_precision(table, ["a", "b"], prior=0, sure=0)
    sd = np.std([1, 2, 3, 4, 5], ddof=1)
    assert got.loc["a", "half_width"] == pytest.approx(2.776445105 * sd / np.sqrt(5))
    assert got.loc["a", "n"] == 5


def test_an_item_whose_first_raters_agreed_is_not_finished_at_once():
    values = {"calm": [5, 5, 5, 5, 5]} | {f"x{i}": [1, 4, 7, 3, 9] for i in range(5)}
    table = _table(values)
    rule = Rule(half_width=1.0, floor=5)
    assert item_precision(table, list(values), prior=0, sure=0).loc["calm", "half_width"] == 0
    assert "calm" in unfinished(item_precision(table, list(values)), rule)


def test_items_finish_at_the_target_or_at_the_cap_and_never_below_the_floor():
    table = _table({"tight": [5.0, 5.1] * 20, "loose": [0, 10] * 20, "new": [5, 5]})
    rule = Rule(half_width=0.5, floor=5, cap=40)
    open_ = set(unfinished(item_precision(table, ["tight", "loose", "new"]), rule))
    assert open_ == {"new"}  # tight: precise; loose: at the cap; new: below the floor


def test_the_next_assignment_asks_the_items_farthest_from_the_target_first():
    table = _table({"far": [0, 10, 0, 10, 5], "near": [4, 5, 6, 5, 5], "unseen": []})
    got = next_items(item_precision(table, ["far", "near", "unseen"]), Rule(0.1), k=2)
    assert got == ["unseen", "far"]  # no values: infinitely far


def test_a_rule_needs_a_positive_target_and_floor_at_most_cap():
    with pytest.raises(ValueError, match="positive"):
        Rule(half_width=0)
    with pytest.raises(ValueError, match="floor"):
        Rule(half_width=1, floor=10, cap=5)
