"""The whole characterization: screened figures always come with those for all judgments."""

from __future__ import annotations

import pytest

from harness.characterize import characterize, instrument_from_table, instrument_from_ws353
from harness.errors import InputError
from harness.report import build_document, render_markdown
from tests.characterize import factories


@pytest.fixture(scope="module")
def instruments(ws353_dir):
    new = instrument_from_table(factories.reproduction(), name="repro", kind="csv")
    return new, instrument_from_ws353(factories.ws353())


def test_flagged_workers_and_the_screened_table_give_the_same_figures(instruments):
    new, original = instruments
    flagged = ["w001", "w007"]
    kept = new.judgments[~new.judgments["worker_id"].isin(flagged)]
    by_list = characterize(new, original, flagged_workers=flagged, resamples=50)
    by_table = characterize(new, original, screened=kept, resamples=50)
    assert by_list.screened is not None and by_table.screened is not None
    assert by_list.screened.workers_removed == flagged
    assert by_list.screened.to_dict() == by_table.screened.to_dict()
    assert by_list.new.repeatability.alpha != by_list.screened.new.repeatability.alpha


def test_the_screened_alpha_is_never_shown_alone(instruments):
    new, original = instruments
    c = characterize(new, original, flagged_workers=["w003"], screening_policy="H3", resamples=50)
    markdown = render_markdown(build_document(c))
    repeatability = markdown.split("## Repeatability")[1].split("## Precision")[0]
    assert "repro (new, all judgments)" in repeatability
    assert "repro (new, screened: H3)" in repeatability
    summary = markdown.split("## Summary")[1].split("## Measurement")[0]
    assert "| alpha, new [95% interval] |" in summary
    assert "| alpha, new screened (H3) |" in summary
    impact = markdown.split("## Screening impact")[1]
    assert "| figure | all judgments | screened (H3) | difference | relative change |" in impact


def test_a_screened_table_and_flagged_workers_together_are_refused(instruments):
    new, original = instruments
    with pytest.raises(InputError, match="not both"):
        characterize(new, original, screened=new.judgments, flagged_workers=["w001"])
