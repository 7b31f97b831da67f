"""The repository's own text files are whole: no merge left its conflict markers in code or docs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.MULTILINE)
TEXT = (".py", ".md", ".html", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".sh", ".js", ".css")


def tracked_text_files() -> list[Path]:
    try:
        listed = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [ROOT / name for name in listed if name.endswith(TEXT)]


def test_no_file_holds_a_merge_conflict_marker():
    found = [
        f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}"
        for path in tracked_text_files()
        if path.is_file()
        for text in [path.read_text(errors="replace")]
        for m in MARKER.finditer(text)
    ]
    assert found == [], f"merge conflict markers left in: {', '.join(found)}"
