"""Where harness's own files are: built-in templates, Alembic migrations, the shipped task
specs and bundled data.

In a source checkout the templates and migrations are the top-level ``templates/`` and
``alembic/`` folders beside the package; in an installed wheel, setup.py ships them as
``harness/builtin_templates`` and ``harness/migrations``. These functions find either. The
bundled datasets live inside the package (``harness/datasets/data/``) in both cases.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _first_existing(*candidates: Path) -> Path:
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"none of {', '.join(map(str, candidates))} exists; reinstall harness")


def templates_dir() -> Path:
    """The folder of built-in Jinja2 templates."""
    return _first_existing(_PACKAGE / "builtin_templates", _PACKAGE.parent / "templates")


def migrations_dir() -> Path:
    """The Alembic script folder (env.py, versions/)."""
    return _first_existing(_PACKAGE / "migrations", _PACKAGE.parent / "alembic")


def project_task_specs() -> Path:
    """The folder of the shipped task specs (the WS353 reproduction and resolution studies)."""
    return _first_existing(_PACKAGE / "builtin_task_specs", _PACKAGE.parent / "task_specs")


def bundled_data_dir(name: str) -> Path:
    """The folder of one dataset shipped with harness (``ws353``, ``ws353-systems``)."""
    return _first_existing(_PACKAGE / "datasets" / "data" / name)
