"""Render a report `Document` as Markdown; its plots are PNG files written beside it."""

from __future__ import annotations

from harness.report.document import Document, Plot, Table


def render_markdown(document: Document) -> str:
    """The report as Markdown; plot ``name`` is linked as ``name.png``."""
    lines = [f"# {document.title}", "", document.subtitle, ""]
    for section in document.sections:
        lines += [f"## {section.title}", "", f"> {section.meaning}", ""]
        for block in section.blocks:
            if isinstance(block, Table):
                lines += _table(block)
            elif isinstance(block, Plot):
                lines += [f"![{_cell(block.caption)}]({block.name}.png)", "", f"*{block.caption}*"]
            else:
                lines.append(block)
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _table(table: Table) -> list[str]:
    out = [f"*{table.caption}*", ""] if table.caption else []
    out += [
        "| " + " | ".join(_cell(h) or " " for h in table.headers) + " |",
        "| " + " | ".join("---" for _ in table.headers) + " |",
    ]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
