"""The simulated crowd (docs/methods.md section 7): archetypes answering from latent truths.

For the local platform, demos and tests: a `Crowd` of archetypes with proportions and a seed
becomes a long judgment table with `simulate_judgments`; the same seed gives the same study.
"""

from harness.simulate.archetypes import MODELS, Archetype, ResponseModel, Worker
from harness.simulate.crowd import Crowd, control_truths, simulate_judgments

__all__ = [
    "MODELS",
    "Archetype",
    "Crowd",
    "ResponseModel",
    "Worker",
    "control_truths",
    "simulate_judgments",
]
