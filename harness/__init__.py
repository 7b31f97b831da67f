"""harness: turn a crowdsourcing study into a measuring instrument others can trust and reproduce.

The stages, one subpackage each: spec -> render -> platform -> web -> store -> screening ->
characterize -> report, with the command line in `harness.cli`.
"""

__version__ = "0.1.0"
