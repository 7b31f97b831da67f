"""A message to a worker from their page on the dashboard: sent through the platform once per
(worker, subject, text), logged as ``worker.messaged``, and refused, with nothing sent, when
its text is empty or too long or the worker has no work in the study."""

from __future__ import annotations

from tests.web.dashboard.factories import STUDY, LiveStudy, events, flashed, logged_in

WORKER = "AW001"


def message(live: LiveStudy, **fields: str) -> str:
    """What the page says after a message to ``WORKER`` is posted from the study's page."""
    http, token = logged_in(live.url)
    answer = http.post(
        f"{live.url}/dashboard/study/{STUDY}/message",
        data={"csrf_token": token, "worker": WORKER, **fields},
    )
    assert answer.status_code == 200, answer.text
    return flashed(answer.text)


def inbox(live: LiveStudy) -> list[tuple[str, str]]:
    """What the local MTurk service delivered to ``WORKER``: (subject, text)."""
    found = live.mturk.get("/worker/messages", workerId=WORKER).json()["Messages"]
    return [(m["Subject"], m["MessageText"]) for m in found]


def test_a_message_posted_twice_from_the_workers_page_is_sent_once(live):
    live.crowd(rounds=1)
    http, _token = logged_in(live.url)
    page = http.get(f"{live.url}/dashboard/study/{STUDY}/worker/{WORKER}").text
    assert 'id="message-worker"' in page and 'name="subject"' in page
    here = f"/dashboard/study/{STUDY}/worker/{WORKER}"  # the form goes back to their page
    said = {"subject": "Your HIT", "text": " Thank you for the careful work. ", "back": here}

    assert message(live, **said) == f"Message sent to {WORKER}."
    assert message(live, **said) == f"This message was sent to {WORKER} already: not sent again."

    assert inbox(live) == [("Your HIT", "Thank you for the careful work.")]
    [logged] = events(live.db, "worker.messaged")
    assert (logged.payload["worker"], logged.payload["text"]) == (
        WORKER,
        "Thank you for the careful work.",
    )
    assert logged.payload["reason"] == "dashboard: a message by hand"
    feed = http.get(f"{live.url}/dashboard/study/{STUDY}").text
    assert f"<td>worker.messaged</td><td>worker {WORKER}</td>" in feed  # not its token
    again = message(live, subject="Your HIT", text="Another batch is up.")
    assert again == f"Message sent to {WORKER}."  # another text is another message
    assert len(inbox(live)) == 2


def test_an_empty_or_too_long_message_is_refused_and_nothing_is_sent(live):
    assert message(live, subject="Hi", text="   ") == (
        "Not done: message text: empty; write what the worker should read"
    )
    assert message(live, subject="Hi", text="x" * 4097) == (
        "Not done: message text: 4097 characters, over the platform's 4096"
    )
    assert message(live, subject="", text="Hello") == (
        "Not done: message subject: empty; the platform sends it as the title"
    )
    assert message(live, subject="Hi", text="Hello") == (  # nobody has worked yet
        f"Not done: study '{STUDY}' has no worker '{WORKER}'"
    )
    assert events(live.db, "worker.message.intent") == []
    assert inbox(live) == []
