"""Studies the characterization tests build on: WS353, a simulated reproduction, a simulated
resolution study (task_specs/ws353_resolution.yaml, pairs_of_pairs design), WS353's systems."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pandas as pd
from sqlmodel import Session, select

from harness.datasets import load_ws353
from harness.datasets.systems import read_system
from harness.datasets.ws353 import WS353
from harness.judgments import write_judgments
from harness.simulate import Crowd
from harness.simulate.studies import simulate_spec_study
from harness.spec import LoadedSpec, load_spec
from harness.store import create_study
from harness.store.models import Assignment, Hit, Item, Judgment, Worker
from tests.clock import minutes_ago
from tests.factories import TASK_SPECS, WS353_DIR, WS353_SYSTEMS_DIR

SYSTEMS = ("minilm", "minilm_frame", "char3gram")
REPRODUCTION_MIX = {"careful": 0.75, "sloppy": 0.1, "spammer": 0.1, "backwards": 0.05}
RESOLUTION_MIX = {"careful": 0.7, "sloppy": 0.2, "spammer": 0.1}


@cache
def ws353() -> WS353:
    return load_ws353(WS353_DIR)


@cache
def reproduction_spec() -> LoadedSpec:
    return load_spec(TASK_SPECS / "ws353_reproduction.yaml")


@cache
def resolution_spec() -> LoadedSpec:
    return load_spec(TASK_SPECS / "ws353_resolution.yaml")


def ws353_means() -> pd.Series:
    """harness's WS353 item means: raters 1-13, as the designs and the report use."""
    return ws353().rater_table(13).groupby("item_id")["value"].mean()


def reproduction(seed: int = 1) -> pd.DataFrame:
    """A simulated WS353 reproduction: 60 workers, 13 raters per item, some bad workers."""
    table = simulate_spec_study(
        reproduction_spec(),
        Crowd(REPRODUCTION_MIX, size=60, seed=seed),
        truths=ws353_means(),
        seed=seed,
    )
    return table.drop(columns="true_archetype")


def resolution_study(seed: int = 2) -> pd.DataFrame:
    """A simulated pair-comparison study of 200 WS353 pairs of pairs, 13 raters each."""
    table = simulate_spec_study(
        resolution_spec(), Crowd(RESOLUTION_MIX, size=40, seed=seed), seed=seed
    )
    return table.drop(columns="true_archetype")


def system_scores() -> dict[str, pd.Series]:
    items = ws353().items
    return {name: read_system(WS353_SYSTEMS_DIR / f"{name}.csv", lambda: items) for name in SYSTEMS}


def write_inputs(directory: Path) -> dict[str, Path]:
    """The reproduction, resolution study and WS353 as long CSVs in ``directory``."""
    paths = {
        "new": directory / "reproduction.csv",
        "resolution": directory / "resolution.csv",
        "ws353": directory / "ws353.csv",
    }
    write_judgments(reproduction(), paths["new"])
    write_judgments(resolution_study(), paths["resolution"])
    write_judgments(ws353().judgments, paths["ws353"])
    return paths


def store_study(session: Session, loaded: LoadedSpec, table: pd.DataFrame, name: str) -> int:
    """Store ``table`` (a simulated study of ``loaded``) as study ``name``; returns its id."""
    study = create_study(session, loaded, name=name)
    found = session.exec(select(Item).where(Item.instrument_id == study.instrument_id)).all()
    items = {i.key: i.id for i in found}
    workers: dict[str, int] = {}
    hits: dict[str, int] = {}
    for assignment_key, rows in table.groupby("assignment_id", sort=True):
        hit_key = f"{name}-{str(assignment_key).split('-')[0]}"
        if hit_key not in hits:
            hit = Hit(
                study_id=study.id,
                index=len(hits),
                platform_hit_id=hit_key,
                max_assignments=13,
                items=sorted(rows["item_id"]),
            )
            session.add(hit)
            session.flush()
            hits[hit_key] = hit.id
        worker_key = str(rows["worker_id"].iloc[0])
        if worker_key not in workers:
            worker = session.exec(
                select(Worker).where(Worker.platform_worker_id == worker_key)
            ).first() or Worker(platform_worker_id=worker_key)  # the same person in two studies
            session.add(worker)
            session.flush()
            workers[worker_key] = worker.id
        assignment = Assignment(
            hit_id=hits[hit_key],
            worker_id=workers[worker_key],
            platform_assignment_id=f"{name}-{assignment_key}",
            accepted_at=minutes_ago(90),
            submitted_at=minutes_ago(60),
        )
        session.add(assignment)
        session.flush()
        session.add_all(
            Judgment(
                assignment_id=assignment.id,
                item_id=items[r.item_id],
                worker_id=workers[worker_key],
                instrument_id=study.instrument_id,
                position=int(r.position),
                value=float(r.value),
                role="item",
                seconds=float(r.seconds),
            )
            for r in rows.itertuples()
        )
    assert study.id is not None
    return study.id
