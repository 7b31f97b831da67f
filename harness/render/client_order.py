"""The order a self-contained (``mturk``-hosted) page shows a worker, computed as its script does.

A page the platform hosts cannot ask harness for `showing_order`, so its script orders the
items itself from the ``workerId`` in its URL: a 32-bit FNV-1a hash of
``"<seed>\\x1f<study>\\x1f<worker>"`` (UTF-8) seeds mulberry32, the HIT's items are
Fisher-Yates shuffled, and each second showing goes to a random slot at least ``min_gap``
positions from its first (first and last when the HIT is too short), the rule
`showing_order` uses. This module is the same computation in Python, so sync can check that a
submission's positions are the ones the page showed (`check_answers(worker_order=...)`); a
browser test runs both and compares.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.render.plan import HitPlan, place_repeats
from harness.spec.model import OrderPolicy

_MASK = 0xFFFFFFFF


def client_order(
    plan: HitPlan,
    *,
    study_name: str,
    worker_id: str,
    seed: int = 0,
    policy: OrderPolicy = OrderPolicy.RANDOM_PER_WORKER,
    min_gap: int = 3,
) -> list[str]:
    """Item key per position (0-based) as the ``mturk`` page's script orders it."""
    if policy is OrderPolicy.FIXED:
        return plan.showings
    rng = _mulberry32(_fnv1a(f"{seed}\x1f{study_name}\x1f{worker_id}"))
    order = list(plan.items)
    for i in range(len(order) - 1, 0, -1):
        j = int(rng() * (i + 1))
        order[i], order[j] = order[j], order[i]
    return place_repeats(order, plan.repeated, min_gap, lambda n: int(rng() * n))


def _fnv1a(text: str) -> int:
    h = 0x811C9DC5
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & _MASK
    return h


def _imul(a: int, b: int) -> int:
    return (a * b) & _MASK


def _mulberry32(state: int) -> Callable[[], float]:
    a = state & _MASK

    def draw() -> float:
        nonlocal a
        a = (a + 0x6D2B79F5) & _MASK
        t = a
        t = _imul(t ^ (t >> 15), t | 1)
        t = (t ^ ((t + _imul(t ^ (t >> 7), t | 61)) & _MASK)) & _MASK
        return ((t ^ (t >> 14)) & _MASK) / 4294967296

    return draw
