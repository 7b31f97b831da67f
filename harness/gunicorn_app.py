"""gunicorn configured in code (no command line or config file is read), for every server
harness runs: the task server (`harness.web.server`) and the local platform services
(`harness.platform.mturk_local.server`).

The app is built inside each worker process, after the fork, so no database connection
crosses a fork; ``release(app)`` runs when a worker process ends (graceful stop, restart)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gunicorn.app.base import BaseApplication


class _Gunicorn(BaseApplication):  # type: ignore[misc]
    def __init__(
        self,
        build: Callable[[], Any],
        options: dict[str, Any],
        release: Callable[[Any], None],
    ) -> None:
        self._build = build
        self._options = options
        self._release_app = release
        self._app: Any = None
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)
        self.cfg.set("worker_exit", self._release)

    def load(self) -> Any:
        self._app = self._build()
        return self._app

    def _release(self, _server: Any, _worker: Any) -> None:
        if self._app is not None:
            self._release_app(self._app)


def run_gunicorn(
    build: Callable[[], Any], options: dict[str, Any], release: Callable[[Any], None]
) -> None:
    """Serve ``build()``'s app with gunicorn ``options`` until stopped."""
    _Gunicorn(build, options, release).run()
