"""Write a characterization's three report files: report.html, report.md (+ PNGs), report.json."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from harness.characterize import Characterization
from harness.report.build import build_document
from harness.report.html import render_html
from harness.report.markdown import render_markdown

FILES = ("report.html", "report.md", "report.json")


def report_json(c: Characterization) -> dict[str, Any]:
    """Every figure with stable keys (non-finite numbers become null)."""
    return {key: _finite(value) for key, value in c.to_dict().items()}


def write_report(c: Characterization, out: str | Path) -> list[Path]:
    """Write the report files into ``out`` (created if needed); returns the paths written."""
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    document = build_document(c)
    written = []
    html = directory / "report.html"
    html.write_text(render_html(document), encoding="utf-8")
    written.append(html)
    markdown = directory / "report.md"
    markdown.write_text(render_markdown(document), encoding="utf-8")
    written.append(markdown)
    for plot in document.plots:
        path = directory / f"{plot.name}.png"
        path.write_bytes(plot.png)
        written.append(path)
    data = directory / "report.json"
    data.write_text(json.dumps(report_json(c), indent=2) + "\n", encoding="utf-8")
    written.append(data)
    return written


def _finite(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj
