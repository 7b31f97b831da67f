"""Short pages the task server shows instead of a task: unknown HIT, wrong worker, done; and
the JSON answer refusing a post (`refusal`).

In the language in use (`harness.web.language`): callers pass their words translated."""

from __future__ import annotations

from flask import Response, jsonify
from jinja2 import Environment, StrictUndefined

from harness.i18n import _, current_language, direction

_ENV = Environment(autoescape=True, undefined=StrictUndefined)
_PAGE = _ENV.from_string(
    """<!doctype html>
<html lang="{{ language }}" dir="{{ direction }}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{{ title }}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;
line-height:1.5;color:#1b1f24}h1{font-size:1.4rem}button{font:inherit;font-weight:600;
padding:.6rem 1.2rem;border-radius:.5rem;border:2px solid #0b5cad;background:#0b5cad;
color:#fff;cursor:pointer}</style></head>
<body><h1>{{ title }}</h1><p>{{ text }}</p>
{% if link %}<p><a id="next" href="{{ link }}" target="_top" rel="noopener">{{ link_text }}</a></p>
{% endif %}
{% if complete_url %}<form method="post" action="{{ complete_url }}">
<input type="hidden" name="assignmentId" value="{{ assignment_id }}">
<input type="hidden" name="harness" value="already-recorded">
<button type="submit">{{ complete_text }}</button></form>{% endif %}
</body></html>"""
)


def message_page(
    title: str,
    text: str,
    status: int,
    *,
    complete_url: str = "",
    assignment_id: str = "",
    link: str = "",
    link_text: str = "",
) -> Response:
    """A plain page with a title and what to do; optionally a button completing the HIT, or
    a link to where to go (opened in the whole window, not the HIT's frame)."""
    language = current_language()
    html = _PAGE.render(
        language=language,
        direction=direction(language),
        complete_text=_("Complete the HIT on MTurk"),
        title=title,
        text=text,
        complete_url=complete_url,
        assignment_id=assignment_id,
        link=link,
        link_text=link_text,
    )
    return Response(html, status, mimetype="text/html")


def refusal(status: int, *errors: str) -> tuple[Response, int]:
    """A post refused: ``{"ok": false, "errors": [...]}`` with ``status``."""
    return jsonify(ok=False, errors=list(errors)), status
