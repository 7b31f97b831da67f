"""The WS353 reproduction's guidelines: the original instructions about the judgment, without the
questionnaire's logistics or any request for personal data; the verbatim original stays one
line away, as a different instrument; docs/ws353.md shows the real diff."""

from __future__ import annotations

import difflib
import shutil

from harness.datasets import load_ws353
from harness.spec import load_spec
from tests.factories import PROJECT_ROOT, TASK_SPECS, WS353_DIR, write_spec

ADAPTED = TASK_SPECS / "guidelines" / "ws353.txt"
ORIGINAL = WS353_DIR / "instructions.txt"


def _diff() -> list[str]:
    return list(
        difflib.unified_diff(
            ORIGINAL.read_text(encoding="utf-8").splitlines(),
            ADAPTED.read_text(encoding="utf-8").splitlines(),
            "instructions.txt (original, harness/datasets/data/ws353/)",
            "ws353.txt (as workers read it, task_specs/guidelines/)",
            lineterm="",
        )
    )


def test_the_reproduction_shows_the_adapted_guidelines():
    loaded = load_spec(TASK_SPECS / "ws353_reproduction.yaml")
    assert loaded.guidelines == ADAPTED.read_text(encoding="utf-8")


def test_the_adaptation_drops_the_questionnaire_and_the_name_and_keeps_the_judgment():
    removed = [line[1:].strip() for line in _diff() if line.startswith("-") and line[1:2] != "-"]
    added = [line[1:].strip() for line in _diff() if line.startswith("+") and line[1:2] != "+"]
    assert added == [
        "You will see pairs of words, one pair at a time. For each pair, please assign",
        "1) If you do not know the meaning of a particular word - please use",
        "2) Please DO NOT consult your friends on assigning the similarity scores –",
        '3) When estimating similarity of antonyms, consider them "similar"',
    ]
    assert removed[0] == "Below is a list of pairs of words. For each pair, please assign"
    assert removed[1] == "1) The questionnaire starts on the next page."
    assert removed[2].startswith("2) Please fill in your full name")
    assert len(removed) == 11
    adapted = ADAPTED.read_text(encoding="utf-8").lower()
    for gone in ("name", "questionnaire", "table", "print"):
        assert gone not in adapted, gone


def test_the_verbatim_original_is_one_line_away_and_a_different_instrument(tmp_path):
    text = (TASK_SPECS / "ws353_reproduction.yaml").read_text(encoding="utf-8")
    (tmp_path / "guidelines").mkdir()
    shutil.copy(ADAPTED, tmp_path / "guidelines")
    adapted = load_spec(write_spec(tmp_path, text, "adapted.yaml"))
    verbatim_text = text.replace("  file: guidelines/ws353.txt\n", "  dataset: ws353\n")
    verbatim = load_spec(write_spec(tmp_path, verbatim_text, "verbatim.yaml"))
    assert verbatim.guidelines == load_ws353().instructions == ORIGINAL.read_text(encoding="utf-8")
    assert verbatim.instrument_hash != adapted.instrument_hash


def test_docs_show_the_real_diff():
    docs = (PROJECT_ROOT / "docs" / "ws353.md").read_text(encoding="utf-8")
    assert "```diff\n" + "\n".join(_diff()) + "\n```" in docs
