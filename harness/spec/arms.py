"""Arms: named variants of one instrument, each a full spec of its own (issue #18).

A spec with an ``arms:`` section declares a study that compares task designs. Each arm names
what it changes in the base spec (the spec without ``arms:``)::

    arms:
      ascending: {}                       # the base spec as written
      descending: {scale: {order: reversed}}
      plain:
        scale: {options: [...]}           # the same options without colours

An arm may change only the design of the task: ``guidelines`` and ``template`` (replaced
whole), ``items_per_hit``, and keys of ``scale`` (options, their order and colours, the gate,
the half-way reminder, ...) and of ``hit`` (reward, title, description, keywords), which are
merged into the base's. Everything the arms share stays in the base: the items, the raters per
item (every item reaches that many raters in every arm), the controls, the qualifications,
screening, the budget and the platform. A spec with arms collects a fixed number of raters
per item: ``adaptive:`` beside ``arms:`` is refused.

Each arm resolves to its own `LoadedSpec` (`load_source` checks it like any spec), with its own
instrument hash: the spec's instrument hash extended with the design fields an arm may change
that the plain hash leaves out (items per HIT, the reward), so two arms are always two
instruments. Problems are reported as for any spec, every one at once, each with its file and
line; a problem in an arm's change names the field as ``arms.<arm>.<field>`` and the arm's line.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.errors import Problem, SpecError
from harness.spec.bounded_yaml import PathKey
from harness.spec.load import LoadedSpec, load_source, load_spec
from harness.spec.yaml_source import YamlSource, read_yaml

ARM_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
REPLACED = ("guidelines", "template", "items_per_hit")
"""Keys an arm replaces whole."""
MERGED = {
    "scale": None,  # any key of the scale
    "hit": ("reward", "title", "description", "keywords"),
}
"""Sections whose keys an arm overrides one by one (None: every key of the section)."""
ALLOWED = (*REPLACED, *MERGED)
MIN_ARMS = 2
ARM_HASH_VERSION = 1


@dataclass(frozen=True)
class Arm:
    """One arm: its name, what it changes, and its full spec (with the arm's instrument hash)."""

    name: str
    changes: dict[str, Any]
    loaded: LoadedSpec

    @property
    def instrument_hash(self) -> str:
        return self.loaded.instrument_hash


@dataclass(frozen=True)
class ArmedSpec:
    """A spec with arms: the shared study and each arm's instrument, in the spec's order."""

    path: Path
    arms: tuple[Arm, ...]
    seed: int  # seeds the assignment of workers to arms (the spec's ``order.seed``)

    @property
    def study_name(self) -> str:
        return self.arms[0].loaded.spec.study.name

    @property
    def names(self) -> list[str]:
        return [a.name for a in self.arms]

    def arm(self, name: str) -> Arm:
        """The arm called ``name``; `KeyError` naming the arms there are."""
        for a in self.arms:
            if a.name == name:
                return a
        raise KeyError(f"no arm {name!r} (arms: {', '.join(self.names)})")


def has_arms(path: str | Path) -> bool:
    """Whether the spec at ``path`` declares arms (a cheap look before choosing a loader)."""
    src = read_yaml(Path(path))
    return isinstance(src.data, dict) and "arms" in src.data


def read_spec(path: str | Path) -> LoadedSpec | ArmedSpec:
    """The spec at ``path``, with its arms if it declares any; `SpecError` with every
    problem."""
    return load_arms(path) if has_arms(path) else load_spec(path)


def load_arms(path: str | Path) -> ArmedSpec:
    """Read a spec with arms; raise `SpecError` with every problem of the base and every arm."""
    src = read_yaml(Path(path))
    if not isinstance(src.data, dict) or "arms" not in src.data:
        raise SpecError([src.problem((), "this spec declares no arms: add an `arms:` section")])
    base_data = {k: v for k, v in src.data.items() if k != "arms"}
    declared, problems = _arm_changes(src)
    if "adaptive" in base_data:
        problems.append(
            src.problem(
                ("adaptive",),
                "adaptive collection does not run with arms yet (each arm would need its own "
                "items' precision and places): remove `adaptive:` or `arms:`",
            )
        )
    base_problems: list[Problem] = []
    try:
        load_source(_source(src, base_data, {}))
    except SpecError as exc:
        base_problems = exc.problems
    problems = base_problems + problems
    arms: list[Arm] = []
    for name, changes in declared.items():
        merged, moved = _merge(base_data, changes, name)
        try:
            loaded = load_source(_source(src, merged, moved))
        except SpecError as exc:
            problems += [
                _in_arm(p, name, moved) for p in exc.problems if not _same(p, base_problems)
            ]
            continue
        arms.append(Arm(name, changes, replace(loaded, instrument_hash=arm_hash(loaded))))
    problems += _same_instruments(src, arms)
    if problems:
        raise SpecError(_unique(sorted(problems, key=lambda p: (p.line or 0, p.field))))
    seed = arms[0].loaded.spec.order.seed
    return ArmedSpec(src.path, tuple(arms), seed)


def arm_hash(loaded: LoadedSpec) -> str:
    """An arm's instrument hash: the spec's instrument hash and the design fields arms may
    change that it leaves out (items per HIT, the reward)."""
    design = {
        "arm_hash_version": ARM_HASH_VERSION,
        "instrument": loaded.instrument_hash,
        "items_per_hit": loaded.spec.items_per_hit,
        "reward": str(loaded.spec.hit.reward),
    }
    text = json.dumps(design, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _arm_changes(src: YamlSource) -> tuple[dict[str, dict[str, Any]], list[Problem]]:
    """Each arm's changes, and every problem with the ``arms:`` section's shape."""
    section = src.data["arms"]
    problems: list[Problem] = []
    if not isinstance(section, dict) or len(section) < MIN_ARMS:
        problems.append(
            src.problem(
                ("arms",),
                f"arms is a mapping of at least {MIN_ARMS} named arms to what each changes "
                "(e.g. `ascending: {}` and `descending: {scale: {order: reversed}}`)",
            )
        )
        return {}, problems
    declared: dict[str, dict[str, Any]] = {}
    for raw_name, changes in section.items():
        name = str(raw_name)
        where: PathKey = ("arms", name)
        if not ARM_NAME.match(name):
            problems.append(
                src.problem(
                    where,
                    f"arm name {name!r}: use lower-case letters, digits, '-' and '_' "
                    "(at most 40, starting with a letter or digit)",
                )
            )
            continue
        changes = {} if changes is None else changes
        if not isinstance(changes, dict):
            problems.append(
                src.problem(where, "an arm is a mapping of what it changes ({} for none)")
            )
            continue
        bad = False
        for key, value in changes.items():
            if key not in ALLOWED:
                problems.append(
                    src.problem(
                        (*where, str(key)),
                        f"an arm cannot change {key!r}: arms share it; an arm may change "
                        f"{', '.join(ALLOWED)}",
                    )
                )
                bad = True
                continue
            allowed_keys = MERGED.get(key)
            if key in MERGED and not isinstance(value, dict):
                problems.append(
                    src.problem((*where, key), f"{key} is a mapping of the keys it changes")
                )
                bad = True
            elif allowed_keys is not None and isinstance(value, dict):
                for sub in value:
                    if sub not in allowed_keys:
                        problems.append(
                            src.problem(
                                (*where, key, str(sub)),
                                f"an arm cannot change {key}.{sub}; it may change "
                                + ", ".join(f"{key}.{k}" for k in allowed_keys),
                            )
                        )
                        bad = True
        if not bad:
            declared[name] = changes
    return declared, problems


def _merge(
    base: dict[str, Any], changes: dict[str, Any], name: str
) -> tuple[dict[str, Any], dict[PathKey, PathKey]]:
    """The arm's full document, and which of its key paths came from the arm (path in the
    merged document -> path in the spec file)."""
    merged = copy.deepcopy(base)
    moved: dict[PathKey, PathKey] = {}
    for key, value in changes.items():
        if key in MERGED:
            section = dict(merged.get(key) or {})
            section.update(copy.deepcopy(value))
            merged[key] = section
            moved[(key,)] = ("arms", name, key)
            for sub in value:
                moved[(key, str(sub))] = ("arms", name, key, str(sub))
        else:
            merged[key] = copy.deepcopy(value)
            moved[(key,)] = ("arms", name, key)
    return merged, moved


def _source(src: YamlSource, data: dict[str, Any], moved: dict[PathKey, PathKey]) -> YamlSource:
    """A source for one arm's document: the base's lines, with the arm's changes at the arm's
    lines (every key under a changed path is looked up under the arm)."""
    lines = {k: v for k, v in src.lines.items() if not _under_any(k, moved)}
    for to, origin in moved.items():
        for key, line in src.lines.items():
            if key[: len(origin)] == origin:
                lines[(*to, *key[len(origin) :])] = line
    lines.pop(("arms",), None)
    return YamlSource(path=src.path, data=data, lines=lines)


def _under_any(key: PathKey, moved: dict[PathKey, PathKey]) -> bool:
    return any(key[: len(m)] == m for m in moved)


def _dotted_key(field: str) -> PathKey:
    return tuple(re.split(r"\.|\[", field.replace("]", "")))


def _in_arm(problem: Problem, name: str, moved: dict[PathKey, PathKey]) -> Problem:
    """An arm's problem: a field the arm changed is named ``arms.<arm>.<field>``; any other
    is the base's field, said to be found while checking the arm."""
    key = _dotted_key(problem.field) if problem.field else ()
    if key and any(key[: len(m)] == m for m in moved):
        return replace(problem, field=f"arms.{name}.{problem.field}")
    return replace(problem, message=f"{problem.message} (in arm {name})")


def _same(problem: Problem, reported: list[Problem]) -> bool:
    return any(problem.field == r.field and problem.message == r.message for r in reported)


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: set[Problem] = set()
    out = []
    for p in problems:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def _same_instruments(src: YamlSource, arms: list[Arm]) -> list[Problem]:
    """Two arms that resolve to the same instrument compare nothing: name the later one."""
    first: dict[str, str] = {}
    problems = []
    for arm in arms:
        earlier = first.setdefault(arm.instrument_hash, arm.name)
        if earlier != arm.name:
            problems.append(
                src.problem(
                    ("arms", arm.name),
                    f"arm {arm.name!r} is the same instrument as arm {earlier!r} "
                    f"({arm.instrument_hash[:12]}): an arm must change the task's design",
                )
            )
    return problems
