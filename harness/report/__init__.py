"""Reports of a characterization: one self-contained HTML file, Markdown with PNGs, and JSON.

`write_report` builds one `Document` (`build`) and renders it twice (`html`, `markdown`), so
the two reports say the same; `report_json` holds every figure with stable keys.
"""

from harness.report.build import build_document
from harness.report.document import Document, Plot, Section, Table
from harness.report.html import render_html
from harness.report.markdown import render_markdown
from harness.report.write import FILES, report_json, write_report

__all__ = [
    "FILES",
    "Document",
    "Plot",
    "Section",
    "Table",
    "build_document",
    "render_html",
    "render_markdown",
    "report_json",
    "write_report",
]
