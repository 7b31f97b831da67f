"""Task pages from the templates: what a worker sees for each study type, self-contained,
escaped and strict; the question documents MTurk receives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from jinja2 import UndefinedError

from harness.providers.mturk.local_service.questions import parse_question
from harness.render.instrument import Instrument
from harness.render.markup import guidelines_html
from harness.render.pages import external_question, html_question, render_page
from harness.render.plan import plan_hits
from harness.spec import load_spec
from harness.spec.arms import load_arms
from harness.spec.yaml_source import read_yaml
from tests.factories import TASK_SPECS
from tests.web.factories import write_task_spec


def _shipped() -> list[tuple[Path, str | None]]:
    """Every shipped spec, and every arm of a spec with arms (docs/arms.md) on its own."""
    out: list[tuple[Path, str | None]] = []
    for path in sorted(TASK_SPECS.glob("*.yaml")):
        arms = read_yaml(path).data.get("arms")
        out += [(path, str(arm)) for arm in arms] if arms else [(path, None)]
    return out


def _loaded(spec: tuple[Path, str | None]):
    path, arm = spec
    return load_spec(path) if arm is None else load_arms(path).arm(arm).loaded


def _id(spec: tuple[Path, str | None]) -> str:
    return spec[0].stem if spec[1] is None else f"{spec[0].stem}-{spec[1]}"


SHIPPED = _shipped()
MTURK = "https://www.mturk.com"


def page(tmp_path: Path, kind: str, **options):
    loaded = load_spec(write_task_spec(tmp_path, kind))
    instrument = Instrument.from_loaded(loaded)
    plan = plan_hits(loaded)[0]
    options.setdefault("hosting", "external")
    options.setdefault("worker_id", "W1")
    return render_page(instrument, plan, study_name=loaded.spec.study.name, **options)


@pytest.mark.parametrize("spec", SHIPPED, ids=_id)
@pytest.mark.parametrize("hosting", ["external", "mturk"])
def test_no_page_fetches_anything_from_anywhere(spec, hosting):
    loaded = _loaded(spec)
    html = render_page(
        Instrument.from_loaded(loaded),
        plan_hits(loaded)[0],
        study_name=loaded.spec.study.name,
        hosting=hosting,
        worker_id="W1",
    )
    assert not re.search(r"""\b(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert not re.search(r"@import|url\(|<link rel=\"stylesheet\"|<script src", html)
    assert '<link rel="icon" href="data:,">' in html  # not even a favicon request


@pytest.mark.parametrize("spec", SHIPPED, ids=_id)
def test_every_shipped_spec_makes_an_html_question_mturk_accepts(spec):
    loaded = _loaded(spec)
    instrument = Instrument.from_loaded(loaded)
    for plan in plan_hits(loaded)[:3]:
        page = html_question(instrument, plan, study_name="s", submit_origins=(MTURK,))
        question = parse_question(page)
        assert question.kind == "HTMLQuestion"
        assert question.html is not None and question.html.startswith("<!doctype html>")


def test_the_external_question_points_at_the_hits_page():
    loaded = load_spec(TASK_SPECS / "ws353_resolution.yaml")
    plan = plan_hits(loaded)[4]
    question = parse_question(
        external_question("https://tasks.example.org/", study_name="ws353-resolution", plan=plan)
    )
    assert question.external_url == "https://tasks.example.org/hit/ws353-resolution-004"


def test_a_fractional_rating_scale_has_a_slider_and_a_number_field(tmp_path):
    html = page(tmp_path, "rating")
    assert 'type="range" class="slider untouched" min="0" max="10" step="0.1"' in html
    assert 'class="value-input" inputmode="decimal"' in html
    assert "Enter a number from 0 to 10; decimals are allowed (e.g. 7.5)." in html
    assert "<strong>0</strong> = unrelated" in html and "<strong>10</strong> = identical" in html


def test_a_whole_number_rating_scale_has_one_button_per_value(tmp_path):
    loaded = load_spec(
        write_task_spec(tmp_path, "rating", **{"fractional: true": "fractional: false"})
    )
    html = render_page(
        Instrument.from_loaded(loaded), plan_hits(loaded)[0], study_name="w", hosting="external"
    )
    values = re.findall(
        r'<input type="radio" class="answer-input" name="rating" value="([^"]+)"', html
    )
    assert values == [str(v) for v in range(11)]


def test_likert_options_follow_the_specs_order_with_their_colours(tmp_path):
    html = page(tmp_path, "likert")  # order: reversed
    labels = re.findall(r'<span class="option-label">([^<]+)</span>', html)
    assert labels == ["I disagree", "Not sure", "I agree"]
    assert "--option-color: #d73027; --option-ink: #ffffff" in html  # white on dark red
    assert "--option-color: #d9d9d9; --option-ink: #111111" in html  # black on light grey
    assert "<legend>Is this statement understandable?</legend>" in html
    assert '"halfwayReminder": true' in html
    assert "I cannot judge this statement" in html


def test_a_pair_comparison_shows_both_pairs_and_the_three_coded_choices(tmp_path):
    html = page(tmp_path, "pair_comparison")
    assert html.count('<span class="pair-name">First pair</span>') == 4
    choices = re.findall(r'name="pair" value="(-?\d)"><span>([^<]+)</span>', html)
    assert choices == [
        ("1", "← The first pair is more similar"),
        ("0", "They are equally similar"),
        ("-1", "The second pair is more similar →"),
    ]


def test_guidelines_and_worked_examples_are_on_the_page(tmp_path):
    html = page(tmp_path, "likert")
    assert "<p>Say how much you agree that the statement makes sense.</p>" in html
    assert "Answer: <strong>I agree (5)</strong>. Clearly sensible." in html
    assert '<details class="guidelines" id="guidelines" open>' in html


def test_a_preview_page_says_so(tmp_path):
    html = page(tmp_path, "rating", preview=True)
    assert '"preview": true' in html
    assert '<div class="banner banner-preview" id="preview-banner">' in html


def test_guidelines_cannot_inject_markup():
    html = guidelines_html("# Title\n\nSome **bold** <script>alert(1)</script>\n- one\n- two")
    assert html == (
        "<h3>Title</h3>\n<p>Some <strong>bold</strong> &lt;script&gt;alert(1)&lt;/script&gt;"
        "</p>\n<ul><li>one</li><li>two</li></ul>"
    )


def test_a_custom_template_is_used_and_a_missing_variable_fails_loudly(tmp_path):
    (tmp_path / "custom").mkdir()
    (tmp_path / "custom" / "mine.html").write_text(
        '{% extends "rating.html" %}{% block showing %}<p class="mine">{{ s.sides | join("/") }}'
        "</p>{% endblock %}"
    )
    spec = write_task_spec(tmp_path, "rating")
    spec.write_text(spec.read_text() + "template: custom/mine.html\n")
    loaded = load_spec(spec)
    instrument = Instrument.from_loaded(loaded)
    html = render_page(instrument, plan_hits(loaded)[0], study_name="w", hosting="external")
    assert '<p class="mine">cup/mug</p>' in html
    (tmp_path / "custom" / "mine.html").write_text(
        '{% extends "rating.html" %}{% block showing %}{{ nope }}{% endblock %}'
    )
    with pytest.raises(UndefinedError, match="'nope' is undefined"):
        render_page(instrument, plan_hits(loaded)[0], study_name="w", hosting="external")
