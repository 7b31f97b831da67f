"""Issue 21's task-spec reproducers: bombs, deep nesting, bad bytes and unbuildable values give
located problems (file:line, and the field where there is one) and exit 1, quickly, never a
traceback or a hang."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.errors import SpecError
from harness.spec import load_spec
from harness.spec.bounded_yaml import MAX_BYTES
from tests.factories import MINIMAL_ITEMS, MINIMAL_RATING_SPEC

BOMB = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 9 if prev else ['lol'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)  # nine levels of nine aliases: 387,420,489 strings once expanded


def problems_of(tmp_path: Path, data: bytes | str) -> list[str]:
    """The problems `load_spec` reports for a spec holding ``data`` (beside a valid items
    file), each as printed."""
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    path = tmp_path / "spec.yaml"
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    started = time.thread_time()  # the work done, not the time a loaded machine took for it
    with pytest.raises(SpecError) as caught:
        load_spec(path)
    assert time.thread_time() - started < 2, "refusing the spec took too much CPU time"
    return [str(p).removeprefix(f"{path}:") for p in caught.value.problems]


def test_5000_nested_brackets_are_refused_at_their_line_not_a_recursion_error(tmp_path):
    spec = MINIMAL_RATING_SPEC.replace("  min: 0", "  min: " + "[" * 5000 + "]" * 5000)
    assert problems_of(tmp_path, spec) == [
        "10: scale.min[0]: nested more than 40 levels deep; a task spec needs a few levels"
    ]


def test_deep_block_nesting_is_refused_too(tmp_path):
    deep = "".join(f"{' ' * i}k{i}:\n" for i in range(200)) + " " * 200 + "x: 1\n"
    assert problems_of(tmp_path, MINIMAL_RATING_SPEC + deep) == [
        "57: k0.k1.k2: nested more than 40 levels deep; a task spec needs a few levels"
    ]


def test_an_alias_bomb_is_refused_at_once(tmp_path):
    assert problems_of(tmp_path, BOMB + MINIMAL_RATING_SPEC) == [
        "6: f: with its aliases expanded this value holds more than 100,000 values (an alias "
        "bomb?); write it out, or use fewer aliases"
    ]


def test_an_alias_of_a_value_inside_itself_is_refused(tmp_path):
    assert problems_of(tmp_path, MINIMAL_RATING_SPEC + "loop: &l [1, *l]\n") == [
        "18: loop[1]: this value holds an alias of itself (a loop)"
    ]


def test_aliases_within_the_bounds_still_work(tmp_path):
    spec = MINIMAL_RATING_SPEC.replace("  max: 10", "  max: &top 10").replace(
        "raters_per_item: 3", "raters_per_item: 3\nbudget: &budget '5.00'"
    )
    spec = spec.replace(
        "budget: &budget '5.00'",
        "budget: &budget '5.00'\nscreening:\n  quick: &report {action: report}\n  slow: *report",
    )
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    path = tmp_path / "spec.yaml"
    path.write_text(spec)
    loaded = load_spec(path)
    assert loaded.spec.screening["slow"] == loaded.spec.screening["quick"]


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (
            b"\xff\xfe",
            [
                "2: byte 0xff at column 13 is not UTF-8; save the file as UTF-8",
                "2: byte 0xfe at column 14 is not UTF-8; save the file as UTF-8",
            ],
        ),
        (
            b"\x00",
            [
                "2: control character U+0000 (NUL) at column 13; a task spec is plain text: "
                "remove it"
            ],
        ),
        (
            b"\x1b[31m",
            [
                "2: control character U+001B (ESC) at column 13; a task spec is plain "
                "text: remove it"
            ],
        ),
    ],
)
def test_bytes_that_are_no_text_are_named_with_line_and_column(tmp_path, bad, expected):
    data = MINIMAL_RATING_SPEC.encode().replace(b"name: tiny", b"name: tiny" + bad)
    assert problems_of(tmp_path, data) == expected


def test_many_bad_bytes_are_summarized(tmp_path):
    data = MINIMAL_RATING_SPEC.encode().replace(b"name: tiny", b"name: tiny" + b"\x00" * 9)
    problems = problems_of(tmp_path, data)
    assert len(problems) == 6 and problems[-1].endswith("... and 4 more control characters")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-13-45", "cannot read the value '2024-13-45': month must be in 1..12"),
        (
            "1" * 5000,
            "cannot read the value '111111111111111111111111111111111111111111111111111"
            "111111111...': Exceeds the limit (4300 digits) for integer string "
            "conversion: value has 5000 digits; use sys.set_int_max_str_digits() to "
            "increase the limit",
        ),
    ],
)
def test_a_value_yaml_cannot_build_is_located(tmp_path, value, expected):
    spec = MINIMAL_RATING_SPEC.replace("  min: 0", f"  min: {value}")
    assert problems_of(tmp_path, spec) == [f"10: scale.min: {expected}"]


def test_a_second_document_is_refused_at_its_line(tmp_path):
    assert problems_of(tmp_path, MINIMAL_RATING_SPEC + "---\nmore: 1\n") == [
        "18: not valid YAML: expected a single document in the stream, but found another document"
    ]


def test_a_spec_over_the_size_limit_is_refused_without_reading_it(tmp_path):
    big = MINIMAL_RATING_SPEC + "#" * MAX_BYTES + "\n"
    assert problems_of(tmp_path, big) == [
        f" the file is {len(big):,} bytes; a task spec is at most {MAX_BYTES:,} (items and long "
        "guidelines belong in their own files)"
    ]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "csv: items.csv",
            'csv: "items\\0.csv"',
            "5: items.csv: a file path holds no control characters, got 'items\\x00.csv'",
        ),
        (
            "csv: items.csv",
            "csv: " + "x" * 300,
            "5: items.csv: a file path of at most 4096 bytes, each name at most 255 (got 'xxxxxxxxx"
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...')",
        ),
        ("  max: 10", "  max: .nan", "11: scale.max: input should be a finite number (got nan)"),
        (
            "raters_per_item: 3",
            "raters_per_item: 99999999999999999999",
            "12: raters_per_item: input should be less than or equal to 100000 (got "
            "99999999999999999999)",
        ),
    ],
)
def test_values_that_would_crash_or_hang_later_stages_are_refused(tmp_path, old, new, expected):
    assert problems_of(tmp_path, MINIMAL_RATING_SPEC.replace(old, new)) == [expected]


def test_control_items_per_hit_beyond_reason_are_refused_not_a_hang(tmp_path):
    spec = MINIMAL_RATING_SPEC + "controls:\n  random_pairs: {per_hit: 1000000000000}\n"
    assert problems_of(tmp_path, spec) == [
        "19: controls.random_pairs.per_hit: input should be less than or equal to 100 (got "
        "1000000000000)"
    ]


def test_validate_reports_an_alias_bomb_and_exits_1(tmp_path):
    (tmp_path / "items.csv").write_text(MINIMAL_ITEMS)
    path = tmp_path / "spec.yaml"
    path.write_text(BOMB + MINIMAL_RATING_SPEC)
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        f"{path}:6: f: with its aliases expanded this value holds more than 100,000 values (an "
        "alias bomb?); write it out, or use fewer aliases",
        "1 problem found.",
    ]
