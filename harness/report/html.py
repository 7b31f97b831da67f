"""Render a report `Document` as one self-contained HTML file (plots as base64 PNG data URIs).

No external resources (no fonts, scripts or stylesheets from elsewhere), and a print style
sheet so the report reads on paper: tables never split a row, plots never split. On a phone
(a viewport declared, narrow screens below 40rem) plots take the whole width and a wide table
scrolls sideways inside its own box instead of widening the page.
"""

from __future__ import annotations

import base64
from html import escape

from harness.report.document import Document, Plot, Section, Table

CSS = """
body { font-family: Georgia, 'Times New Roman', serif; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; color: #1a1a1a; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; border-bottom: 1px solid #bbb; margin-top: 2rem; }
p.subtitle { color: #555; margin-top: 0; }
p.meaning { background: #f3f6fa; border-left: 4px solid #1f5f99; padding: 0.5rem 0.8rem; }
table { border-collapse: collapse; margin: 0.8rem 0; font-size: 0.85rem; width: 100%; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.45rem; text-align: left;
         vertical-align: top; }
th { background: #eef1f4; }
p.caption { text-align: left; color: #333; font-size: 0.85rem; font-style: italic;
            margin: 0.8rem 0 0.2rem; }
p.caption + div.table table { margin-top: 0; }
figure { margin: 1rem 0; }
figure img { max-width: 100%; height: auto; }
figure.half { display: inline-block; width: 48%; vertical-align: top; margin-right: 1%; }
figcaption { color: #555; font-size: 0.8rem; }
nav ol { columns: 2; font-size: 0.9rem; }
div.table { overflow-x: auto; -webkit-overflow-scrolling: touch; }
@media (max-width: 40rem) {
  body { margin: 1rem auto; padding: 0 0.6rem; }
  h1 { font-size: 1.3rem; }
  nav ol { columns: 1; }
  figure.half { display: block; width: 100%; margin-right: 0; }
  table { font-size: 0.78rem; width: auto; min-width: 100%; }
}
@media print {
  div.table { overflow: visible; }
  body { max-width: none; margin: 0; font-size: 10pt; }
  nav { display: none; }
  h2 { page-break-after: avoid; }
  tr, figure, p.meaning { page-break-inside: avoid; }
  p.meaning { border-left: 2px solid #000; background: none; }
}
"""


def render_html(document: Document) -> str:
    """The whole report as one HTML page."""
    nav = "".join(
        f'<li><a href="#{escape(s.anchor)}">{escape(s.title)}</a></li>' for s in document.sections
    )
    body = "\n".join(_section(s) for s in document.sections)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(document.title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f"<h1>{escape(document.title)}</h1>\n"
        f'<p class="subtitle">{escape(document.subtitle)}</p>\n'
        f"<nav><ol>{nav}</ol></nav>\n{body}\n</body>\n</html>\n"
    )


def _section(section: Section) -> str:
    parts = [f'<section id="{escape(section.anchor)}">', f"<h2>{escape(section.title)}</h2>"]
    parts.append(f'<p class="meaning">{escape(section.meaning)}</p>')
    for block in section.blocks:
        if isinstance(block, Table):
            parts.append(_table(block))
        elif isinstance(block, Plot):
            parts.append(_plot(block))
        else:
            parts.append(f"<p>{escape(block)}</p>")
    parts.append("</section>")
    return "\n".join(parts)


def _table(table: Table) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in table.headers)
    rows = "".join(
        "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in table.rows
    )
    # the caption stays outside the box a wide table scrolls in, so it wraps to the screen
    caption = f'<p class="caption">{escape(table.caption)}</p>' if table.caption else ""
    return (
        f'{caption}<div class="table"><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{rows}</tbody></table></div>"
    )


def _plot(plot: Plot) -> str:
    data = base64.b64encode(plot.png).decode("ascii")
    kind = ' class="half"' if plot.half else ""
    return (
        f'<figure{kind}><img src="data:image/png;base64,{data}" alt="{escape(plot.caption)}">'
        f"<figcaption>{escape(plot.caption)}</figcaption></figure>"
    )
