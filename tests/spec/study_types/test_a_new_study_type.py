"""A fourth study type, registered here and nowhere else: a binary yes/no question about a pair
of words. Its whole definition is the `YesNo` class below, its page template is ``yes_no.html``
beside this file, and registering it takes its `StudyType` member (the line a real type adds to
harness/spec/model.py) and one registry line. With that alone a spec of the type validates with
the type's own checks, renders a page that a real browser can answer, has its answers checked,
is simulated, and gets a screening impact table: no other module knows the type exists.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from urllib.parse import urlencode

import krippendorff
import numpy as np
import pandas as pd
import pytest
from flask import Flask
from selenium.webdriver.common.by import By

from harness.answer import Answer
from harness.errors import SpecError
from harness.render.answers import answers_from_xml
from harness.render.instrument import Instrument
from harness.render.pages import html_question, render_page
from harness.render.plan import plan_hits
from harness.render.validation import check_answers
from harness.screening.context import ScreeningContext
from harness.screening.impact import screening_impact
from harness.simulate import Crowd
from harness.simulate.studies import simulate_spec_study
from harness.spec import load_spec
from harness.spec.model import ScaleSpec, StudyType
from harness.spec.study_types import REGISTRY, Scale, ScaleProblem, StudyTypeDefinition
from harness.spec.study_types.base import IDENTICAL_IS_FOR_RATING, fixed_scale
from tests.browser import chromium
from tests.providers.mturk.local_service.factories import LocalMTurk, hit_params
from tests.serving import ServedApp
from tests.web import person

TEMPLATE = Path(__file__).with_name("yes_no.html")
ITEMS = "item_id,left,right\na,cat,dog\nb,car,tree\nc,sun,moon\nd,cup,mug\ne,pen,sky\nf,tea,cup\n"
SPEC = """\
study:
  name: related
type: yes_no
items:
  csv: items.csv
  display: [left, right]
guidelines:
  text: Say whether the two words are related.
  examples:
    - item: {left: cup, right: mug}
      answer: 1
      explanation: Both hold a drink.
raters_per_item: 3
items_per_hit: 3
template: TEMPLATE
hit:
  title: Are these words related?
  description: Say yes or no.
  reward: "0.10"
"""


class YesNo(StudyTypeDefinition):
    """A binary question on a pair of words: yes (1) or no (0), nothing else."""

    template = "yes_no.html"
    sides = 2
    alpha_level = "nominal"
    refused_controls = MappingProxyType({"identical": IDENTICAL_IS_FOR_RATING})

    def __init__(self, kind: StudyType) -> None:
        self.kind = kind

    def check_scale(self, scale: ScaleSpec) -> list[ScaleProblem]:
        if scale.options or scale.min is not None or scale.max is not None:
            return [((), "a yes/no question has a fixed scale (yes, no); remove min, max, options")]
        return []

    def resolve_scale(self, scale: ScaleSpec) -> Scale:
        return fixed_scale(self.kind, ((1.0, "Yes"), (0.0, "No")), scale.skip)


def _add_member(enum: type[StudyType], name: str, value: str) -> StudyType:
    """What one more line in the enum's body would do, done at run time."""
    member = str.__new__(enum, value)
    member._name_, member._value_ = name, value
    enum._member_map_[name] = member
    enum._value2member_map_[value] = member
    enum._member_names_.append(name)
    return member


def _remove_member(enum: type[StudyType], name: str, value: str) -> None:
    enum._member_map_.pop(name)
    enum._value2member_map_.pop(value)
    enum._member_names_.remove(name)


@pytest.fixture
def yes_no(monkeypatch) -> Iterator[StudyType]:
    """The yes/no type, registered for one test (its enum member and registry line)."""
    member = _add_member(StudyType, "YES_NO", "yes_no")
    monkeypatch.setitem(REGISTRY, member, YesNo(member))
    try:
        yield member
    finally:
        _remove_member(StudyType, "YES_NO", "yes_no")


def _write(directory: Path, text: str = SPEC) -> Path:
    (directory / "items.csv").write_text(ITEMS, encoding="utf-8")
    path = directory / "spec.yaml"
    path.write_text(text.replace("TEMPLATE", str(TEMPLATE)), encoding="utf-8")
    return path


def _problems(directory: Path, text: str) -> list[str]:
    with pytest.raises(SpecError) as caught:
        load_spec(_write(directory, text))
    return [str(p).removeprefix(f"{directory / 'spec.yaml'}:") for p in caught.value.problems]


def test_a_spec_of_the_new_type_validates_with_the_types_scale_and_page(yes_no, tmp_path):
    loaded = load_spec(_write(tmp_path))
    assert loaded.spec.type is yes_no
    assert loaded.scale.options == ((1.0, "Yes", None), (0.0, "No", None))
    assert loaded.scale.describe() == "1 (Yes), 0 (No)"
    assert "yes_no.html" in loaded.template_files


def test_the_new_types_own_checks_refuse_what_it_does_not_allow(yes_no, tmp_path):
    text = (
        SPEC.replace("display: [left, right]", "display: [left, right, left]")
        .replace("      answer: 1", "      answer: 2")
        .replace(
            "raters_per_item: 3",
            "scale: {min: 0, max: 5, order: reversed}\n"
            "controls: {identical: {}}\nraters_per_item: 3",
        )
    )
    assert _problems(tmp_path, text) == [
        "6: items.display: a yes_no item shows 2 sides; display names 3",
        "11: guidelines.examples[0].answer: answer 2.0 is off the scale (1 (Yes), 0 (No))",
        "13: scale: a yes/no question has a fixed scale (yes, no); remove min, max, options",
        "13: scale: gate and order are for likert studies",
        "14: controls.identical: identical pairs are calibration items for rating studies",
    ]


def test_without_a_template_of_its_own_the_types_built_in_template_is_looked_up(yes_no, tmp_path):
    text = SPEC.replace("template: TEMPLATE\n", "")
    assert _problems(tmp_path, text) == ["1: template: template 'yes_no.html' not found"]


def test_the_new_type_renders_a_page_with_its_choices_and_example(yes_no, tmp_path):
    loaded = load_spec(_write(tmp_path))
    plan = plan_hits(loaded)[0]
    html = render_page(
        Instrument.from_loaded(loaded),
        plan,
        study_name="related",
        hosting="external",
        worker_id="W1",
    )
    assert '<body class="task type-yes_no">' in html
    assert html.count('class="card"') == 3
    assert '<input type="radio" class="answer-input" name="yes_no" value="1"><span>Yes</span>' in (
        html
    )
    assert 'name="yes_no" value="0"><span>No</span>' in html
    assert "Answer: <strong>Yes (1)</strong>. Both hold a drink." in html
    assert 'class="slider' not in html


def test_the_new_type_accepts_yes_and_no_and_refuses_anything_else(yes_no, tmp_path):
    loaded = load_spec(_write(tmp_path))
    instrument, plan = Instrument.from_loaded(loaded), plan_hits(loaded)[0]
    keys = plan.showings
    valid = [Answer(keys[0], 0, 1.0), Answer(keys[1], 1, 0.0), Answer(keys[2], 2, 1.0)]
    assert check_answers(instrument, plan, valid) == []
    label = {k: " – ".join(instrument.sides(k)) for k in keys}
    bad = [Answer(keys[0], 0, 0.5), Answer(keys[1], 1, 2.0), Answer(keys[2], 2, None)]
    assert check_answers(instrument, plan, bad) == [
        f"question 1 ({label[keys[0]]}): 0.5 is not allowed; choose one of the options",
        f"question 2 ({label[keys[1]]}): 2 is not allowed; choose one of the options",
        f"question 3 ({label[keys[2]]}): no answer; choose one of the options",
    ]


def test_the_new_type_is_simulated_from_latent_truths_and_gets_an_impact_table(yes_no, tmp_path):
    loaded = load_spec(_write(tmp_path))
    truths = pd.Series([0.9, 0.1, 0.95, 0.05, 0.85, 0.2], index=list("abcdef"))
    crowd = Crowd({"careful": 2, "spammer": 1}, size=9, seed=4)
    table = simulate_spec_study(loaded, crowd, truths=truths, seed=4)
    assert table.equals(simulate_spec_study(loaded, crowd, truths=truths, seed=4))
    assert set(table["value"]) <= {0.0, 1.0} and len(table) == 6 * 3
    careful = table[table["true_archetype"] == "careful"]
    agree = careful["value"] == truths.round().reindex(careful["item_id"]).to_numpy()
    assert agree.mean() > 0.9

    impact = screening_impact(table, ScreeningContext.from_spec(loaded), heuristics=["quick"])
    # the type's alpha level (nominal) against the krippendorff package on the same table
    grid = table.pivot(index="worker_id", columns="item_id", values="value")
    expected = krippendorff.alpha(
        reliability_data=grid.to_numpy(dtype=float), level_of_measurement="nominal"
    )
    assert impact.loc[0, "label"] == "none"
    assert np.isclose(impact.loc[0, "alpha"], expected)


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.usefixtures("browser_available")
def test_a_page_of_the_new_type_answered_in_chromium_parses_back_and_passes_the_checks(
    yes_no, monkeypatch, tmp_path
):
    def answer(driver, card, position):
        choice = card.find_elements(By.CSS_SELECTOR, ".yes-no-choice")[position % 2]
        choice.click()
        return float(choice.find_element(By.CSS_SELECTOR, "input").get_attribute("value")), False

    monkeypatch.setitem(person.ANSWER, "yes_no", answer)
    loaded = load_spec(_write(tmp_path))
    instrument, plan = Instrument.from_loaded(loaded), plan_hits(loaded)[0]
    # threaded: Chromium opens connections it may leave idle (a preconnect, a kept-alive
    # one); one thread would wait on them and every other client with it
    mturk = LocalMTurk(tmp_path / "mturk.sqlite", threaded=True).start()
    try:
        client = mturk.client()
        question = html_question(
            instrument, plan, study_name="related", submit_origins=(mturk.url,)
        )
        hit_id = client.create_hit(**hit_params(Question=question))["HIT"]["HITId"]
        accepted = mturk.post(f"/worker/hits/{hit_id}/accept", workerId="AWORKER3").json()
        frame = Flask("frame")
        frame.add_url_rule("/frame", "frame", lambda: accepted["HTMLContent"])
        params = {
            "assignmentId": accepted["AssignmentId"],
            "hitId": hit_id,
            "workerId": "AWORKER3",
            "turkSubmitTo": mturk.url,
        }
        with ServedApp(frame) as served, chromium() as driver:
            driver.get(f"{served.url}/frame?{urlencode(params)}")
            given = person.answer_all(driver, "yes_no")
            person.wait(driver).until(lambda d: "/mturk/externalSubmit" in d.current_url)
        (assignment,) = client.list_assignments_for_hit(HITId=hit_id)["Assignments"]
    finally:
        mturk.stop()
    answers = answers_from_xml(assignment["Answer"], plan)
    assert [a.value for a in answers] == given.values == [1.0, 0.0, 1.0]
    assert check_answers(instrument, plan, answers, worker_order=given.keys) == []
