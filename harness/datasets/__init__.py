"""Adapters that read published instruments (items and every rater's vote) into long tables."""

from harness.datasets.ws353 import WS353, load_ws353, locate_ws353

__all__ = ["WS353", "load_ws353", "locate_ws353"]
