"""Property-based fuzzing of the task spec loader (issue 21): mutated copies of the shipped
specs give either a loaded spec or a `SpecError` whose every problem names the file and a line,
never another exception, a RecursionError or a hang, on a bounded budget (a few seconds of
CPU time: a hang is work without end, and a loaded machine only stretches the wall clock)."""

from __future__ import annotations

import shutil
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.errors import SpecError
from harness.spec import load_spec
from tests.factories import TASK_SPECS

HANG = 5  # seconds of CPU time: a load that needs more is a hang
SPECS = sorted(p.name for p in TASK_SPECS.glob("*.yaml"))
BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9 if prev else ['lol'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)
PAYLOADS: list[bytes] = [
    p.encode("utf-8", "surrogatepass") if isinstance(p, str) else p
    for p in [
        "[" * 5000 + "]" * 5000,
        "{a: " * 3000 + "1" + "}" * 3000,
        "\n" + BOMB,
        "&a [*a]",
        "\x00",
        "\x1b[31m",
        b"\xff\xfe",
        b"\xc3",
        "2024-13-45",
        "1" * 5000,
        ".nan",
        "-.inf",
        "1e400",
        "1_0",
        "\u0665",
        "!!binary 'x'",
        "!!python/object:os.system",
        "!!set {a}",
        "&x",
        "*x",
        "*undefined",
        "<<: *x",
        "\t",
        "{",
        "}",
        "? [a]",
        "- ",
        "~",
        '"\\ud800"',
        "0x1F",
        "|",
        "---\n",
        "%YAML 1.1\n",
        ":",
        "'",
        "\ufeff",
        "\u2028",
    ]
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of task_specs/ (items and guidelines too) where mutated specs are written."""
    target = tmp_path_factory.mktemp("specs") / "task_specs"
    shutil.copytree(TASK_SPECS, target)
    return target


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, bytes]:
    """A shipped spec with one to three edits: a payload inserted or put in place of a value,
    a span deleted, or a line repeated."""
    name = draw(st.sampled_from(SPECS))
    data = (TASK_SPECS / name).read_bytes()
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["insert", "value", "delete", "repeat"]))
        at = draw(st.integers(0, len(data)))
        payload = draw(st.sampled_from(PAYLOADS) | st.binary(max_size=8))
        if kind == "insert":
            data = data[:at] + payload + data[at:]
        elif kind == "value":
            colon = data.find(b": ", at)
            if colon >= 0:
                end = data.find(b"\n", colon)
                data = data[: colon + 2] + payload + (data[end:] if end >= 0 else b"")
        elif kind == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 200)) :]
        else:
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            line = data[start : end + 1 if end >= 0 else len(data)]
            data = data[:start] + line + line + data[start:]
    return name, data


def _hang(_signum: int, _frame: object) -> None:
    raise TimeoutError(f"loading the spec took more than {HANG} s of CPU time")


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TimeoutError in this (main) thread if the block uses more than ``seconds`` of
    the process's CPU time (not of the wall clock, which a loaded machine stretches)."""
    previous = signal.signal(signal.SIGPROF, _hang)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(case=mutated())
def test_a_mutated_spec_loads_or_gets_located_problems(workdir, case):
    name, data = case
    path = workdir / name
    path.write_bytes(data)
    try:
        with time_limit(HANG):
            load_spec(path)
    except SpecError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.source == str(path), str(problem)
            assert problem.line is not None or problem.message.startswith("..."), str(problem)
            assert "Traceback" not in problem.message
