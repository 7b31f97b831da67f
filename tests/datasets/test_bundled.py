"""The data harness ships (WS353 and three systems' WS353 predictions): byte-identical to the
published files, found with no path (in a checkout and in an installed wheel), and a user's own
copy still wins when named."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.datasets import bundled_ws353_dir, load_ws353
from harness.datasets.systems import read_system_refs
from harness.datasets.ws353_systems import bundled_systems_dir
from harness.errors import DatasetError
from harness.spec import load_spec
from tests.factories import PROJECT_ROOT, TASK_SPECS, WS353_DIR, WS353_SYSTEMS_DIR, write_spec

# SHA-256 of the published files (the WS353 distribution, instructions.txt re-encoded to UTF-8;
# the systems' predictions as first produced). Written here, not computed: a changed byte fails.
PUBLISHED_SHA256 = {
    "ws353/set1.csv": "25043375bc1f9fdb194094bf4a75ad25a53af1b6870036ab27787ce4769d5923",
    "ws353/set2.csv": "5cf1378b6bd48b1060457c158bbc7b6331eaabcd82e3099614997ac202f15de3",
    "ws353/combined.csv": "49ff6433ae68abe716fb66433fd870483e289a7a8c74531f59eca847d103fff3",
    "ws353/instructions.txt": "0d53d786d64db67d33d5af5c144ea611c30f27f9d0a3c954c98c4b4e1bb8b1a9",
    "ws353-systems/minilm.csv": "a02a460b2f5f8e568d68934d274ff0c31b4573933c6b7ca1ef6103e07f40949e",
    "ws353-systems/minilm_frame.csv": (
        "3d39c0c85f401913b2289f87054dd818783f7e260fd904837a29122ec79139a5"
    ),
    "ws353-systems/char3gram.csv": (
        "1945fc2408b3b27360ec771fdbffe444153a82853c7ef80747385c299acc1006"
    ),
}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", sorted(PUBLISHED_SHA256))
def test_the_bundled_files_are_byte_identical_to_the_published_ones(name):
    assert _sha256(WS353_DIR.parent / name) == PUBLISHED_SHA256[name]


def test_every_bundled_data_file_is_pinned_and_documented():
    shipped = {
        f"{p.parent.name}/{p.name}"
        for folder in (WS353_DIR, WS353_SYSTEMS_DIR)
        for p in folder.iterdir()
        if p.name != "README.md"
    }
    assert shipped == set(PUBLISHED_SHA256)
    readme = " ".join((WS353_DIR / "README.md").read_text(encoding="utf-8").split())
    assert "Placing Search in Context: The Concept Revisited" in readme
    assert "ACM Transactions on Information Systems 20(1):116-131, 2002" in readme


def test_without_a_path_harness_reads_the_copy_bundled_in_the_package(monkeypatch):
    monkeypatch.delenv("HARNESS_WS353_DIR", raising=False)
    assert bundled_ws353_dir() == WS353_DIR.resolve()
    assert bundled_systems_dir() == WS353_SYSTEMS_DIR.resolve()
    ws = load_ws353()
    assert ws.bundled and ws.directory == WS353_DIR.resolve()
    assert len(ws.judgments) == 5189


def test_import_with_no_directory_uses_the_bundled_copy(monkeypatch, tmp_path):
    monkeypatch.delenv("HARNESS_WS353_DIR", raising=False)
    out = tmp_path / "ws353.csv"
    result = CliRunner().invoke(main, ["import", "ws353", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == (
        f"Wrote {out}: 4,589 judgments over 353 items and 13 workers "
        "(from the copy bundled with harness)."
    )


def _own_copy(tmp_path: Path, change: dict[str, str] | None = None) -> Path:
    """A user's own copy of the distribution, optionally with one vote changed."""
    copy = tmp_path / "my-ws353"
    shutil.copytree(WS353_DIR, copy)
    for old, new in (change or {}).items():
        text = (copy / "set1.csv").read_text(encoding="utf-8")
        (copy / "set1.csv").write_text(text.replace(old, new, 1), encoding="utf-8")
    return copy


def test_a_users_own_copy_wins_by_path_and_by_environment(monkeypatch, tmp_path):
    copy = _own_copy(tmp_path, {"love,sex,6.77,9,": "love,sex,6.77,0,"})
    monkeypatch.delenv("HARNESS_WS353_DIR", raising=False)
    by_path = load_ws353(copy)
    assert not by_path.bundled and by_path.directory == copy.resolve()
    first = by_path.judgments.set_index(["item_id", "worker_id"])["value"]
    assert first[("ws353-001", "ws353-r01")] == 0.0  # the bundled copy has 9
    monkeypatch.setenv("HARNESS_WS353_DIR", str(copy))
    assert load_ws353().directory == copy.resolve()
    out = tmp_path / "ws353.csv"
    result = CliRunner().invoke(main, ["import", "ws353", "--out", str(out)])
    assert result.exit_code == 0 and f"(from {copy.resolve()})" in result.output


def test_a_missing_directory_from_the_environment_is_named_as_such(monkeypatch, tmp_path):
    monkeypatch.setenv("HARNESS_WS353_DIR", str(tmp_path / "gone"))
    with pytest.raises(DatasetError) as caught:
        load_ws353()
    assert str(caught.value) == (
        f"WS353 not found (tried {tmp_path / 'gone'} from $HARNESS_WS353_DIR): expected a "
        "directory holding set1.csv, set2.csv, combined.csv, instructions.txt. Pass the "
        "directory of your own copy (or set HARNESS_WS353_DIR), or give neither to use the copy "
        "bundled with harness."
    )


def test_a_spec_with_dataset_ws353_needs_no_path_and_takes_a_users_copy(monkeypatch, tmp_path):
    monkeypatch.delenv("HARNESS_WS353_DIR", raising=False)
    assert load_spec(TASK_SPECS / "ws353_reproduction.yaml").n_content_items == 353
    copy = _own_copy(tmp_path)
    (tmp_path / "guidelines").mkdir()
    shutil.copy(TASK_SPECS / "guidelines" / "ws353.txt", tmp_path / "guidelines")
    text = (TASK_SPECS / "ws353_reproduction.yaml").read_text(encoding="utf-8")
    text = text.replace("  dataset: ws353\n", f"  dataset: ws353\n  path: {copy}\n", 1)
    loaded = load_spec(write_spec(tmp_path, text))
    assert loaded.n_content_items == 353 and loaded.spec.items.path == str(copy)


def test_system_ws353_names_the_three_bundled_systems():
    items = load_ws353().items
    scores, sources = read_system_refs(["ws353"], lambda: items)
    assert sorted(scores) == ["char3gram", "minilm", "minilm_frame"]
    assert sources["minilm"] == str(WS353_SYSTEMS_DIR.resolve() / "minilm.csv")
    assert all(len(s) == 353 for s in scores.values())


WHEEL_CHECK = """
import harness, sys
from harness.datasets import load_ws353
from harness.datasets.ws353_systems import bundled_systems_dir
from harness.resources import templates_dir
ws = load_ws353()
print(harness.__file__)
print(ws.directory, ws.bundled, len(ws.judgments))
print(sorted(p.name for p in bundled_systems_dir().glob("*.csv")))
print((templates_dir() / "rating.html").is_file())
from harness.resources import project_task_specs
print((project_task_specs() / "ws353_reproduction.yaml").is_file())
"""


@pytest.mark.slow
def test_an_installed_wheel_carries_the_data_and_finds_it(tmp_path):
    source = tmp_path / "src"
    for name in ("harness", "templates", "alembic", "task_specs"):
        shutil.copytree(
            PROJECT_ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
        )
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(PROJECT_ROOT / name, source / name)
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(source),
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path / "dist"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "dist").glob("harness-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert {f"harness/datasets/data/{n}" for n in PUBLISHED_SHA256} <= names
        for name in PUBLISHED_SHA256:  # unchanged by the build
            data = archive.read(f"harness/datasets/data/{name}")
            assert hashlib.sha256(data).hexdigest() == PUBLISHED_SHA256[name]
        archive.extractall(tmp_path / "site")
    run = subprocess.run(
        [sys.executable, "-c", WHEEL_CHECK],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "site"), "HARNESS_WS353_DIR": ""},
    )
    assert run.returncode == 0, run.stderr
    site = tmp_path / "site" / "harness"
    assert run.stdout.splitlines() == [
        str(site / "__init__.py"),
        f"{site / 'datasets' / 'data' / 'ws353'} True 5189",
        "['char3gram.csv', 'minilm.csv', 'minilm_frame.csv']",
        "True",
        "True",  # the shipped task specs, which `harness demo` runs
    ]
