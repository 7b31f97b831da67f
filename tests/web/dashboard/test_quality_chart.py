"""The study page's alpha chart: both sets of workers with their intervals, the axis named,
and the smallest acceptable alpha (the spec's `alpha_min`, else 0.667) drawn where the y axis
puts it."""

from __future__ import annotations

import re

import pytest

from harness.stats.reliability import DEFAULT_ALPHA_MIN
from tests.web.dashboard.stored import dashboard_client, stored_study, study_url


@pytest.fixture(params=[None, 0.8], ids=["default-alpha-min", "spec-alpha-min"])
def alpha_min(request):
    """The spec's ``alpha_min`` (None: the spec has none)."""
    return request.param


@pytest.fixture
def page(tmp_path, database_url, alpha_min):
    extra = {} if alpha_min is None else {"alpha_min": str(alpha_min)}
    study = stored_study(tmp_path, 12, database_url, extra)
    client, _ = dashboard_client(study.db)
    try:
        yield client.get(study_url()).get_data(as_text=True)
    finally:
        client.application.extensions["harness.web.dashboard"].close()


def test_the_alpha_chart_shows_both_bands_a_y_label_and_the_alpha_min_rule(page, alpha_min):
    expected_min = DEFAULT_ALPHA_MIN if alpha_min is None else alpha_min
    chart = re.search(r'<svg id="alpha-plot".*?</svg>', page, re.S)
    assert chart, page[:2000]
    svg = chart.group(0)
    assert 'id="band-everyone" points="' in svg and 'id="band-screened" points="' in svg
    assert re.search(r'<text class="axis" transform="rotate\(-90\)"[^>]*>alpha</text>', svg)
    rule = re.search(r'<line class="alpha-min"[^>]* y1="([\d.]+)"', svg)
    labels = re.findall(r'y="([\d.]+)" text-anchor="end">(-?[\d.]+)<', svg)
    ticks = [(float(y) - 3, float(v)) for y, v in labels]  # a label sits 3 below its line
    assert rule and len(ticks) == 3
    (bottom_y, bottom), (top_y, top) = ticks[0], ticks[-1]
    expected = bottom_y + (top_y - bottom_y) * (expected_min - bottom) / (top - bottom)
    assert float(rule[1]) == pytest.approx(expected, abs=0.5)
    assert f"alpha_min {expected_min:.3f}" in svg
