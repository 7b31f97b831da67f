"""Characterize from references and write the report, as `harness characterize` and the demo
do: each input resolved (`harness.characterize.inputs`: a long judgments CSV, a stored study's
name, or ``ws353``), system files read, `harness.characterize.characterize` run and the report
written (`harness.report.write_report`). It sits in report, the stage above characterize, so
characterize never reaches up to the report."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from harness.characterize.reproducibility import MIN_SHARED_ITEMS
from harness.errors import InputError
from harness.stats.alpha import Level


def characterize_refs(
    new_ref: str,
    original_ref: str,
    out: Path,
    *,
    db: str | None = None,
    resolution_ref: str | None = None,
    system_refs: Sequence[str] = (),
    screened_path: Path | None = None,
    flagged_path: Path | None = None,
    screen_spec: Path | None = None,
    screening_policy: str | None = None,
    level: Level = "interval",
    resamples: int = 1000,
    seed: int = 0,
    min_shared_items: int = MIN_SHARED_ITEMS,
    arm: str | None = None,
    say: Callable[[str], None] = lambda _message: None,
) -> list[str]:
    """Characterize ``new_ref`` against ``original_ref`` and write the report to ``out``; the
    headline and what was written, for the person. ``say`` gets the progress."""
    from harness.characterize import characterize
    from harness.characterize.arm_inputs import arms_figures
    from harness.characterize.inputs import (
        read_instrument,
        read_with_arms,
        screen_with_spec,
        screened_inputs,
        ws353_items,
    )
    from harness.datasets.systems import read_system_refs
    from harness.report import write_report
    from harness.report.headline import headline

    if sum(x is not None for x in (screened_path, flagged_path, screen_spec)) > 1:
        raise InputError("give one of --screened, --flagged or --screen")
    say(f"reading the new instrument ({new_ref})")
    new, arms = read_with_arms(new_ref, db, arm)  # a study's judgments read once, arms too
    chosen = None
    if arms is not None:
        chosen = arm or arms.data.arms[0]
        say(
            f"{new_ref} has arms ({', '.join(arms.data.arms)}): characterizing arm {chosen}; "
            "the Arms section compares them all"
        )
    say(f"reading the original instrument ({original_ref})")
    original = read_instrument(original_ref, db)
    resolution = None
    if resolution_ref is not None:
        say(f"reading the resolution study ({resolution_ref})")
        resolution = read_instrument(resolution_ref, db)
    scores, sources = read_system_refs(system_refs, ws353_items(original_ref))
    screened, flagged, policy = screened_inputs(new, screened_path, flagged_path, screening_policy)
    impact = None
    if screen_spec is not None:
        say(f"screening the new judgments with {screen_spec}'s policy (every subset)")
        flagged, impact = screen_with_spec(new, new_ref, screen_spec, scores)
        policy = screening_policy or screen_spec.stem
    result = characterize(
        new,
        original,
        resolution_study=resolution,
        system_scores=scores,
        system_sources=sources,
        screened=screened,
        flagged_workers=flagged,
        screening_policy=policy,
        screening_impact=impact,
        level=level,
        resamples=resamples,
        seed=seed,
        min_shared_items=min_shared_items,
        progress=say,
    )
    if arms is not None and chosen is not None:
        say(f"arms: every arm against the base ({resamples} bootstrap resamples)")
        figures = arms_figures(arms, chosen, original, resamples=resamples, seed=seed)
        result = replace(result, arms=figures)
    say(f"writing the report to {out}")
    written = write_report(result, out)
    return [headline(result), f"Wrote {', '.join(p.name for p in written)} to {out}"]
