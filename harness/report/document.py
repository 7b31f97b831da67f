"""The report's content, independent of its format: sections of text, tables and figures.

`harness.report.html` and `harness.report.markdown` render the same `Document`, so the HTML
and the Markdown report never say different things.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness import __version__

METHODS_CITATION = (
    f"the methods documentation of harness {__version__} (docs/methods.md in its source)"
)
"""How the report cites the definitions of its figures: by name and version, since report.html is
read far from the repository (a relative link would break)."""


@dataclass(frozen=True)
class Table:
    headers: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass(frozen=True)
class Plot:
    name: str  # file stem of the PNG beside report.md
    png: bytes
    caption: str
    half: bool = False  # narrow enough to sit beside another plot


Block = str | Table | Plot  # a str is a paragraph


@dataclass(frozen=True)
class Section:
    title: str
    meaning: str  # one sentence: what this means for someone comparing systems
    blocks: list[Block] = field(default_factory=list)
    anchor: str = ""


@dataclass(frozen=True)
class Document:
    title: str
    subtitle: str
    sections: list[Section]

    @property
    def plots(self) -> list[Plot]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Plot)]
