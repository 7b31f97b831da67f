"""`harness preview SPEC`: see (and try) one HIT of a spec as a worker would, before launching."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from harness.spec import load_spec


@click.command("preview")
@click.argument("spec", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--hit", "hit_index", default=0, show_default=True, help="Which HIT (0-based).")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the page to this HTML file instead of serving it.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5005, show_default=True, type=int, help="Port to listen on.")
def preview(spec: Path, hit_index: int, out: Path | None, host: str, port: int) -> None:
    """Serve one HIT of SPEC locally as a worker sees it, or write its page to a file.

    The server uses a throw-away SQLite store: answer the HIT, submit, and the console shows
    what was stored (positions, values, seconds per item). Open / for a fresh assignment each
    time, /preview for the page before accepting.
    """
    loaded = load_spec(spec)  # a bad spec is refused before the heavy imports

    from harness.web.preview import page_file, preview_app

    if out is not None:
        out.write_text(page_file(loaded, hit_index), encoding="utf-8")
        click.echo(f"{out}: HIT {hit_index} of {loaded.spec.study.name} ({loaded.spec.type.value})")
        return
    from werkzeug.serving import run_simple

    with tempfile.TemporaryDirectory(prefix="harness-preview-") as workdir:
        app = preview_app(loaded, hit_index, Path(workdir), echo=click.echo)
        click.echo(f"Serving HIT {hit_index} of {loaded.spec.study.name}: http://{host}:{port}/")
        click.echo(f"Before accepting: http://{host}:{port}/preview   (Ctrl-C stops)")
        try:
            run_simple(host, port, app, threaded=True, use_reloader=False)
        finally:
            app.extensions["harness"].close()
