"""Task pages: one HIT of an instrument as the HTML a worker sees, and its question documents.

The same templates serve both hosting modes. ``external``: harness serves the page in the
worker's order (`showing_order`) and the page posts the answers to harness, then completes the
assignment at ``{turkSubmitTo}/mturk/externalSubmit``. ``mturk``: a self-contained HTMLQuestion
whose script orders the items per worker from the ``workerId`` in its URL (see
`harness.render.client_order`) and whose form posts the answers straight to
``{turkSubmitTo}/mturk/externalSubmit``. Scripts and styles are inlined, so a page never
fetches anything from anywhere.
"""

from __future__ import annotations

import weakref
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from harness.consent import consent_hash
from harness.hosting import Hosting
from harness.i18n import N_, _, direction, format_number, gettext, ngettext, speaking
from harness.render.instrument import Instrument
from harness.render.markup import guidelines_html
from harness.render.plan import HitPlan, hit_key
from harness.render.question import external_question_xml, html_question_xml
from harness.render.script_text import script_text
from harness.resources import templates_dir
from harness.spec.model import OrderPolicy
from harness.spec.study_types import definition

# the words of pair comparisons' fixed scale (spec/study_types/pair_comparison.py, which
# imports nothing from harness but the spec model), shown translated in worked examples
_FIXED_WORDS = (
    N_("The words of the first pair are more similar to each other"),
    N_("The words of the second pair are more similar to each other"),
    N_("They are equally similar"),
)
PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"
"""The assignmentId MTurk gives a page that a worker previews before accepting."""
_BUTTONS_UP_TO = 11  # a whole-number scale with at most this many points gets one button each
_LONG_SIDE = 24  # sides longer than this, or of several words, are stacked (sentences)


def render_page(
    instrument: Instrument,
    plan: HitPlan,
    *,
    study_name: str,
    hosting: Hosting | str,
    worker_id: str | None = None,
    assignment_id: str | None = None,
    hit_id: str | None = None,
    submit_to: str | None = None,
    preview: bool = False,
    answers_url: str | None = None,
    page_token: str = "",
    csp_nonce: str = "",
    submit_origins: tuple[str, ...] = (),
) -> str:
    """The HTML of ``plan``'s HIT.

    ``external``: items in ``worker_id``'s order (plan order in preview or without a worker);
    the page posts answers to ``answers_url`` (default: ``<hit key>/submit`` relative to the
    page at ``/hit/<hit key>``) and then to ``{submit_to}/mturk/externalSubmit``. ``mturk``:
    plan order, re-ordered in the browser; the MTurk parameters are read from the page's URL,
    and its ``turkSubmitTo`` is used only when it is one of ``submit_origins`` (bare, as
    `harness.web.security.checked_submit_to` wants it).
    ``page_token`` is posted with the answers (`harness.web.tokens`); ``csp_nonce`` marks the
    page's own scripts for its content security policy.
    """
    hosting = Hosting(hosting)
    spec = instrument.spec
    with speaking(spec.language):
        parts = _parts(instrument)
    key = hit_key(study_name, plan.index)
    if hosting is Hosting.EXTERNAL and worker_id and not preview:
        order = instrument.page_order(
            plan, study_name=study_name, worker_id=worker_id, hosting=Hosting.EXTERNAL
        )
    else:
        order = plan.showings
    config = {
        "hosting": hosting.value,
        "type": spec.type.value,
        "preview": bool(preview),
        "hitKey": key,
        "assignmentId": assignment_id or "",
        "workerId": worker_id or "",
        "hitId": hit_id or "",
        "turkSubmitTo": submit_to or "",
        "submitOrigins": [o.rstrip("/").lower() for o in submit_origins],
        "answersUrl": answers_url or f"{key}/submit",
        # where a withdrawal is told (harness.web.withdrawals); none for a page MTurk hosts
        "withdrawUrl": ""
        if hosting is Hosting.MTURK
        else (answers_url or f"{key}/submit").removesuffix("submit") + "withdraw",
        "pageToken": page_token,
        "consent": parts.consent_hash,
        "halfwayReminder": spec.scale.halfway_reminder,
        "gate": spec.scale.gate is not None,
        "order": {
            "shuffle": hosting is Hosting.MTURK
            and spec.order.policy is OrderPolicy.RANDOM_PER_WORKER,
            "seed": spec.order.seed,
            "study": study_name,
            "minGap": instrument.min_gap,
        },
        "scale": parts.scale_config,
        "lang": spec.language,
        "decimal": format_number(0.5, spec.language)[1],
        "text": parts.script_text,
    }
    context = {
        "language": spec.language,
        "direction": direction(spec.language),
        "title": spec.hit.title,
        "study_type": spec.type.value,
        "hosting": hosting.value,
        "preview": bool(preview),
        "guidelines": parts.guidelines,
        "consent": parts.consent,
        "debrief": parts.debrief,
        "examples": parts.examples,
        "scale": parts.scale,
        "showings": [_showing(instrument, position, k) for position, k in enumerate(order)],
        "config": config,
        "csp_nonce": csp_nonce,
    }
    with speaking(spec.language):
        return parts.template.render(**context)


class _Parts:
    """What every page of an instrument shares, worked out on its first page: the guidelines,
    consent and debrief as HTML (empty when the spec has none), the examples, the scale (for
    the template and the page's script) and the loaded template."""

    def __init__(self, instrument: Instrument) -> None:
        self.guidelines = guidelines_html(instrument.guidelines)
        spec = instrument.spec
        self.consent = guidelines_html(spec.consent or "")
        self.consent_hash = "" if spec.consent is None else consent_hash(spec.consent)
        self.debrief = guidelines_html(spec.debrief or "")
        self.examples = _examples(instrument)
        self.scale = _scale_context(instrument)
        self.scale_config = _scale_config(instrument)
        self.script_text = script_text()
        environment = _environment(tuple(instrument.template_dirs))
        self.template = environment.get_template(instrument.template_name)


_PARTS: weakref.WeakKeyDictionary[Instrument, _Parts] = weakref.WeakKeyDictionary()


def _parts(instrument: Instrument) -> _Parts:
    """``instrument``'s shared page parts (an instrument never changes once built). A custom
    template is looked up again on every page, so an edit shows on the next one."""
    found = _PARTS.get(instrument)
    if found is None:
        found = _PARTS[instrument] = _Parts(instrument)
    elif found.template.environment.auto_reload:
        environment = found.template.environment
        found.template = environment.get_template(instrument.template_name)
    return found


def html_question(
    instrument: Instrument, plan: HitPlan, *, study_name: str, submit_origins: tuple[str, ...]
) -> str:
    """The HTMLQuestion XML of ``plan``'s HIT for ``mturk`` hosting (self-contained page),
    completing the assignment only at one of ``submit_origins`` (MTurk's worker site)."""
    page = render_page(
        instrument,
        plan,
        study_name=study_name,
        hosting=Hosting.MTURK,
        submit_origins=submit_origins,
    )
    return html_question_xml(page)


def external_question(public_url: str, *, study_name: str, plan: HitPlan) -> str:
    """The ExternalQuestion XML of ``plan``'s HIT, pointing at ``{public_url}/hit/<hit key>``."""
    return external_question_xml(f"{public_url.rstrip('/')}/hit/{hit_key(study_name, plan.index)}")


@lru_cache(maxsize=32)
def _environment(template_dirs: tuple[Path, ...]) -> Environment:
    """The templates of these folders, each parsed once; only a custom template's folder is
    watched for edits (the built-in templates do not change while harness runs). Their words
    are translated into the language in use (`harness.i18n.speaking`)."""
    environment = Environment(
        loader=FileSystemLoader([str(d) for d in template_dirs]),
        autoescape=True,
        undefined=StrictUndefined,
        auto_reload=template_dirs != (templates_dir(),),
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=["jinja2.ext.i18n"],
    )
    environment.policies["ext.i18n.trimmed"] = True
    environment.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]
    return environment


def _number(value: float) -> str:
    return f"{value:g}"


def _scale_config(instrument: Instrument) -> dict[str, Any]:
    scale = instrument.scale
    return {
        "min": scale.min,
        "max": scale.max,
        "step": scale.step,
        "fractional": scale.fractional,
        "decimals": scale.decimals,
        "skip": scale.skip,
        "options": [v for v, _, _ in scale.options],
        "hint": _hint(instrument),
        # the scale's words, for what a slider announces (its aria-valuetext)
        "anchors": [[v, label] for v, label in sorted(instrument.spec.scale.labels.items())],
    }


def _hint(instrument: Instrument) -> str:
    scale = instrument.scale
    if scale.options:
        return _("Choose one of the answers.")
    low, high = format_number(scale.min), format_number(scale.max)
    if scale.fractional:
        if scale.decimals == 0:
            return _("Enter a number from {min} to {max} (whole numbers only).").format(
                min=low, max=high
            )
        example = format_number(round(scale.min + 0.75 * scale.range, min(scale.decimals, 1)))
        text = _("Enter a number from {min} to {max}; decimals are allowed (e.g. {example}).")
        return text.format(min=low, max=high, example=example)
    if scale.step == 1 and float(scale.min).is_integer():
        return _("Enter a number from {min} to {max} (whole numbers only).").format(
            min=low, max=high
        )
    return _("Enter a number from {min} to {max} in steps of {step}.").format(
        min=low, max=high, step=format_number(scale.step)
    )


def _scale_context(instrument: Instrument) -> dict[str, Any]:
    scale = instrument.scale
    spec_scale = instrument.spec.scale
    points = round(scale.range / scale.step) + 1 if scale.step else 0
    buttons: list[str] = []
    if not scale.options and not scale.fractional and 2 <= points <= _BUTTONS_UP_TO:
        buttons = [_number(round(scale.min + i * scale.step, 9)) for i in range(points)]
    slider_step = 10**-scale.decimals if scale.fractional else scale.step
    return {
        "min": _number(scale.min),
        "max": _number(scale.max),
        "step": _number(scale.step),
        "slider_step": _number(slider_step),
        "fractional": scale.fractional,
        "buttons": buttons,
        "shown": {b: format_number(float(b)) for b in buttons},  # a value as people read it
        "shown_min": format_number(scale.min),
        "shown_max": format_number(scale.max),
        "anchors": [(_number(v), label) for v, label in sorted(spec_scale.labels.items())],
        "shown_anchors": [
            (format_number(v), label) for v, label in sorted(spec_scale.labels.items())
        ],
        "options": [
            {"value": _number(v), "label": label, "color": color, "ink": _ink(color)}
            for v, label, color in scale.options
        ],
        "skip": scale.skip,
        "skip_label": spec_scale.skip_label,
        "gate": spec_scale.gate.question if spec_scale.gate else "",
        "hint": _hint(instrument),
    }


def _ink(color: str | None) -> str:
    """Black or white, whichever reads better on ``color`` (WCAG relative luminance)."""
    if not color:
        return "#111111"
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return "#111111" if luminance > 0.18 else "#ffffff"


def _showing(instrument: Instrument, position: int, key: str) -> dict[str, Any]:
    sides = instrument.sides(key)
    return {
        "position": position,
        "key": key,
        "sides": sides,
        "long": _long(sides),
    }


def _long(sides: list[str]) -> bool:
    """Whether the sides read as sentences (stacked) rather than words (side by side)."""
    return any(len(s) > _LONG_SIDE or len(s.split()) > 2 for s in sides)


def _examples(instrument: Instrument) -> list[dict[str, Any]]:
    # a built-in scale's words are in the catalogs; a spec's own are its language already
    labels = {_number(v): gettext(label) for v, label, _c in instrument.scale.options}
    columns = instrument.display_columns
    kind = definition(instrument.spec.type)
    out = []
    for example in instrument.spec.guidelines.examples:
        sides = [example.item.get(c, "") for c in columns] or list(example.item.values())
        answer = example.answer
        text = _number(answer) if isinstance(answer, int | float) else str(answer)
        out.append(
            {
                "sides": sides,
                "long": _long(sides),
                "answer": kind.example_answer(
                    format_number(answer) if isinstance(answer, int | float) else text,
                    labels.get(text),
                ),
                "explanation": example.explanation,
            }
        )
    return out
