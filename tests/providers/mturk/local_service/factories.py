"""Start the local MTurk service on loopback and talk to it as boto3 and as workers do."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import requests
from botocore.config import Config

from harness.providers.mturk.local_service import Settings, create_app
from tests.serving import ServedApp

EXTERNAL_QUESTION = (
    '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
    '2006-07-14/ExternalQuestion.xsd"><ExternalURL>{url}</ExternalURL>'
    "<FrameHeight>{height}</FrameHeight></ExternalQuestion>"
)
HTML_QUESTION = (
    '<HTMLQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/'
    '2011-11-11/HTMLQuestion.xsd"><HTMLContent><![CDATA[{html}]]></HTMLContent>'
    "<FrameHeight>0</FrameHeight></HTMLQuestion>"
)
CROWD_FORM = (
    '<!DOCTYPE html><script src="https://assets.crowd.aws/crowd-html-elements.js"></script>'
    '<crowd-form><crowd-slider name="similarity" min="0" max="10"></crowd-slider></crowd-form>'
)


def external_question(url: str = "https://example.org/task", height: int = 0) -> str:
    return EXTERNAL_QUESTION.format(url=url, height=height)


def html_question(html: str = CROWD_FORM) -> str:
    return HTML_QUESTION.format(html=html)


def hit_params(**overrides: Any) -> dict[str, Any]:
    params: dict[str, Any] = {
        "Title": "Rate word pairs",
        "Description": "How similar are these words?",
        "Reward": "0.50",
        "AssignmentDurationInSeconds": 600,
        "LifetimeInSeconds": 3600,
        "MaxAssignments": 3,
        "Question": external_question(),
    }
    params.update(overrides)
    return {k: v for k, v in params.items() if v is not None}


@dataclass
class LocalMTurk:
    """One running service (real Flask app, real HTTP server in a thread)."""

    db_path: Path
    settings: dict[str, Any] = field(default_factory=dict)
    served: ServedApp | None = None
    threaded: bool = False  # True: a browser's idle connection holds no other client up

    def start(self) -> LocalMTurk:
        self.app = create_app(Settings(db_path=self.db_path, **self.settings))
        self.served = ServedApp(self.app, threaded=self.threaded).start()
        self.session = requests.Session()
        return self

    def stop(self) -> None:
        assert self.served is not None
        self.served.stop()
        self.session.close()
        self.app.extensions["mturk_local"].close()

    @property
    def url(self) -> str:
        assert self.served is not None
        return self.served.url

    def client(self, **config: Any) -> Any:
        return boto3.client(
            "mturk",
            endpoint_url=self.url,
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="x",
            config=Config(**config) if config else None,
        )

    def raw(self, operation: str, body: str | bytes) -> requests.Response:
        return self.session.post(
            self.url + "/",
            data=body,
            headers={
                "X-Amz-Target": f"MTurkRequesterServiceV20170117.{operation}",
                "Content-Type": "application/x-amz-json-1.1",
            },
        )

    def control(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        r = self.session.post(f"{self.url}/_control/{path}", json=body or {})
        assert r.status_code == 200, r.text
        return r.json()

    def now(self) -> float:
        return float(self.session.get(f"{self.url}/_control/clock").json()["now"])

    def advance(self, seconds: float) -> None:
        self.control("clock", {"advance": seconds})

    def sent(self, seconds: float = 60.0) -> None:
        """Wait until the service has sent every notification it queued (its delivery thread
        sends after the request that queued one has been answered)."""
        deadline = time.monotonic() + seconds
        while self.session.get(f"{self.url}/_control/notifications").json()["undelivered"]:
            assert time.monotonic() < deadline, "the service did not send its notifications"
            time.sleep(0.05)

    def get(self, path: str, **params: Any) -> requests.Response:
        return self.session.get(self.url + path, params=params)

    def post(self, path: str, **data: Any) -> requests.Response:
        return self.session.post(self.url + path, data=data)

    def accept(self, hit_id: str, worker_id: str, **profile: Any) -> dict[str, Any]:
        r = self.post(f"/worker/hits/{hit_id}/accept", workerId=worker_id, **profile)
        assert r.status_code == 200, r.text
        return r.json()

    def submit(self, assignment_id: str, **fields: Any) -> None:
        r = self.post("/mturk/externalSubmit", assignmentId=assignment_id, **fields)
        assert r.status_code == 200, r.text

    def work(self, hit_id: str, worker_id: str, **fields: Any) -> str:
        """Accept and submit; return the assignment id."""
        assignment_id = self.accept(hit_id, worker_id)["AssignmentId"]
        self.submit(assignment_id, **(fields or {"answer": "7"}))
        return assignment_id
