"""The platform tests' fixtures (the local MTurk service, boto3 pointed at it, a task server,
a migrated SQLite store) for each platform's own tests."""

from tests.platform.conftest import client, http, mturk, sqlite_db, tasks

__all__ = ["client", "http", "mturk", "sqlite_db", "tasks"]
