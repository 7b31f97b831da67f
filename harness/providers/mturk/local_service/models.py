"""The service's SQLite tables (SQLAlchemy core). Money is stored as decimal strings.

Enumerations (HIT review state, assignment status) are stored as their MTurk names. Assignment
status has three internal states besides MTurk's Submitted/Approved/Rejected: Accepted (being
worked on), Returned and Abandoned; the requester API never shows those.

Counts (a HIT's assignments by state, a worker's approved and rejected work) are not stored:
they are counted from the assignments when read. `schema.upgrade` brings a file made by an
older version up to these tables.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    text,
)

metadata = MetaData()

meta = Table(
    "meta",
    metadata,
    Column("key", String, primary_key=True),
    Column("value", String, nullable=False),
)

hit_types = Table(
    "hit_types",
    metadata,
    Column("id", String, primary_key=True),
    Column("title", Text, nullable=False),
    Column("description", Text, nullable=False),
    Column("keywords", Text),
    Column("reward", String, nullable=False),
    Column("assignment_duration", Integer, nullable=False),
    Column("auto_approval_delay", Integer, nullable=False),
    Column("qualification_requirements", Text, nullable=False),  # JSON list, as sent
    Column("created", Float, nullable=False),
    Column("notification", Text),  # JSON NotificationSpecification
    Column("notification_active", Boolean, nullable=False, default=False),
    # Set when a qualification type it requires is deleted: no new HITs of this type.
    Column("disposed", Boolean, nullable=False, default=False, server_default="0"),
)

hits = Table(
    "hits",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("id", String, unique=True, nullable=False),
    Column("hit_type_id", String, ForeignKey("hit_types.id"), nullable=False),
    Column("question", Text, nullable=False),
    Column("question_kind", String, nullable=False),  # ExternalQuestion, HTMLQuestion, ...
    Column("created", Float, nullable=False),
    Column("expiration", Float, nullable=False),
    Column("max_assignments", Integer, nullable=False),
    Column("annotation", Text),
    Column("reward", String, nullable=False),
    Column("fee", String, nullable=False),  # fee per assignment, charged at creation
    Column("review_status", String, nullable=False, default="NotReviewed"),
    Column("reviewing", Boolean, nullable=False, default=False),
    Column("disposed", Boolean, nullable=False, default=False),
    Column("expired_notified", Boolean, nullable=False, default=False),
    Column("reviewable_notified", Boolean, nullable=False, default=False),
)

assignments = Table(
    "assignments",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("id", String, unique=True, nullable=False),
    Column("hit_id", String, ForeignKey("hits.id"), nullable=False, index=True),
    Column("worker_id", String, nullable=False, index=True),
    Column("status", String, nullable=False),
    Column("accept_time", Float, nullable=False),
    Column("deadline", Float, nullable=False),
    Column("submit_time", Float),
    Column("auto_approval_time", Float),
    Column("approval_time", Float),
    Column("rejection_time", Float),
    Column("answer", Text),
    Column("requester_feedback", Text),
    # One live assignment per worker and HIT (returned and abandoned ones do not count).
    Index(
        "ux_assignments_live",
        "worker_id",
        "hit_id",
        unique=True,
        sqlite_where=text("status IN ('Accepted', 'Submitted', 'Approved', 'Rejected')"),
    ),
)

qualification_types = Table(
    "qualification_types",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("id", String, unique=True, nullable=False),
    Column("name", Text, unique=True, nullable=False),
    Column("description", Text, nullable=False),
    Column("keywords", Text),
    Column("status", String, nullable=False),
    Column("retry_delay", Integer),
    Column("test", Text),
    Column("answer_key", Text),
    Column("test_duration", Integer),
    Column("auto_granted", Boolean, nullable=False, default=False),
    Column("auto_granted_value", Integer),
    Column("created", Float, nullable=False),
)

qualifications = Table(
    "qualifications",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("type_id", String, nullable=False, index=True),
    Column("worker_id", String, nullable=False),
    Column("integer_value", Integer),
    Column("status", String, nullable=False),  # Granted or Revoked
    Column("grant_time", Float, nullable=False),
)

# A worker's request for a qualification (MTurk's QualificationRequest). Status: Started (the
# test is being taken), Submitted (waiting for the requester), Approved, Rejected.
qualification_requests = Table(
    "qualification_requests",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("id", String, unique=True, nullable=False),
    Column("type_id", String, nullable=False),
    Column("worker_id", String, nullable=False),
    Column("status", String, nullable=False),
    Column("test", Text),  # the test as it was when the worker asked for it
    Column("answer", Text),  # QuestionFormAnswers XML
    Column("created", Float, nullable=False),
    Column("deadline", Float),  # answers must come before this (TestDurationInSeconds)
    Column("submit_time", Float),
    Column("reason", Text),
)

workers = Table(
    "workers",
    metadata,
    Column("id", String, primary_key=True),
    Column("country", String),
    Column("subdivision", String),
    Column("percent_approved", Integer),  # None: computed from this service's history
    Column("number_approved", Integer),  # None: computed from this service's history
    Column("master", Boolean),  # holds Masters (stated on the worker side; None: no)
    Column("adult", Boolean),  # holds Worker_Adult (stated on the worker side; None: no)
)

worker_blocks = Table(
    "worker_blocks",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("worker_id", String, unique=True, nullable=False),
    Column("reason", Text, nullable=False),
)

worker_messages = Table(
    "worker_messages",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("worker_id", String, nullable=False, index=True),
    Column("subject", Text, nullable=False),
    Column("text", Text, nullable=False),
    Column("created", Float, nullable=False),
)

bonuses = Table(
    "bonuses",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("worker_id", String, nullable=False),
    Column("assignment_id", String, nullable=False, index=True),
    Column("hit_id", String, nullable=False, index=True),
    Column("amount", String, nullable=False),
    Column("reason", Text, nullable=False),
    Column("grant_time", Float, nullable=False),
)

request_tokens = Table(
    "request_tokens",
    metadata,
    Column("kind", String, primary_key=True),  # "hit", "bonus", "extend"
    Column("token", String, primary_key=True),
    Column("created", Float, nullable=False),
    Column("result", String, nullable=False),
)

outbox = Table(
    "outbox",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("destination", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("delivered", Boolean, nullable=False, default=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("next_try", Float, nullable=False, default=0.0),  # by the service's clock
    Column("gave_up", Boolean, nullable=False, default=False),
    Column("last_error", Text, nullable=True),
)
