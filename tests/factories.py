"""Factory functions the tests build on (fixtures in conftest.py wrap them)."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = PROJECT_ROOT.parent / "shared" / "data"
WS353_DIR = SHARED_DATA / "ws353"
WS353_SYSTEMS_DIR = SHARED_DATA / "ws353-systems"
