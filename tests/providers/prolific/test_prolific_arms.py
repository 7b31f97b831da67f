"""A study with arms on Prolific (the local service), issue #18: one published study holds every
arm's places; participants arriving with Prolific's parameters are put into arms, kept there,
and shown their arm's page."""

from __future__ import annotations

import requests
from sqlmodel import select

from harness.store import make_engine, session_scope
from harness.store.arm_assignment import study_arms
from harness.store.arm_tables import WorkerArm
from tests.platform.factories import harness_cli
from tests.providers.link.test_link_arms import ARMS, LONG, SHORT
from tests.providers.link.test_link_platform import _client
from tests.providers.prolific.conftest import prolific_spec
from tests.providers.prolific.test_prolific_arrivals import joined

AUTH = {"Authorization": "Token local"}


def test_participants_from_prolific_are_kept_to_their_arm(prolific, tmp_path):
    spec = prolific_spec(tmp_path, items=4, **ARMS)
    db = f"sqlite:///{tmp_path / 'h.db'}"
    result = harness_cli(
        "launch",
        str(spec),
        "--target",
        "prolific-local",
        "--endpoint-url",
        prolific.url,
        "--db",
        db,
        "--public-url",
        "http://tasks.test",
    )
    assert result.exit_code == 0, result.output
    assert "  2 arms: long (2 HITs, instrument " in result.output
    (study,) = requests.get(f"{prolific.url}/api/v1/studies/", headers=AUTH, timeout=5).json()[
        "results"
    ]
    assert study["total_available_places"] == 8  # 2 arms x 2 HITs x 2 raters
    app, client = _client(db)
    entries = {pid: joined(prolific, pid) for pid in ("PA", "PB")}
    pages = {}
    for pid in ("PA", "PB", "PA"):  # PA comes back: the same session, slot and arm
        arrived = client.get(entries[pid])
        assert arrived.status_code == 303, arrived.get_data(as_text=True)
        page = client.get(arrived.headers["Location"]).get_data(as_text=True)
        pages.setdefault(pid, []).append(
            "long" if LONG in page else "short" if SHORT in page else "?"
        )
    app.extensions["harness"].close()
    assert len(set(pages["PA"])) == 1 and len(pages["PA"]) == 2
    assert {pages["PA"][0], pages["PB"][0]} == {"long", "short"}
    engine = make_engine(db)
    with session_scope(engine) as session:
        assert len(study_arms(session, 1)) == 2
        assert len(session.exec(select(WorkerArm)).all()) == 2
    engine.dispose()
