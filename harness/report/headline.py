"""The headline figures of a characterization, as `harness characterize` prints them."""

from __future__ import annotations

from harness.characterize import Characterization
from harness.report.arms import arms_meaning
from harness.report.compare import closest_pair_verdict
from harness.report.numbers import interval, num
from harness.report.resolution import resolution_figure, with_interval
from harness.report.verdict import reproduction_verdict


def headline(c: Characterization) -> str:
    """Alpha of each instrument (and of the screened set), reproducibility, resolution and the
    verdict on the two closest systems: a few lines for the terminal."""
    if c.self_comparison and c.resolution is not None:
        return resolution_headline(c)
    new, orig = c.new.repeatability, c.original.repeatability
    r = c.reproducibility
    lines = [
        f"alpha {c.new_instrument.name} (new): {num(new.alpha)} {interval(new.ci)} {new.verdict}",
        f"alpha {c.original_instrument.name} (original): {num(orig.alpha)} {interval(orig.ci)} "
        f"{orig.verdict}",
        f"reproducibility on {r.overlap.n_shared} shared items: Spearman rho of means "
        f"{num(r.spearman_means)}, Pearson r of means {num(r.pearson_means)}, Pearson r of sds "
        f"{num(r.pearson_sds)}",
    ]
    if c.screened is not None:
        s = c.screened.new.repeatability
        lines.insert(
            1,
            f"alpha {c.new_instrument.name} screened ({c.screened.policy}): "
            f"{num(s.alpha)} {interval(s.ci)} {s.verdict}",
        )
    if c.resolution is not None:
        lines.append(_resolution_line(c))
    if c.systems is not None:
        lines.append(closest_pair_verdict(c))
    if c.arms is not None:
        lines.append(f"arms of {c.arms.study}: {arms_meaning(c.arms)}")
    verdict = reproduction_verdict(c)
    lines.insert(0, verdict.sentence().replace(" (criteria below)", ""))
    lines.insert(
        1,
        "  criteria: "
        + "; ".join(
            f"{k.name} ({k.rule}): {'met' if k.met else 'not met'}" for k in verdict.criteria
        ),
    )
    return "\n".join(lines)


def resolution_headline(c: Characterization) -> str:
    """A resolution study of the original, characterized on its own: its resolution first, then
    the original's alpha and what it can tell about the systems, each once."""
    orig = c.original.repeatability
    lines = [
        _resolution_line(c),
        f"alpha {c.original_instrument.name}: {num(orig.alpha)} {interval(orig.ci)} {orig.verdict}",
    ]
    if c.systems is not None:
        lines.append(closest_pair_verdict(c))
    return "\n".join(lines)


def _resolution_line(c: Characterization) -> str:
    res = c.resolution
    assert res is not None
    curve = res.psychometric
    fitted = ""
    if curve is not None:
        reach = with_interval(curve.d_target, curve.ci)
        fitted = f"; the fitted curve reaches {res.target:.0%} at {reach}"
    if res.threshold_95 is None:
        return f"resolution: not reached{fitted}"
    return (
        f"resolution: {resolution_figure(res)} ({res.item_pairs_above:,} of "
        f"{res.n_item_pairs:,} item pairs of the original at or above it){fitted}"
    )
