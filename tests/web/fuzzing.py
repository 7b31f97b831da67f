"""Seeded fuzzing of what workers post (issue 41): a valid submission, bent by a few mutations
drawn from values that have broken servers (times past year 9999, numbers past a float's range,
other scripts' digits, repeated and unknown fields), posted to a HIT's page and to a study
link's session page with valid tokens, so the posts get past the door to the answer checks.

The task server must answer every one with JSON and a status below 500. Used by
``tests/web/test_fuzz_submissions.py`` (a few seconds' worth in every test run) and by
``scripts/fuzz_submissions.py`` (as long as you like).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from werkzeug.datastructures import MultiDict

from harness.answer import Answer
from harness.clock import utcnow
from harness.render.answers import encode_answers
from harness.render.validation import AnswersRefused, read_posted
from harness.web.tokens import token_in_page
from tests.web.factories import PlannedStudy

KINDS = ("item", "value", "skip", "shown", "answered")
NUMBERS = [
    "",
    "5",
    "-0",
    "+5",
    ".5",
    "5.",
    "6,5",
    "10.0",
    "10.05",
    "-1",
    "11",
    "1e3",
    "1e-400",
    "1e309",
    "9" * 40,
    "9" * 41,
    "0." + "0" * 38 + "1",
    "nan",
    "-inf",
    "Infinity",
    "1_0",
    "٥",
    "５",
    "\x00",
    "5\n",
    " ",
    "0x10",
]
TIMES = [
    "0",
    "-1",
    "946684799999",  # just before 2000
    "946684800000",
    "253402300800000",  # year 10000: past what a datetime can hold
    "253402300799999",
    "999999999999999",
    "999999999999999.999999999999",
    "9999999999999999",  # 16 digits
    "1" * 30,
    "1" * 31,
    "1e15",
    "1.5e12",
    "17000000000000000000000",
    "-946684800000",
    "inf",
    "nan",
    "٥٥٥٥٥٥٥٥٥٥٥٥٥",
    "1700000000000.",
    ".5",
]
NAMES = ["assignmentId", "workerId", "hitId", "turkSubmitTo", "pageToken", "", "item-", "x"]


def now_millis(offset_seconds: float = 0) -> str:
    """The server's "now" plus ``offset_seconds``, in the page's milliseconds."""
    return str(round((utcnow().timestamp() + offset_seconds) * 1000))


def timely() -> list[str]:
    """Times about now: inside, at the edge of, and outside the window a task is open."""
    day = 86400
    return [now_millis(s) for s in (-60, 0, day - 60, day + 60, 2 * day, -2 * day, -400 * day)]


def mutate(rng: random.Random, base: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``base`` with one to four changes: a field set to a hostile value, dropped, repeated,
    or a new field added."""
    fields = list(base)
    positions = max(1, sum(1 for name, _ in fields if name.startswith("item-")))
    for _ in range(rng.randint(1, 4)):
        choice = rng.random()
        if choice < 0.45 and fields:  # a known field, a hostile value
            i = rng.randrange(len(fields))
            name = fields[i][0]
            kind = name.split("-", 1)[0]
            pool = TIMES + timely() if kind in ("shown", "answered") else NUMBERS
            fields[i] = (name, rng.choice(pool))
        elif choice < 0.6 and fields:
            del fields[rng.randrange(len(fields))]
        elif choice < 0.7 and fields:
            fields.append(rng.choice(fields))
        elif choice < 0.9:  # a field of a position the page may not have
            position = rng.choice([positions, positions + 1, 99999, 100000, -1, 0])
            kind = rng.choice(KINDS)
            pool = TIMES if kind in ("shown", "answered") else NUMBERS
            fields.append((f"{kind}-{position}", rng.choice(pool)))
        else:
            fields.append((rng.choice(NAMES), rng.choice(NUMBERS + TIMES)))
    return fields


@dataclass
class Tally:
    """How the server answered: statuses counted, and every answer that broke the rules."""

    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    created: int = 0

    @property
    def posts(self) -> int:
        return sum(self.statuses.values())

    def note(self, where: str, fields: list[tuple[str, str]], status: int, body: Any) -> None:
        self.statuses[status] += 1
        if status >= 500 or not isinstance(body, dict) or not isinstance(body.get("ok"), bool):
            self.failures.append(f"{where} answered {status} to {fields!r}: {str(body)[:300]}")
        elif status != 200 and not body.get("errors"):
            self.failures.append(f"{where} refused {fields!r} without saying why")
        elif body.get("created"):
            self.created += 1


class FuzzServer:
    """The task server (Flask's test client) on a SQLite store in ``directory`` with a HIT study
    (platform vouching for everyone) and a study link with room for many participants."""

    def __init__(self, directory: Path) -> None:
        from harness.store import make_engine
        from harness.web import create_app
        from tests.factories import migrated_sqlite
        from tests.platform.factories import harness_cli, small_spec
        from tests.web.factories import PlatformVouches, plan_study, write_task_spec

        directory.mkdir(parents=True, exist_ok=True)
        url = migrated_sqlite(directory / "fuzz.db")
        self.engine = make_engine(url)
        self.hits = plan_study(self.engine, write_task_spec(directory, "rating"))
        spec = small_spec(directory, items=4, per_hit=2, raters=1000, hosting="external")
        launched = harness_cli(
            "launch", str(spec), "--target", "link", "--db", url, "--public-url", "http://t.test"
        )
        assert launched.exit_code == 0, launched.output
        self.app = create_app(url, verifier=PlatformVouches())
        self.client = self.app.test_client()
        self.keys = self.app.extensions["harness.trust"].keys
        self.serial = 0
        self.link: tuple[str, list[tuple[str, str]]] | None = None

    def close(self) -> None:
        self.app.extensions["harness"].close()
        self.engine.dispose()

    def hit_submission(self) -> tuple[str, list[tuple[str, str]]]:
        """A HIT page's valid submission for a new assignment, signed."""
        from tests.web.test_task_server import answers

        self.serial += 1
        assignment, worker = f"FZ{self.serial}", f"AFUZZ{self.serial % 7}"
        token = self.keys.sign(
            "hit", unit=self.hits.key(0), assignment_id=assignment, worker_id=worker
        )
        ids = {"assignmentId": assignment, "workerId": worker, "pageToken": token}
        fields = encode_answers(answers(self.hits, 6.0, worker=worker))
        return f"/hit/{self.hits.key(0)}/submit", list(ids.items()) + list(fields.items())

    def link_submission(self) -> tuple[str, list[tuple[str, str]]]:
        """The valid submission of the link session in hand (a new participant's once the
        last one's answers were stored)."""
        if self.link is None:
            self.serial += 1
            worker = f"P{self.serial}"
            arrived = self.client.get(f"/p/small?participant={worker}")
            assert arrived.status_code == 303, arrived.get_data(as_text=True)
            page_url = arrived.headers["Location"]
            page = self.client.get(page_url)
            assert page.status_code == 200, page.get_data(as_text=True)
            ref = page_url.rsplit("/", 1)[1]
            html = page.get_data(as_text=True)
            self.link = (f"{page_url}/submit", page_fields(html, worker, ref))
        return self.link

    def run(self, rng: random.Random, posts: int, tally: Tally | None = None) -> Tally:
        """Post ``posts`` mutated submissions, half to the HIT, half to the link session."""
        tally = tally or Tally()
        headers = {"Accept": "application/json"}
        for n in range(posts):
            link = n % 2 == 1
            path, base = self.link_submission() if link else self.hit_submission()
            fields = mutate(rng, base)
            answer = self.client.post(path, data=MultiDict(fields), headers=headers)
            body = answer.json if answer.is_json else None
            tally.note(path, fields, answer.status_code, body)
            if link and isinstance(body, dict) and body.get("created"):
                self.link = None
        return tally


def read_many(
    rng: random.Random, posts: int, study: PlannedStudy, tally: Tally | None = None
) -> Tally:
    """What the task server does with ``posts`` mutated submissions of ``study``'s first HIT,
    without the HTTP around it: `read_posted`, the one reading of every submission, must
    return answers or the problems (400 / 422), never raise."""
    from tests.web.test_task_server import answers

    tally = tally or Tally()
    instrument, plan = study.instrument, study.plans[0]
    order = instrument.page_order(
        plan, study_name=study.name, worker_id="AFUZZ", hosting="external"
    )
    base = list(encode_answers(answers(study, 6.0, worker="AFUZZ")).items())
    opened = utcnow() - timedelta(hours=1)
    for _ in range(posts):
        fields = mutate(rng, base)
        try:
            read = read_posted(
                fields, instrument, plan, worker_order=order, opened=opened, now=utcnow()
            )
        except Exception as exc:  # what would be a server error
            tally.note("read_posted", fields, 500, repr(exc))
            continue
        if isinstance(read, AnswersRefused):
            tally.note("read_posted", fields, read.status, {"ok": False, "errors": read.problems})
        else:
            tally.note("read_posted", fields, 200, {"ok": True, "created": True})
    return tally


_KEYS = re.compile(r'<section class="card" data-key="([^"]*)"')


def page_fields(html: str, worker: str, assignment: str) -> list[tuple[str, str]]:
    """A valid submission of the page ``html`` (every item answered 5, shown a minute ago)."""
    start = utcnow().timestamp() - 60
    answers = [
        Answer(key, p, 5.0, shown_at=_at(start + p), answered_at=_at(start + p + 0.5))
        for p, key in enumerate(_KEYS.findall(html))
    ]
    ids = {"assignmentId": assignment, "workerId": worker, "pageToken": token_in_page(html)}
    return list(ids.items()) + list(encode_answers(answers).items())


def _at(seconds: float) -> datetime:
    return datetime.fromtimestamp(round(seconds, 3), UTC)
