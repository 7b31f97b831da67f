"""The load test through a study link (scripts/load_test.py --platform link): a small run passes
every row-by-row check, the checks catch a submission the task server acknowledged and the store
lacks, and a run on a link refuses platform errors it cannot make."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))

from load_checks import check_link  # noqa: E402
from load_session import Timings, refusal_reason, request_kind  # noqa: E402

from harness.store.migrations import upgrade  # noqa: E402


def run_load_test(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPTS / "load_test.py"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=SCRIPTS.parent,
    )


@pytest.mark.slow
def test_a_small_link_run_passes_every_check_without_a_local_mturk_service() -> None:
    done = run_load_test(  # the crowd stopped after 30 s: a machine busy with other work
        "--platform",
        "link",
        "--store",
        "sqlite",
        "--workers",
        "5",
        "--raters",
        "2",
        "--seconds",
        "30",
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert out.startswith("study link, store sqlite, 5 concurrent workers")
    assert "[FAIL]" not in out
    assert "[ok] 0 lost: every submission stored with all its judgments" in out
    assert "[ok] rejected in the store = rejections logged" in out
    assert "[ok] 0 places given to a participant after their block" in out
    for kind in ("entry", "page", "submit", "done"):
        assert f"  {kind:<6} p50 " in out
    cpu = next(line for line in out.splitlines() if "CPU ms per assignment" in line)
    assert "task server" in cpu and "simulated crowd" in cpu and "local MTurk" not in cpu
    stored = int(out.splitlines()[1].split()[0])
    assert stored > 0
    assert f"{stored} places submitted, {stored} acknowledged by the task server" in out


def test_a_link_run_refuses_platform_errors(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import load_test

    monkeypatch.setattr(
        sys, "argv", ["load_test.py", "--platform", "link", "--platform-errors", "0.3"]
    )
    with pytest.raises(SystemExit) as exited:
        load_test.main()
    assert exited.value.code == 2
    assert "--platform-errors: a study link has no platform to answer 429 or 503" in (
        capsys.readouterr().err
    )


def test_the_link_checks_fail_on_an_acknowledged_submission_the_store_lacks(
    tmp_path: Path,
) -> None:
    db = f"sqlite:///{tmp_path / 'harness.db'}"
    upgrade(db)
    timings = Timings("http://127.0.0.1:1")
    timings.acknowledged.add("LGONE")
    checks = check_link(db, timings)
    passed, found = checks["0 lost: every submission stored with all its judgments"]
    assert not passed
    assert "1 missing or incomplete ['LGONE']" in found


def test_link_requests_are_told_apart_by_their_url() -> None:
    base = "http://127.0.0.1:5000/p/load"
    assert request_kind(f"{base}?participant=5fw001") == "entry"
    assert request_kind(f"{base}/s/LABC") == "page"
    assert request_kind(f"{base}/s/LABC/submit") == "submit"
    assert request_kind(f"{base}/done/LABC") == "done"


def test_a_refusal_is_told_by_the_reason_its_page_gives() -> None:
    page = "<h1>No task for you</h1><p>There is no work left in this study for you &amp; us.</p>"
    assert refusal_reason(page) == "There is no work left in this study for you & us."
