"""The report's resolution blocks: the figures beside the published ones (for WS353 only), the
per-band table, and what is said when the psychometric curve cannot be fitted."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest

from harness.characterize import resolution
from harness.report.document import Plot, Table
from harness.report.resolution import resolution_blocks, resolution_meaning
from tests.characterize import factories


@pytest.fixture(scope="module")
def resolution_table(ws353_dir) -> pd.DataFrame:
    return factories.resolution_study()


def _figures(blocks) -> dict[str, str]:
    return dict(blocks[0].rows)


def test_the_blocks_hold_the_figures_the_band_table_and_both_plots(resolution_table, ws353_dir):
    res = resolution(resolution_table, factories.ws353_means())
    blocks = resolution_blocks(res, "WS353")
    assert [type(b) for b in blocks] == [Table, Table, Plot, Plot]
    assert [b.name for b in blocks[2:]] == ["psychometric", "resolution"]
    figures = _figures(blocks)
    curve = res.psychometric
    assert figures["distance where the fitted curve reaches 95% [95% bootstrap interval]"] == (
        f"{curve.d_target:.2f} [{curve.ci[0]:.2f}, {curve.ci[1]:.2f}]"
    )
    published = figures["published for WS353 (13 raters per pair of pairs)"]
    assert "resolution 1.8; 33,359 of 61,425 item pairs above it (351 items" in published
    bands = blocks[1]
    assert bands.headers[:3] == ["distance", "pairs of pairs", "agree"]
    assert [row[0] for row in bands.rows[:2]] == ["0.0-1.0", "1.0-2.0"]
    assert sum(int(row[1]) for row in bands.rows) == len(res.decisions)
    assert "depends on the design" in resolution_meaning(res)


def test_without_a_fit_the_report_says_why_and_leaves_the_fitted_column_empty(
    resolution_table, ws353_dir
):
    res = replace(resolution(resolution_table, factories.ws353_means()), psychometric=None)
    blocks = resolution_blocks(res, "my original")
    figures = _figures(blocks)
    assert figures["distance where the fitted curve reaches 95% [95% bootstrap interval]"] == (
        "no fit (agreement does not rise with distance, or is separable by it)"
    )
    assert not any(k.startswith("published") for k in figures)  # not WS353: no published figure
    assert {row[-1] for row in blocks[1].rows} == {""}


def test_a_resolution_study_of_the_original_alone_leads_with_its_resolution_said_once(
    resolution_table, ws353_dir
):
    # `harness demo resolution` characterizes WS353 against itself: no "WS353 reproduces
    # WS353", and the systems sentence and summary rows appear once, not once per side.
    from harness.characterize import characterize
    from harness.characterize.inputs import read_instrument
    from harness.characterize.instrument import instrument_from_table
    from harness.report.build import summary_section
    from harness.report.headline import headline

    original = read_instrument(f"ws353:{ws353_dir}", None)
    study = instrument_from_table(resolution_table, name="resolution study", kind="csv")
    c = characterize(
        original,
        original,
        resolution_study=study,
        system_scores=factories.system_scores(),
        resamples=100,
    )
    assert c.self_comparison
    lines = headline(c).splitlines()
    assert lines[0].startswith(f"resolution: {c.resolution.threshold_95:.2f} [")
    assert not any("reproduces" in line for line in lines)
    assert sum("tell minilm" in line for line in lines) == 1
    assert headline(c).count(f"on {original.name}, ") == 1
    summary = summary_section(c)
    assert summary.meaning.startswith(f"The resolution of {original.name} by this crowd: ")
    rows = summary.blocks[-1].rows
    assert [r[0] for r in rows].count(f"{original.name} tells minilm from minilm_frame?") <= 1
    assert not any(r[0].startswith("alpha, new") for r in rows)
