"""`harness preview`: a spec's HIT written to a file, or served against a throw-away store."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

from click.testing import CliRunner

from harness.answer import Answer
from harness.cli import main
from harness.render.answers import encode_answers
from harness.render.instrument import Instrument
from harness.render.plan import plan_hits
from harness.spec import load_spec
from harness.web.preview import PREVIEW_WORKER, preview_app
from harness.web.tokens import token_in_page
from tests.web.factories import write_task_spec

T0 = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=30)


def keys_in(html):
    return [part.split('"')[0] for part in html.split('data-key="')[1:]]


def posted(order, value):
    return encode_answers(
        Answer(k, p, value, shown_at=T0, answered_at=T0 + timedelta(seconds=p + 1))
        for p, k in enumerate(order)
    )


def test_preview_out_writes_the_page_in_the_preview_workers_order(tmp_path):
    spec = write_task_spec(tmp_path, "rating")
    out = tmp_path / "page.html"
    result = CliRunner().invoke(main, ["preview", str(spec), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == f"{out}: HIT 0 of words (rating)\n"
    loaded = load_spec(spec)
    plan = plan_hits(loaded)[0]
    order = Instrument.from_loaded(loaded).page_order(
        plan, study_name="words", worker_id=PREVIEW_WORKER
    )
    assert keys_in(out.read_text()) == order


def test_preview_out_of_an_mturk_hosted_spec_is_the_self_contained_document(tmp_path):
    spec = write_task_spec(tmp_path, "likert")
    out = tmp_path / "page.html"
    assert CliRunner().invoke(main, ["preview", str(spec), "--out", str(out)]).exit_code == 0
    html = out.read_text()
    assert '"hosting": "mturk"' in html
    assert " src=" not in html and '<link rel="stylesheet"' not in html


def test_preview_of_a_hit_the_spec_does_not_plan_says_which_exist(tmp_path):
    spec = write_task_spec(tmp_path, "rating")
    result = CliRunner().invoke(main, ["preview", str(spec), "--hit", "3", "--out", "x.html"])
    assert result.exit_code == 1
    assert result.output.endswith("--hit 3 does not exist; the spec plans HITs 0 to 0\n")


@contextmanager
def preview_server(tmp_path, kind):
    """The preview app of one of the small specs, and the lines it prints."""
    loaded = load_spec(write_task_spec(tmp_path, kind))
    lines: list[str] = []
    work = tmp_path / "work"
    work.mkdir()
    app = preview_app(loaded, 0, work, echo=lines.append)
    try:
        yield loaded, app, lines
    finally:
        app.extensions["harness"].close()


def test_the_preview_server_gives_a_fresh_assignment_and_prints_what_it_stored(tmp_path):
    with preview_server(tmp_path, "pair_comparison") as (_loaded, app, lines):
        client = app.test_client()
        first, second = client.get("/"), client.get("/")
        assert first.status_code == second.status_code == 302
        params = parse_qs(urlsplit(first.location).query)
        assert params["workerId"] == [PREVIEW_WORKER]
        assert params["assignmentId"] != parse_qs(urlsplit(second.location).query)["assignmentId"]
        page = client.get(first.location)
        assert page.status_code == 200
        data = posted(keys_in(page.get_data(as_text=True)), 1.0)
        data.update(
            assignmentId=params["assignmentId"][0],
            workerId=PREVIEW_WORKER,
            pageToken=token_in_page(page.get_data(as_text=True)),
        )
        response = client.post(f"{urlsplit(first.location).path}/submit", data=data)
        assert response.status_code == 200, response.json
        assert lines[0] == "stored 4 judgments:"
        assert lines[1].startswith("    1. ") and lines[1].endswith(": 1 1.0s")
        before = client.get("/preview")
        assert "ASSIGNMENT_ID_NOT_AVAILABLE" in before.location


def test_the_preview_server_checks_what_an_mturk_hosted_page_posts(tmp_path):
    with preview_server(tmp_path, "likert") as (loaded, app, lines):
        client = app.test_client()
        location = client.get("/?workerId=W9").location
        assert location.startswith("/mturk-page?")
        query = parse_qs(urlsplit(location).query)
        submit_to, assignment = query["turkSubmitTo"][0], query["assignmentId"][0]
        assert submit_to == "http://localhost"  # bare: this server stands in for MTurk's site
        page = client.get(location)  # its scripts carry the nonce its policy allows
        nonce = page.headers["Content-Security-Policy"].split("'nonce-")[1].split("'")[0]
        html = page.get_data(as_text=True)
        assert html.count(f'<script nonce="{nonce}">') == 2
        assert '"submitOrigins": ["http://localhost"]' in html
        plan = plan_hits(loaded)[0]
        order = Instrument.from_loaded(loaded).page_order(plan, study_name="claims", worker_id="W9")
        url = "/mturk/externalSubmit"  # the answers of W9's assignment, in W9's order
        good = client.post(url, data={"assignmentId": assignment, **posted(order, 5.0)})
        assert good.status_code == 200
        assert "The answers are valid." in good.get_data(as_text=True)
        bad = client.post(url, data={"assignmentId": assignment, **posted(order[::-1], 5.0)})
        assert bad.status_code == 422
        assert "this page showed another item there" in bad.get_data(as_text=True)
        assert any(line.startswith("  problem: ") for line in lines)
