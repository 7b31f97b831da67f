"""Real processes for the tests that race or kill them, forked from one server process that
imported the asking test modules once (a new interpreter each would import harness again)."""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext

_CONTEXT = multiprocessing.get_context("forkserver")
_PRELOADED: list[str] = []


def forked(module: str) -> BaseContext:
    """The forkserver context, with ``module`` (a test module's ``__name__``, asked at its
    import, before any test starts the server) imported in the server."""
    if module not in _PRELOADED:
        _PRELOADED.append(module)
        _CONTEXT.set_forkserver_preload(list(_PRELOADED))
    return _CONTEXT
