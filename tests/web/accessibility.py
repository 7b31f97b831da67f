"""What a page owes participants who use a screen reader, a keyboard or a phone, asked of the
page open in a real Chromium: axe-core's serious and critical violations, horizontal scrolling,
and whether the focused control shows where the focus is."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

BLOCKING = ("serious", "critical")
"""axe-core's impacts a participant page must have none of."""


@cache
def _axe_script() -> str:
    """axe-core's axe.min.js, as the axe-core-python package ships it."""
    import axe_core_python

    return (Path(axe_core_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


def axe_violations(driver: Any) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now (hidden parts are
    not looked at), one line each: the rule, its impact, what it asks and where."""
    if not driver.execute_script("return typeof window.axe === 'object';"):
        driver.execute_script(_axe_script())
    result = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "axe.run(document, {resultTypes: ['violations']})"
        ".then(function (r) { done(r.violations); }, function (e) { done(String(e)); });"
    )
    assert isinstance(result, list), f"axe-core failed: {result}"
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']]}"
        for v in result
        if v["impact"] in BLOCKING
    ]


def overflow(driver: Any) -> int:
    """How many CSS pixels the page is wider than the window (0: no horizontal scrolling)."""
    return int(
        driver.execute_script(
            "var d = document.documentElement; return Math.max(0, d.scrollWidth - d.clientWidth);"
        )
    )


def problems(driver: Any, where: str) -> list[str]:
    """Everything `axe_violations` and `overflow` find on the page, each naming ``where``."""
    found = [f"{where}: {line}" for line in axe_violations(driver)]
    wider = overflow(driver)
    if wider:
        found.append(f"{where}: {wider} px wider than the window (scrolls sideways)")
    return found


FOCUS_SHOWN = """
var el = document.activeElement;
if (!el || el === document.body) { return "nothing focused"; }
var boxes = [el, el.nextElementSibling, el.closest("label")].filter(Boolean);
for (var i = 0; i < boxes.length; i++) {
  var s = getComputedStyle(boxes[i]);
  if (s.opacity === "0") { continue; }
  if (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2) { return ""; }
}
return (el.id || el.className || el.tagName) + " shows no focus outline";
"""
"""'' when the focused element, or the box drawn for it (a transparent radio's label or the span
after it), has an outline of at least 2 px; else what is focused without one."""


def focus_shown(driver: Any) -> str:
    return str(driver.execute_script(FOCUS_SHOWN))
