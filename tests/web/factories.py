"""Factories for task-server tests: a study in a store and the app in a real server thread
(the headless Chromium is `tests.browser`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa
from flask import Flask

from harness.platform.verification import Vouches
from harness.render.instrument import Instrument
from harness.render.plan import HitPlan, hit_key, plan_hits
from harness.spec import LoadedSpec, load_spec
from harness.store import create_study, session_scope
from harness.store.hits import add_planned_hits


@dataclass
class PlannedStudy:
    """A study of a loaded spec stored with its planned HITs."""

    loaded: LoadedSpec
    name: str
    plans: list[HitPlan]

    @property
    def instrument(self) -> Instrument:
        return Instrument.from_loaded(self.loaded)

    def key(self, index: int = 0) -> str:
        return hit_key(self.name, index)


def plan_study(engine: sa.Engine, spec: Path | LoadedSpec, name: str | None = None) -> PlannedStudy:
    """Freeze ``spec``'s instrument, create its study and record its planned HITs."""
    loaded = spec if isinstance(spec, LoadedSpec) else load_spec(spec)
    plans = plan_hits(loaded)
    with session_scope(engine) as session:
        study = create_study(session, loaded, name=name)
        add_planned_hits(session, study, [p.showings for p in plans], loaded.spec.raters_per_item)
        study_name = study.name
    return PlannedStudy(loaded, study_name, plans)


RATING_SPEC = """\
study: {name: words}
type: rating
items: {csv: items.csv, display: [word1, word2]}
guidelines:
  text: "Rate how similar the two words are, from 0 to 10."
  examples:
    - {item: {word1: tiger, word2: tiger}, answer: 10, explanation: A word is identical to itself.}
scale:
  {min: 0, max: 10, step: 1, fractional: true, decimals: 1, labels: {0: unrelated, 10: identical}}
controls:
  identical: {per_hit: 1, seed: 1}
  repeated: {per_hit: 1, min_gap: 2}
raters_per_item: 3
items_per_hit: 5
order: {policy: random_per_worker, seed: 7}
hit: {title: Rate word pairs, description: "How similar are two words?", reward: "0.10"}
"""
RATING_ITEMS = (
    "item_id,word1,word2\n"
    "w1,cup,mug\nw2,car,banana\nw3,<b>sun</b>,moon\nw4,king,queen\nw5,river,stream\n"
)

LIKERT_SPEC = """\
study: {name: claims}
type: likert
items: {csv: items.csv, display: [statement]}
guidelines:
  text: "Say how much you agree that the statement makes sense."
  examples:
    - {item: {statement: Cats are often kept as pets.}, answer: 5, explanation: Clearly sensible.}
scale:
  options:
    - {value: 5, label: I agree, color: "#1a9850"}
    - {value: 3, label: Not sure, color: "#d9d9d9"}
    - {value: 1, label: I disagree, color: "#d73027"}
  order: reversed
  gate: {question: "Is this statement understandable?"}
  halfway_reminder: true
  skip: true
  skip_label: I cannot judge this statement
controls: {gold: {column: gold}}
raters_per_item: 3
items_per_hit: 6
order: {policy: random_per_worker, seed: 3}
hosting: mturk
hit: {title: "Do these make sense?", description: Judge short statements., reward: "0.10"}
"""
LIKERT_ITEMS = (
    "item_id,statement,gold\n"
    "s1,Water is wet.,5\ns2,The chair sang loudly to the moon.,\ns3,Birds can fly.,\n"
    "s4,Seven tastes blue.,1\ns5,Bread is baked.,\ns6,Snow is warm and dry.,\n"
)

PAIR_SPEC = """\
study: {name: pairs}
type: pair_comparison
items: {csv: items.csv, display: [p1, p2, q1, q2]}
guidelines:
  text: "Which pair's words are more similar to each other?"
  examples:
    - {item: {p1: cup, p2: mug, q1: cup, q2: planet}, answer: 1, explanation: Cups and mugs.}
raters_per_item: 3
items_per_hit: 4
order: {policy: random_per_worker, seed: 11}
hit: {title: "Which pair is more similar?", description: Compare word pairs., reward: "0.10"}
"""
PAIR_ITEMS = (
    "item_id,p1,p2,q1,q2\n"
    "pp1,cup,mug,cup,planet\npp2,sun,moon,car,tree\npp3,king,queen,man,woman\n"
    "pp4,river,stream,book,paper\n"
)

SPECS = {"rating": (RATING_SPEC, RATING_ITEMS), "likert": (LIKERT_SPEC, LIKERT_ITEMS)}
SPECS["pair_comparison"] = (PAIR_SPEC, PAIR_ITEMS)


def write_task_spec(directory: Path, kind: str, **replace: str) -> Path:
    """One of the small specs above (rating, likert, pair_comparison) with its items CSV."""
    spec, items = SPECS[kind]
    for old, new in replace.items():
        spec = spec.replace(old, new)
    (directory / "items.csv").write_text(items, encoding="utf-8")
    path = directory / f"{kind}.yaml"
    path.write_text(spec, encoding="utf-8")
    return path


def PlatformVouches() -> Vouches:  # noqa: N802  (reads as the class it stands for)
    """A verifier that confirms every assignment: for tests of what the task server does with a
    submission that counts. Verification itself is tested against the local MTurk service
    (tests/web/test_trust.py)."""
    return Vouches("the test's platform vouches for every assignment")


def on_platform(
    engine: sa.Engine,
    study_name: str,
    target: str,
    endpoint: str | None = None,
    provider: str = "mturk",
) -> None:
    """Record ``study_name`` as launched on ``provider``'s ``target`` (the platform row launch
    writes), without posting anything."""
    from decimal import Decimal

    from sqlmodel import select

    from harness.store.models import Study, StudyPlatform

    with session_scope(engine) as session:
        study = session.exec(select(Study).where(Study.name == study_name)).one()
        study.target = target
        session.add(study)
        session.add(
            StudyPlatform(
                study_id=study.id,
                provider=provider,
                launch_id="test",
                endpoint_url=endpoint,
                hosting="external",
                spec_path="-",
                reward=Decimal("0.10"),
                assignments_per_hit=3,
            )
        )


def launched_link(directory: Path) -> Iterator[tuple[Flask, sa.Engine]]:
    """A study link with room for many participants (4 items, 2 to a HIT, 20 raters each), and
    its task server's app; for a module-scoped fixture to yield from."""
    from harness.store import make_engine
    from harness.web import create_app
    from tests.factories import migrated_sqlite
    from tests.platform.factories import harness_cli, small_spec

    db = migrated_sqlite(directory / "h.db")
    spec = small_spec(directory, items=4, per_hit=2, raters=20, hosting="external")
    launched = harness_cli(
        "launch", str(spec), "--target", "link", "--db", db, "--public-url", "http://t.test"
    )
    assert launched.exit_code == 0, launched.output
    app = create_app(db)
    engine = make_engine(db)
    yield app, engine
    app.extensions["harness"].close()
    engine.dispose()
