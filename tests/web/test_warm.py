"""A task-server worker process loads what screening, verification and acting need as it
starts, before it serves a request, and keeps one platform client per platform, shared by
verification, rechecks and the after-submission work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import select

from harness.platform.registry import connect
from harness.platform.verification import Verifier, shared_platform
from harness.store import session_scope
from harness.store.models import StudyPlatform
from harness.web.warm import connect_launched
from tests.factories import checkout_env
from tests.web.factories import on_platform, plan_study, write_task_spec

ROOT = Path(__file__).resolve().parents[2]
ENDPOINT = "http://127.0.0.1:9"  # never called: making a client asks nothing

WORKER_START = """
import json, sys
from harness.platform.verification import Verifier, shared_platform
from harness.web import create_app
from harness.web.warm import warm_up
heavy = ("scipy.stats", "harness.screening.live", "boto3", "botocore.client")
before = [m for m in heavy if m in sys.modules]
app = create_app(sys.argv[1], verifier=Verifier(shared_platform))  # as harness serve makes it
trust = app.extensions["harness.trust"]
warm_up(app.extensions["harness"].engine, trust.verifier)
after = [m for m in heavy if m in sys.modules]
from harness.platform.registry import _PROVIDERS
app.extensions["harness"].close()
print(json.dumps({"before": before, "after": after, "clients": len(_PROVIDERS)}))
"""


def _launched(engine, tmp_path):
    study = plan_study(engine, write_task_spec(tmp_path, "rating"))
    on_platform(engine, study.name, "local", ENDPOINT)
    return study


@pytest.mark.slow
def test_a_worker_process_imports_scipy_and_makes_its_client_before_serving(
    engine, database_url, tmp_path
):
    _launched(engine, tmp_path)
    env = checkout_env()
    done = subprocess.run(
        [sys.executable, "-c", WORKER_START, database_url],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert "scipy.stats" not in seen["before"]  # a fresh process: nothing loaded yet
    assert seen["after"] == ["scipy.stats", "harness.screening.live", "boto3", "botocore.client"]
    assert seen["clients"] == 1  # the launched study's platform, connected ahead of requests


def test_verification_and_after_submission_work_share_one_client_per_process(engine, tmp_path):
    _launched(engine, tmp_path)
    verifier = Verifier(shared_platform)  # as harness serve makes it
    assert connect_launched(engine, verifier) == 1
    with session_scope(engine) as session:
        where = session.exec(select(StudyPlatform)).one()
        made = verifier.provider(where, "local")
    assert made is connect("mturk", "local", ENDPOINT, shared=True)  # what screen_and_act uses
    assert made is Verifier(shared_platform).provider(where, "local")  # another app's too


def test_a_platform_that_cannot_be_connected_does_not_stop_the_worker(engine, tmp_path):
    _launched(engine, tmp_path)

    def refuse(where, target):
        raise RuntimeError("no route")

    assert connect_launched(engine, Verifier(refuse)) == 0


def test_a_forked_process_makes_its_own_client(monkeypatch):
    parents = connect("mturk", "local", ENDPOINT, shared=True)
    monkeypatch.setattr(os, "getpid", lambda: -1)  # as in a worker forked after it was made
    childs = connect("mturk", "local", ENDPOINT, shared=True)
    assert childs is not parents and childs.client is not parents.client
    assert connect("mturk", "local", ENDPOINT, shared=True) is childs


def test_a_process_reads_the_mturk_service_model_once(monkeypatch):
    from botocore.loaders import JSONFileLoader

    from harness.providers.mturk.client import make_client, preload

    preload()

    def read(*_args, **_kwargs):
        raise AssertionError("botocore's data was read again")

    monkeypatch.setattr(JSONFileLoader, "load_file", read)
    client = make_client("local", ENDPOINT)  # a session of its own, the data already read
    assert client.meta.service_model.service_name == "mturk"
