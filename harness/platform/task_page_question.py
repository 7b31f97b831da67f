"""The question of a platform whose participants come to harness's task server (a study link,
Prolific): the address of the HIT's task page. Shared, so the two cannot drift apart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.hosting import Hosting
    from harness.render.plan import HitPlan


def task_page_question(
    platform: object,
    instrument: Any,
    plan: HitPlan,
    *,
    hosting: Hosting,
    public_url: str | None,
    study_name: str,
    target: str = "",
    endpoint_url: str | None = None,
) -> str:
    """``<public url>/hit/<study>-<index>``: what `Platform.question` gives on a platform that
    publishes no question document of its own (used as that method: ``platform`` is the
    platform; the instrument, hosting and target do not change the address)."""
    from harness.render.plan import hit_key  # render is heavy; a platform is imported early

    return f"{(public_url or '').rstrip('/')}/hit/{hit_key(study_name, plan.index)}"
