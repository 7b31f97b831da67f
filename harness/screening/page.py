"""H12 hidden answers: answers given while the task page was hidden (a page signal).

The task page notes for each answer whether the page was hidden when the answer was given
(``answered_hidden``, docs/task-pages.md "Page signals"). A person answers the page they see;
a script fills a page in a background tab. The score is the share of the worker's answers
with the signal that were given hidden; flagged above the threshold (0.1). Without the signal
(an older page, a CSV without the column) nothing can be said.
"""

from __future__ import annotations

import pandas as pd

from harness.screening.context import ScreeningContext, answered, result, workers_of
from harness.spec.heuristics import HeuristicKey

SIGNAL = "answered_hidden"


def hidden_answers(judgments: pd.DataFrame, context: ScreeningContext) -> pd.DataFrame:
    """H12: share of the worker's answers given while the page was hidden."""
    workers = workers_of(judgments)
    if SIGNAL not in judgments.columns:
        empty = pd.Series(dtype=float)
        return result(workers, empty, empty, empty.astype(bool))
    rows = answered(judgments, context)
    signal = rows[SIGNAL]
    known = signal.notna()
    hidden = signal[known].astype(bool).astype(float).groupby(rows["worker_id"][known])
    share = hidden.mean()
    flag = share > context.threshold(HeuristicKey.HIDDEN_ANSWERS)
    return result(workers, share, hidden.size(), flag)
