"""PostgreSQL databases for tests, made and reset beside the tests instead of in their way.

Copying the migrated template (CREATE DATABASE ... TEMPLATE) and dropping a test's database
each wait on the server's disk (a checkpoint, fsync) for a second or more on a busy machine:
done for every test, that waiting is most of a short PostgreSQL test. Here one background
thread per test process makes the next database for a template while a test runs, and takes
back each finished one after the test has ended. A finished copy of a template that holds no
rows (the migrated template) is emptied instead of dropped (TRUNCATE, a fraction of the
cost) and kept under a new name for a later test, but only if it is then the same as a fresh
copy: the same tables, columns, constraints, indexes, types, functions and sequences, and the
same migration version (`_state`); anything else is dropped. A test is handed a database
nobody is connected to, under a name no earlier test knew: a thread a test left behind fails
as on a dropped database. `finish()` at the session's end drops every database made here and
waits for each drop."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import Future, ThreadPoolExecutor

from tests.factories import POSTGRES_ADMIN_URL, create_postgres_database, drop_postgres_database

_WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="postgres-copies")
_NEXT: dict[str, Future[str]] = {}  # per template URL, the database being made for the next test
_EMPTIED: dict[str, list[str]] = {}  # per template URL, used copies emptied for another test
_PRISTINE: dict[str, str | None] = {}  # per template URL, a fresh copy's `_state` (None: has rows)
_SOURCE: dict[str, str] = {}  # a handed-out copy's URL -> its template's URL
_WORK: list[Future[None]] = []  # copies taken back (emptied or dropped)
_LOCK = threading.Lock()

_STATE = """
SELECT md5(coalesce(string_agg(line, E'\\n' ORDER BY line), '')) FROM (
  SELECT concat_ws(' ', 'namespace', nspname) AS line FROM pg_namespace
  UNION ALL SELECT concat_ws(' ', 'extension', extname, extversion) FROM pg_extension
  UNION ALL SELECT concat_ws(' ', 'relation', c.oid::regclass, c.relkind, c.relpersistence)
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  UNION ALL SELECT concat_ws(' ', 'column', a.attrelid::regclass, a.attname,
      format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid))
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
      AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL SELECT concat_ws(' ', 'constraint', conrelid::regclass, conname,
      pg_get_constraintdef(oid)) FROM pg_constraint
      WHERE connamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  UNION ALL SELECT concat_ws(' ', 'index', indexrelid::regclass, pg_get_indexdef(indexrelid))
      FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
      WHERE c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'pg_toast'::regnamespace)
  UNION ALL SELECT concat_ws(' ', 'type', t.oid::regtype, t.typtype) FROM pg_type t
      JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  UNION ALL SELECT concat_ws(' ', 'enum', enumtypid::regtype, enumlabel, enumsortorder)
      FROM pg_enum
  UNION ALL SELECT concat_ws(' ', 'function', p.oid::regprocedure, md5(p.prosrc))
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL SELECT concat_ws(' ', 'trigger', tgrelid::regclass, tgname, tgenabled)
      FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT concat_ws(' ', 'rule', schemaname, tablename, rulename) FROM pg_rules
      WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL SELECT concat_ws(' ', 'policy', schemaname, tablename, policyname) FROM pg_policies
  UNION ALL SELECT concat_ws(' ', 'sequence', schemaname, sequencename,
      coalesce(last_value::text, 'unused')) FROM pg_sequences
  UNION ALL SELECT concat_ws(' ', 'large objects', count(*)) FROM pg_largeobject_metadata
  UNION ALL SELECT concat_ws(' ', 'prepared', count(*)) FROM pg_prepared_xacts
      WHERE database = current_database()
  UNION ALL SELECT concat_ws(' ', 'setting', array_to_string(setconfig, ','))
      FROM pg_db_role_setting
      WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
) lines
"""
"""A fingerprint of everything in a database but its tables' rows."""

_TABLES = """
SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
AND n.nspname NOT LIKE 'pg_temp%' AND n.nspname NOT LIKE 'pg_toast%'
"""
_KEPT = "alembic_version"  # the one table whose rows a fresh copy has: the migration version


def fresh_copy(template: str) -> str:
    """A database for one test, the same as a new copy of ``template`` (a URL nobody connects
    to): the one readied in the background since the last call when there is one; the next is
    started."""
    with _LOCK:
        ready = _NEXT.pop(template, None)
        _NEXT[template] = _WORKER.submit(_next_database, template)
    url = ready.result() if ready is not None else _next_database(template)
    with _LOCK:
        _SOURCE[url] = template
    return url


def drop_later(url: str) -> None:
    """Take back the database at ``url`` in the background (connections left open are
    closed): emptied for another test if it is a copy of a template without rows and holds
    nothing else, else dropped."""
    with _LOCK:
        template = _SOURCE.pop(url, None)
        _WORK.append(_WORKER.submit(_take_back, url, template))


def taken_back() -> None:
    """Wait until every database given back (`drop_later`) has been emptied or dropped
    (re-raising the first that failed)."""
    with _LOCK:
        work = list(_WORK)
        _WORK.clear()
    for done in work:
        done.result()


def finish() -> None:
    """Wait for the databases being taken back, then drop every one made here and not handed
    out (side by side: a drop waits on the server's disk more than it works)."""
    with _LOCK:
        unused = list(_NEXT.values())
        _NEXT.clear()
    taken_back()
    left = [copy.result() for copy in unused]
    with _LOCK:
        left += [url for urls in _EMPTIED.values() for url in urls]
        _EMPTIED.clear()
    with ThreadPoolExecutor(max_workers=4) as drops:
        list(drops.map(drop_postgres_database, left))


def _next_database(template: str) -> str:
    """An emptied copy of ``template`` when there is one, else a new copy (whose fingerprint
    is taken the first time: what an emptied one must match)."""
    with _LOCK:
        emptied = _EMPTIED.get(template)
        if emptied:
            return emptied.pop()
    url = create_postgres_database(template)
    if template not in _PRISTINE:
        _PRISTINE[template] = _state(url)
    return url


def _take_back(url: str, template: str | None) -> None:
    """Empty the copy at ``url`` of ``template`` and keep it, renamed, for another test; drop
    it when it is not a copy of a template without rows, or when emptied it differs from a
    fresh copy."""
    pristine = _PRISTINE.get(template) if template is not None else None
    renamed = _renamed(url) if pristine is not None and _emptied(url, pristine) else None
    if renamed is None:
        drop_postgres_database(url)
        return
    with _LOCK:
        _EMPTIED.setdefault(template, []).append(renamed)


def _disconnect_all(name: str) -> None:
    import sqlalchemy as sa

    admin = sa.create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(
                sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
    finally:
        admin.dispose()


def _state(url: str) -> str | None:
    """`_STATE` of the database at ``url`` and its migration version; None if it has none, or
    if another table holds rows."""
    import sqlalchemy as sa

    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            tables = set(connection.execute(sa.text(_TABLES)).scalars())
            if _KEPT not in tables:
                return None
            for table in tables - {_KEPT}:
                if connection.execute(sa.text(f"SELECT EXISTS (SELECT FROM {table})")).scalar():
                    return None
            kept = connection.execute(sa.text(f"SELECT version_num FROM {_KEPT}")).scalars()
            state = connection.execute(sa.text(_STATE)).scalar_one()
            return f"{state} {sorted(kept)}"
    finally:
        engine.dispose()


def _emptied(url: str, pristine: str) -> bool:
    """Close every connection to the database at ``url``, empty its tables but the migration
    version's (their sequences restarted); whether it is then the same as a fresh copy."""
    import sqlalchemy as sa

    _disconnect_all(url.rsplit("/", 1)[1])
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(sa.text("SET LOCAL lock_timeout = '60s'"))
            tables = [t for t in connection.execute(sa.text(_TABLES)).scalars() if t != _KEPT]
            if tables:
                connection.execute(sa.text(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY"))
    except sa.exc.DBAPIError:  # a lock held by a connection that came back: drop it instead
        return False
    finally:
        engine.dispose()
    return _state(url) == pristine


def _renamed(url: str) -> str | None:
    """The database at ``url`` under a new name (None if someone connected to it meanwhile)."""
    import sqlalchemy as sa

    old = url.rsplit("/", 1)[1]
    new = f"harness_t_{uuid.uuid4().hex[:10]}"
    _disconnect_all(old)
    admin = sa.create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(sa.text(f'ALTER DATABASE "{old}" RENAME TO "{new}"'))
    except sa.exc.DBAPIError:
        return None
    finally:
        admin.dispose()
    return url.rsplit("/", 1)[0] + f"/{new}"
