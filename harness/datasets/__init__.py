"""Adapters that read published instruments (items and every rater's vote) into long tables.

Bundled with the package (``harness/datasets/data/``, package data in the wheel): WS353 as its
authors distributed it (Finkelstein, Gabrilovich, Matias, Rivlin, Solan, Wolfman and Ruppin,
"Placing Search in Context: The Concept Revisited", ACM TOIS 20(1):116-131, 2002), and three
systems' predictions on its 353 pairs. Provenance and citation: the README beside each folder.
"""

from harness.datasets.ws353 import WS353, bundled_ws353_dir, load_ws353, locate_ws353

__all__ = ["WS353", "bundled_ws353_dir", "load_ws353", "locate_ws353"]
