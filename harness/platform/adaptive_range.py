"""What an adaptive study may collect and cost: from its floor of raters per item to its cap.

An adaptive study (a spec with ``adaptive:``) is launched with ``floor`` raters per item, and
then given HITs of one rater holding ``items_per_hit`` items still short, until every item
reaches the target or ``cap`` raters (`harness.platform.adaptive`). So it collects somewhere
between the floor's judgments and the cap's. The budget bounds the collection: the floor must
fit in it (a launch is refused otherwise), and past the floor a HIT is made only while the
budget covers it with what is committed (`harness.platform.adaptive.affordable_hits`), so a
budget below the cap's cost stops the collection when it is spent, with the items still short
left short. `validate`, `launch` and `plan` print the range and what the budget covers of it.

Pure: the platform's fees through `Platform.estimate`, no store, no connection.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from harness.hosting import Hosting
from harness.money import money
from harness.platform.contract import Platform
from harness.spec import LoadedSpec


@dataclass(frozen=True)
class Reach:
    """Everything collected when every item has ``raters`` raters."""

    raters: int
    judgments: int
    assignments: int
    cost: Decimal  # rewards and fees
    seconds: int  # the time the assignments are allowed, all of it


@dataclass(frozen=True)
class AdaptiveRange:
    """An adaptive study's floor and cap, and the price of one composed HIT."""

    floor: Reach
    cap: Reach
    composed_hits: int  # HITs of one rater past the floor that the cap may need
    per_hit: Decimal  # one composed HIT, fees included
    currency: str
    unit: str  # what the platform calls a HIT (a place on Prolific and a study link)
    pages_on_platform: bool = False  # hosting: mturk, no page of harness's to ask a worker

    def affordable(self, budget: Decimal) -> int:
        """Composed HITs ``budget`` covers after the floor."""
        if self.per_hit == 0:
            return self.composed_hits
        room = (budget - self.floor.cost) // self.per_hit
        return max(0, min(self.composed_hits, int(room)))

    def lines(self, budget: Decimal | None) -> list[str]:
        """The range, for a person: judgments, money with fees, rater time, and what
        ``budget`` covers of it."""
        c, lo, hi = self.currency, self.floor, self.cap
        out = [
            f"  adaptive: {lo.raters} to {hi.raters} raters per item: {lo.judgments:,} to "
            f"{hi.judgments:,} judgments in {lo.assignments:,} to {hi.assignments:,} assignments",
            f"  adaptive: {money(lo.cost, c)} to {money(hi.cost, c)} with fees; raters' time at "
            f"most {_hours(lo.seconds)} to {_hours(hi.seconds)} (all the time allowed)",
        ]
        if budget is None:
            out.append("  adaptive: no budget set: collection may go on to the cap's cost")
        elif budget < lo.cost:
            out.append(f"  adaptive: the budget {money(budget, c)} does not cover the floor")
        elif (affordable := self.affordable(budget)) < self.composed_hits:
            out.append(
                f"  adaptive: the budget {money(budget, c)} covers the floor and "
                f"{affordable:,} of the {self.composed_hits:,} {self.unit}s the cap may need; "
                "collection stops when the budget is spent, whatever items are short"
            )
        else:
            out.append(f"  adaptive: the budget {money(budget, c)} covers the cap")
        if self.pages_on_platform:
            out.append(
                "  warning: with hosting: mturk nothing keeps a worker from a later HIT holding "
                "items they rated: those ratings are paid, stored as repeats and not counted; "
                "with hosting: external the page asks them to return such a HIT"
            )
        return out


def adaptive_range(loaded: LoadedSpec, platform: Platform) -> AdaptiveRange | None:
    """The spec's range on ``platform``; None for a fixed study."""
    spec = loaded.spec
    adaptive = spec.adaptive
    if adaptive is None:
        return None
    reward, seconds = spec.hit.reward, spec.hit.assignment_duration
    floor_cost = platform.estimate(reward, loaded.n_hits, spec.raters_per_item)
    extra_values = loaded.n_content_items * max(adaptive.cap - spec.raters_per_item, 0)
    composed = math.ceil(extra_values / spec.items_per_hit)
    composed_cost = platform.estimate(reward, composed, 1)
    floor = Reach(
        spec.raters_per_item,
        loaded.judgments,
        floor_cost.assignments,
        floor_cost.total,
        floor_cost.assignments * seconds,
    )
    cap = Reach(
        adaptive.cap,
        loaded.judgments + extra_values,
        floor.assignments + composed,
        floor.cost + composed_cost.total,
        (floor.assignments + composed) * seconds,
    )
    per_hit = platform.estimate(reward, 1, 1).total
    currency = spec.platform.currency
    on_platform = spec.hosting is Hosting.MTURK
    return AdaptiveRange(floor, cap, composed, per_hit, currency, platform.unit_noun, on_platform)


def _hours(seconds: int) -> str:
    return f"{seconds / 3600:,.1f} h"
