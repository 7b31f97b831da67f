"""Find a spec's page template and every template file it uses (for the instrument hash)."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, FileSystemLoader, TemplateNotFound, meta

from harness.resources import templates_dir
from harness.spec.model import StudyType
from harness.spec.study_types import definition


def default_template(kind: StudyType) -> str:
    """The built-in page template of study type ``kind``."""
    return definition(kind).template


def template_files(name: str, search_path: list[Path]) -> dict[str, str]:
    """The named template's text and, recursively, every template it extends or includes.

    Raises TemplateNotFound naming the missing file.
    """
    env = Environment(
        loader=FileSystemLoader([str(p) for p in search_path]),
        autoescape=True,
        extensions=["jinja2.ext.i18n"],  # pages translate their words (harness.i18n)
    )
    found: dict[str, str] = {}
    pending = [name]
    while pending:
        current = pending.pop()
        if current in found:
            continue
        assert env.loader is not None
        text, _, _ = env.loader.get_source(env, current)
        found[current] = text
        pending += [r for r in meta.find_referenced_templates(env.parse(text)) if r]
    return found


def template_search_path(spec_dir: Path, custom: str | None) -> list[Path]:
    """A custom template's folder first (so it can shadow built-ins), then the built-ins."""
    builtin = templates_dir()
    if custom is None:
        return [builtin]
    return [(spec_dir / custom).parent, builtin]


__all__ = ["TemplateNotFound", "default_template", "template_files", "template_search_path"]
