"""A study with two arms on a study link, with every pass/fail control (identical pairs,
repeated items, gold items), launched through the real CLI and worked through the real
participant pages: by Flask's test client or over HTTP (a served task server). Shared by the
tests of the comparison, the report and the dashboard."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from sqlmodel import select

from harness.answer import Answer
from harness.render.answers import encode_answers
from harness.spec.arms import ArmedSpec, load_arms
from harness.store import make_engine, session_scope
from harness.store.arm_assignment import worker_arm
from harness.store.models import Hit, Slot, Worker
from harness.web.tokens import token_in_page
from tests.platform.factories import harness_cli, small_spec
from tests.providers.link.test_link_platform import _answers, _client

ARMS = "\n  long: {}\n  short:\n    guidelines: {text: Similar words score high.}"
CONTROLS = "{identical: {per_hit: 1}, repeated: {per_hit: 1, min_gap: 1}, gold: {column: gold}}"
GOLD = {"p00": 8.0, "p01": 2.0}


def arms_spec(directory: Path, *, items: int = 8, per_hit: int = 4, raters: int = 2) -> Path:
    """The small spec with arms ``long`` (the base) and ``short`` (other guidelines), every
    pass/fail control, and a gold answer for p00 and p01."""
    spec = small_spec(
        directory,
        items=items,
        per_hit=per_hit,
        raters=raters,
        hosting="external",
        arms=ARMS,
        controls=CONTROLS,
    )
    csv = directory / "items.csv"
    lines = csv.read_text(encoding="utf-8").splitlines()
    rows = [lines[0] + ",gold"] + [f"{row},{GOLD.get(row.split(',')[0], '')}" for row in lines[1:]]
    csv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return spec


def launch(spec: Path, db: str, public_url: str = "http://tasks.test") -> str:
    result = harness_cli(
        "launch", str(spec), "--target", "link", "--db", db, "--public-url", public_url
    )
    assert result.exit_code == 0, result.output
    return result.output


Fetch = Callable[..., tuple[int, str, str]]
"""``fetch(method, url, data=None)``: status, Location header and body of one request."""


def client_fetch(client: Any) -> Fetch:
    """`Fetch` through Flask's test client."""

    def fetch(method: str, url: str, data: dict[str, str] | None = None) -> tuple[int, str, str]:
        answer = client.open(url, method=method, data=data)
        return answer.status_code, answer.headers.get("Location", ""), answer.get_data(as_text=True)

    return fetch


def http_fetch(http: Any, base: str) -> Fetch:
    """`Fetch` over HTTP (a ``requests.Session``) to the task server at ``base``."""

    def fetch(method: str, url: str, data: dict[str, str] | None = None) -> tuple[int, str, str]:
        answer = http.request(method, base + url, data=data, allow_redirects=False, timeout=30)
        location = answer.headers.get("Location", "")
        return answer.status_code, location.removeprefix(base), answer.text

    return fetch


Value = Callable[[Answer, str, str, bool], float]
"""An answer's value from the answer, the worker, their arm, and whether it is the second
showing of an item on the page."""


@dataclass
class Posted:
    """What was posted, per arm: content answers and the control checks made."""

    checks: dict[str, dict[str, int]] = field(default_factory=dict)  # arm -> control -> count
    arms: dict[str, str] = field(default_factory=dict)  # worker -> arm
    assignments: int = 0

    def count(self, arm: str, control: str) -> None:
        per_arm = self.checks.setdefault(arm, {})
        per_arm[control] = per_arm.get(control, 0) + 1


def do_one(
    fetch: Fetch, db: str, armed: ArmedSpec, worker: str, value: Value, posted: Posted
) -> bool:
    """One HIT of ``worker``'s arm, answered by ``value``; False when no work is left."""
    status, location, _ = fetch("GET", f"/p/small?participant={worker}")
    if status != 303:
        return False
    ref = location.rsplit("/", 1)[1]
    _, _, page = fetch("GET", location)
    engine = make_engine(db)
    with session_scope(engine) as session:
        slot = session.exec(select(Slot).where(Slot.session_ref == ref)).one()
        hit = session.get(Hit, slot.hit_id)
        assert hit is not None
        index, items = hit.index, list(hit.items)
        w = session.exec(select(Worker).where(Worker.platform_worker_id == worker)).one()
        found = worker_arm(session, slot.study_id, w.id)
        assert found is not None
        arm = found.name
    engine.dispose()
    seen: set[str] = set()
    answers = []
    for a in _answers(armed.arm(arm).loaded, items, index, worker):
        again = a.item_key in seen
        seen.add(a.item_key)
        answers.append(replace(a, value=value(a, worker, arm, again)))
        if a.item_key.startswith("identical-"):
            posted.count(arm, "identical")
        elif a.item_key in GOLD:  # each showing of a gold item, a repeated one too (as H9)
            posted.count(arm, "gold")
            if again:  # and a repeated gold item's two showings are a repeat check (H10)
                posted.count(arm, "repeat")
        elif again:
            posted.count(arm, "repeat")
    data = encode_answers(answers) | {
        "workerId": worker,
        "assignmentId": ref,
        "pageToken": token_in_page(page),
    }
    status, _, body = fetch("POST", f"{location}/submit", data)
    assert status == 200, body
    posted.arms[worker] = arm
    posted.assignments += 1
    return True


def item_truths(items: int = 8, seed: int = 0) -> dict[str, float]:
    """Each item's true value (1-9, seeded)."""
    rng = np.random.default_rng(seed)
    return {f"p{i:02d}": float(rng.integers(1, 10)) for i in range(items)}


def original_csv(path: Path, items: int = 8, raters: int = 5, seed: int = 1) -> Path:
    """A long judgments CSV of an "original" instrument over the same items: each item's
    truth with noise sd 1, ``raters`` raters."""
    rng = np.random.default_rng(seed)
    rows = ["item_id,worker_id,value"] + [
        f"{item},o{w},{float(np.clip(round(truth + rng.normal(0, 1)), 0, 10)):g}"
        for item, truth in item_truths(items).items()
        for w in range(raters)
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def careful_long_careless_short(seed: int = 0, items: int = 8) -> Value:
    """``long``'s workers pass every control and answer near each item's truth; ``short``'s
    fail every control (identical pairs at 2, gold 5 off, a repeat 5 apart; a repeated gold
    item 2 off at its second showing, 3 from its first) and answer noisily."""
    rng = np.random.default_rng(seed)
    truth = item_truths(items)
    first: dict[tuple[str, str], float] = {}

    def value(a: Answer, worker: str, arm: str, again: bool) -> float:
        key = (worker, a.item_key)
        if again:
            before = first[key]
            if arm == "long":
                return before
            if a.item_key in GOLD:  # still 2 off the gold answer, and 3 from the first showing
                gold = GOLD[a.item_key]
                return gold + 2 if gold <= 5 else gold - 2
            return before + 5 if before <= 5 else before - 5
        if a.item_key.startswith("identical-"):
            v = 10.0 if arm == "long" else 2.0
        elif a.item_key in GOLD and arm == "long":
            v = GOLD[a.item_key]
        elif a.item_key in GOLD:
            v = GOLD[a.item_key] + 5 if GOLD[a.item_key] <= 5 else GOLD[a.item_key] - 5
        else:
            noise = 0.4 if arm == "long" else 3.0
            v = float(np.clip(round(truth.get(a.item_key, 5.0) + rng.normal(0, noise)), 0, 10))
        first[key] = v
        return v

    return value


def work_all(fetch: Fetch, db: str, spec: Path, workers: list[str], value: Value) -> Posted:
    """Every worker does every HIT of their arm there is for them."""
    armed = load_arms(spec)
    posted = Posted()
    for worker in workers:
        while do_one(fetch, db, armed, worker, value, posted):
            pass
    return posted


def work_arms_study(database_url: str, folder: Path) -> Posted:
    """The study with arms launched and done by four participants (P1-P4: careful in ``long``,
    careless in ``short``) through the pages: a `store_copy` build shared by the tests that
    read it (the comparison's, the dashboard's)."""
    spec = arms_spec(folder)
    launch(spec, database_url)
    app, client = _client(database_url)
    try:
        return work_all(
            client_fetch(client),
            database_url,
            spec,
            ["P1", "P2", "P3", "P4"],
            careful_long_careless_short(),
        )
    finally:
        app.extensions["harness"].close()
