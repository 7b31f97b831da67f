"""Fixed against adaptive collection on simulated WS353 items (scripts/bench_adaptive.py runs
the full comparison over many seeds)."""

from __future__ import annotations

import numpy as np

from harness.characterize.inputs import read_instrument
from harness.simulate.adaptive import Truth, collect_adaptive, collect_fixed
from harness.stats.sequential import Rule


def test_adaptive_collection_takes_fewer_judgments_for_about_the_fixed_worst_precision():
    pilot = read_instrument("ws353", None).judgments
    truth = Truth.of_pilot(pilot)
    reference = pilot.groupby("item_id")["value"].mean().reindex(truth.items).to_numpy()
    fixed = collect_fixed(truth, 13, seed=1, reference=reference)
    target = fixed.worst_half_width
    adaptive = collect_adaptive(truth, Rule(half_width=target), 30, seed=1, reference=reference)
    assert adaptive.judgments < 0.8 * fixed.judgments
    assert adaptive.half_width_99 < 1.05 * target
    assert adaptive.worst_half_width < 1.25 * target
    assert adaptive.per_item.min() >= 5 and adaptive.per_item.max() <= 40
    # harder items get more raters
    assert np.corrcoef(truth.sds, adaptive.per_item)[0, 1] > 0.5
    assert abs(adaptive.mean_bias) < 0.05
