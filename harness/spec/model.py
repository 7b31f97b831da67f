"""The task spec's structure: what a YAML task spec may say, with types and defaults.

Structure only (types, allowed keys, defaults); checks that need several fields or the item
files live in `harness.spec.checks`. Unknown keys are errors: a typo must not be ignored.
"""

from __future__ import annotations

import re
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from harness.hosting import Hosting
from harness.spec.durations import parse_duration

Seconds = Annotated[int, BeforeValidator(parse_duration)]


def _file_name(value: str) -> str:
    """A path the file system can be asked about: no NUL or control character, no name
    longer than file systems allow (a bad one would crash `Path.is_file`, not say why)."""
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValueError(f"a file path holds no control characters, got {value!r}")
    if len(value.encode("utf-8", "surrogatepass")) > 4096 or any(
        len(part.encode("utf-8", "surrogatepass")) > 255 for part in re.split(r"[/\\]", value)
    ):
        raise ValueError("a file path of at most 4096 bytes, each name at most 255")
    return value


FilePath = Annotated[str, AfterValidator(_file_name)]
Seed = Annotated[int, Field(ge=0, lt=2**32)]
PerHit = Annotated[int, Field(ge=1, le=100)]
Money = Annotated[Decimal, Field(le=Decimal(10**9))]  # negatives: checks.py says so


class Strict(BaseModel):
    """Base of every spec section: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class StudyType(StrEnum):
    """docs/methods.md section 2."""

    RATING = "rating"
    LIKERT = "likert"
    PAIR_COMPARISON = "pair_comparison"


class OrderPolicy(StrEnum):
    RANDOM_PER_WORKER = "random_per_worker"
    FIXED = "fixed"


class Action(StrEnum):
    """What screening does with a flagged worker (docs/methods.md section 4)."""

    REPORT = "report"
    BLOCK = "block"
    REJECT = "reject"
    REPLACE = "replace"
    REQUEST_RETURN = "request_return"  # ask the participant to return the work (Prolific)


class StudyInfo(Strict):
    name: Annotated[
        str, Field(min_length=1, max_length=80, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    ]
    description: str = ""


class ItemsSpec(Strict):
    """Where items come from: exactly one of ``csv``, ``dataset`` or ``generate``."""

    csv: FilePath | None = None  # path relative to the spec file
    # ws353: raters 1-13 on all 353 pairs (the instrument the WS353 study characterized);
    # ws353-16: all 16 raters of the distribution, only when named
    dataset: Literal["ws353", "ws353-16"] | None = None
    path: FilePath | None = (
        None  # your own copy (default: $HARNESS_WS353_DIR, else the bundled one)
    )
    generate: Literal["pairs_of_pairs"] | None = None
    source: ItemsSpec | None = None  # what a generator samples from
    n: Annotated[int, Field(ge=1, le=100_000)] | None = None  # how many items a generator makes
    seed: Seed = 0
    id_column: str = "item_id"
    display: list[str] | None = None  # columns shown to the worker (default per source)


class Example(Strict):
    """A worked example shown with the guidelines."""

    item: dict[str, str]
    answer: float | str
    explanation: str = ""


class GuidelinesSpec(Strict):
    """Exactly one of ``file`` (text or Markdown, relative to the spec), ``dataset`` or ``text``."""

    file: FilePath | None = None
    dataset: Literal["ws353", "ws353-16"] | None = None
    text: str | None = None
    examples: list[Example] = []


class LikertOption(Strict):
    value: float
    label: Annotated[str, Field(min_length=1)]
    color: Annotated[str, Field(pattern=r"^#[0-9A-Fa-f]{6}$")] | None = None


class Gate(Strict):
    """A yes/no question asked before the item's judgment; "no" makes the judgment a skip."""

    question: Annotated[str, Field(min_length=1)]


class ScaleSpec(Strict):
    """The answer scale. Rating: min, max, step; Likert: options; pair comparison: fixed."""

    min: float | None = None
    max: float | None = None
    step: Annotated[float, Field(gt=0)] = 1.0
    fractional: bool = False  # accept any value with up to `decimals` places, not just steps
    decimals: Annotated[int, Field(ge=0, le=6)] = 2
    labels: dict[float, str] = {}  # anchor labels, e.g. {0: "unrelated", 10: "identical"}
    skip: bool = False
    skip_label: str = "I don't know one of these words"
    options: list[LikertOption] | None = None
    order: Literal["as_listed", "reversed"] = "as_listed"
    gate: Gate | None = None
    halfway_reminder: bool = False


class IdenticalControl(Strict):
    per_hit: PerHit = 1
    seed: Seed = 0


class RepeatedControl(Strict):
    per_hit: PerHit = 1
    min_gap: Annotated[int, Field(ge=1, le=10_000)] = (
        3  # positions between the two showings, at least
    )


class GoldControl(Strict):
    column: str = "gold"  # item column holding the designated answer (empty: not gold)


class RandomPairsControl(Strict):
    per_hit: PerHit = 1
    seed: Seed = 0


class ControlGroups(Strict):
    column: str = "group"  # item column naming the item's control group (empty: none)


class ControlsSpec(Strict):
    """docs/methods.md section 3."""

    identical: IdenticalControl | None = None
    repeated: RepeatedControl | None = None
    gold: GoldControl | None = None
    random_pairs: RandomPairsControl | None = None
    control_groups: ControlGroups | None = None


class OrderSpec(Strict):
    policy: OrderPolicy = OrderPolicy.RANDOM_PER_WORKER
    seed: Seed = 0


class HitSpec(Strict):
    """What the platform shows about a HIT and how long things last."""

    title: Annotated[str, Field(min_length=1, max_length=128)]
    description: Annotated[str, Field(min_length=1, max_length=2000)]
    keywords: list[str] = []
    reward: Money
    assignment_duration: Seconds = 3600
    lifetime: Seconds = 7 * 86400
    auto_approval_delay: Seconds = 3 * 86400
    min_seconds: Annotated[float, Field(ge=0, le=366 * 86400)] | None = (
        None  # floor for the "quick" heuristic
    )
    max_bonus: Money | None = None  # the most one bonus may pay; default: 10 x the reward


class AdaptiveSpec(Strict):
    """Adaptive collection (docs/methods.md, "Adaptive collection"): every item first gets
    ``floor`` raters (the spec's ``raters_per_item``), then each new assignment is built from
    the items whose mean is least certain, until each item's 95% interval has at most
    ``half_width`` on either side, or it has ``cap`` raters (`harness.stats.sequential`)."""

    half_width: Annotated[float, Field(le=1e9)]
    floor: Annotated[int, Field(le=100_000)] = 5
    cap: Annotated[int, Field(le=100_000)] = 40


class QualificationsSpec(Strict):
    countries: list[Annotated[str, Field(pattern=r"^[A-Z]{2}$")]] = []
    min_approval_rate: Annotated[int, Field(ge=0, le=100)] | None = None
    min_approved_hits: Annotated[int, Field(ge=0, lt=2**31)] | None = None
    exclude_studies: list[str] = []


class HeuristicPolicy(Strict):
    threshold: float | None = None  # None: the default of docs/methods.md section 4
    action: Action = Action.REPORT
    # machine_agreement only: the systems compared with (``ws353``: the bundled ones; a file)
    references: list[Annotated[str, Field(min_length=1, max_length=500)]] = []


class PlatformSpec(Strict):
    """Where the study runs: a platform (``mturk`` unless the target says otherwise) and a
    target of it (e.g. MTurk's ``local``, ``sandbox``, ``production``). Both are checked
    against `harness.platform.registry` when the study is validated or launched; a target
    given to ``harness launch`` wins over the spec's."""

    name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$")] | None = None
    target: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$")] | None = None
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] = "USD"
    """The currency of every amount in the spec (``hit.reward``, ``budget``): the account's
    (a Prolific workspace's ``currency_code``); a launch refuses an account in another."""
    project: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    """Prolific: the workspace's project the study goes into (made when missing)."""


class BatchMapSpec(Strict):
    """How a requester website's batch-results file answers this spec (`harness import
    mturk-batch`, docs/archives.md): which column names each answered item and which holds
    its answer. Not part of the instrument: an import reads the instrument, it does not
    change it."""

    # the column holding the item's id, or {item column: Input column} naming the item by
    # what the HIT showed (e.g. {left: Input.word1, right: Input.word2})
    item: str | dict[str, str]
    # exactly one of: the answer's column (Answer.<field>, a crowd form's field too), or the
    # fields of a choice (a crowd-radio-group's buttons, true when chosen) -> each one's value
    value: str | None = None
    choices: dict[str, float] = {}
    per_row: Annotated[int, Field(ge=1, le=1000)] = 1  # items per row: {n} counts 1..per_row
    values: dict[str, float] = {}  # an answer's text -> its value (e.g. a Likert label)


class ImportsSpec(Strict):
    """How files from elsewhere map onto this spec's items and scale."""

    mturk_batch: BatchMapSpec | None = None


Markdown = Annotated[str, Field(min_length=1, max_length=20_000)]


class TaskSpec(Strict):
    """A whole task spec: one instrument and its launch settings."""

    study: StudyInfo
    type: StudyType
    items: ItemsSpec
    guidelines: GuidelinesSpec
    # shown before the first item; a participant agrees before answering (docs/task-pages.md)
    consent: Markdown | None = None
    # shown once the answers are submitted
    debrief: Markdown | None = None
    scale: ScaleSpec = ScaleSpec()
    controls: ControlsSpec = ControlsSpec()
    raters_per_item: Annotated[int, Field(le=100_000)]
    items_per_hit: Annotated[int, Field(le=100_000)]
    order: OrderSpec = OrderSpec()
    hosting: Hosting = Hosting.EXTERNAL
    language: str = "en"  # the participant pages' language (harness.i18n): en, de, he
    template: FilePath | None = None  # a template file relative to the spec; default: built-in
    hit: HitSpec
    qualifications: QualificationsSpec = QualificationsSpec()
    screening: dict[str, HeuristicPolicy] = {}
    budget: Money | None = None
    # the smallest acceptable alpha (docs/methods.md): q, the interval's warning and the
    # dashboard's rule; the default is harness.stats.reliability.DEFAULT_ALPHA_MIN, written
    # out here because importing the stats package loads pandas and scipy
    alpha_min: Annotated[float, Field(gt=0, le=1)] = 0.667
    adaptive: AdaptiveSpec | None = None
    platform: PlatformSpec = PlatformSpec()
    imports: ImportsSpec = ImportsSpec()
