"""One contract, every platform: each registered platform (MTurk on its local service, Prolific
on its local service, the study link) and the no-op test platform meets `Platform` and
`Provider`, declares all it may do beyond them in its `Capabilities` and the optional
protocols, and does what it declares."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import click
import pytest
from flask import Blueprint

from harness.cli import COMMANDS, SUMMARIES
from harness.platform.actions import ReturnAsker
from harness.platform.contract import (
    AnonymousEntry,
    Capabilities,
    GroupPages,
    GroupsProvider,
    ListingProvider,
    Messages,
    Pauses,
    PlacesPlatform,
    PlacesProvider,
    PlacesStudy,
    Platform,
    Provider,
    SessionsProvider,
    UnitState,
    WorkerSites,
    WorkSettings,
    WorkUnit,
    messaging,
    pausing,
)
from harness.platform.registry import PLATFORMS, connect, load, platform_named, platform_of_target
from tests.providers.mturk.local_service.factories import external_question
from tests.providers.noop.platform import NOOP, NoopPlatform
from tests.serving import ServedApp

NAMES = ["mturk", "prolific", "link", "noop"]
TEST_DOUBLE_OWN = {"noop": {"world", "accept"}}  # how a test plays the no-op platform's workers
SETTINGS = WorkSettings(
    title="Contract",
    description="A study that checks the platform contract",
    keywords=("test",),
    reward=Decimal("1.50"),
    assignment_duration=1200,
    lifetime=86400,
    auto_approval_delay=86400,
)
KEY = "contract launch=c1"
LABEL = "harness study=contract launch=c1"


def _members(*protocols: type) -> set[str]:
    return {
        name
        for protocol in protocols
        for klass in protocol.__mro__
        if klass.__module__ == "harness.platform.contract"
        for name in (*vars(klass), *getattr(klass, "__annotations__", {}))
        if not name.startswith("_")
    }


PLATFORM_MEMBERS = _members(Platform, PlacesPlatform, AnonymousEntry, WorkerSites, GroupPages)
PROVIDER_MEMBERS = _members(Provider)


@pytest.fixture(params=NAMES)
def platform(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Platform:
    monkeypatch.setitem(PLATFORMS, "noop", "tests.providers.noop.platform:NOOP")
    monkeypatch.setattr(NOOP, "world", NoopPlatform().world)
    return platform_named(request.param)


@pytest.fixture
def where(
    platform: Platform, request: pytest.FixtureRequest, tmp_path: Any
) -> Iterator[tuple[str, str | None]]:
    """The target the platform runs on here, and its endpoint: its local service, if any."""
    if platform.name == "mturk":
        yield "local", request.getfixturevalue("mturk").url
    elif platform.name == "prolific":
        from harness.providers.prolific.local_service import Settings, create_app

        app = create_app(Settings(db_path=tmp_path / "prolific-local.sqlite"))
        with ServedApp(app) as served:
            yield "prolific-local", served.url
        app.extensions["prolific_local"].close()
    else:
        yield platform.targets[0], None


@pytest.fixture
def provider(platform: Platform, where: tuple[str, str | None]) -> Provider:
    return connect(platform.name, *where)


def test_every_registered_platform_is_under_contract():
    assert set(PLATFORMS) <= set(NAMES)


# -- the platform, before connecting ----------------------------------------------------------


def test_the_registry_finds_the_platform_by_its_name_and_its_targets(platform):
    assert platform_named(platform.name) is platform
    assert all(platform_of_target(t) is platform for t in platform.targets)
    assert isinstance(platform.capabilities, Capabilities)


def test_the_platform_has_every_member_of_the_contract_and_none_undeclared(platform):
    own = {n for n in dir(platform) if not n.startswith("_")}
    assert _members(Platform) <= own
    assert own - PLATFORM_MEMBERS - TEST_DOUBLE_OWN.get(platform.name, set()) == set()


def test_money_and_documents_are_what_the_contract_says(platform):
    cost = platform.estimate(Decimal("1.50"), 3, 2)
    assert (cost.assignments, cost.rewards) == (6, Decimal("9.00"))
    assert cost.fees >= 0 and cost.total == cost.rewards + cost.fees
    assert platform.bonus_cost(Decimal("1.00")) >= Decimal("1.00")
    assert platform.problems(SETTINGS, "external") == []
    assert platform.events("not a notification") == []
    for target in platform.targets:
        assert platform.stand_in(target) in platform.targets
        if not platform.capabilities.pays:
            assert not platform.real_money(target)


def test_a_local_service_is_run_by_the_command_the_platform_declares(platform):
    command = platform.capabilities.local_command
    service = platform.local_service(8000, "state.sqlite")
    assert (service is None) == (command is None)
    if command is not None:
        loaded = load(command.command)
        assert isinstance(loaded, click.Command)
        assert COMMANDS[command.name] == command.command
        assert SUMMARIES[command.name] == loaded.get_short_help_str(limit=1000)


def test_the_task_server_mounts_the_blueprints_the_platform_declares(platform, sqlite_db):
    from harness.web import create_app

    declared = [load(b) for b in platform.capabilities.blueprints]
    assert all(isinstance(b, Blueprint) for b in declared)
    if declared:
        app = create_app(sqlite_db)
        assert {b.name for b in declared} <= set(app.blueprints)
        app.extensions["harness"].close()


def test_a_task_server_runs_the_preload_the_platform_declares_before_it_forks(platform):
    from harness.web.warm import import_modules

    preload = platform.capabilities.preload
    if preload is None:
        return
    assert callable(load(preload))
    assert preload in import_modules()  # what `harness serve` runs before it forks


def test_a_simulated_crowd_comes_through_the_door_the_platform_declares(platform):
    from harness.simulate.door import CrowdDoor

    door = platform.capabilities.crowd_door
    if door is None:
        return
    entrance = load(door)("http://127.0.0.1:9", "http://tasks.test", "contract")
    assert isinstance(entrance, CrowdDoor)
    if isinstance(platform, PlacesPlatform):  # participants come in through an entry page
        assert callable(entrance.entry) and callable(entrance.finish)


def test_a_platforms_demo_runs_on_a_local_target_of_its_own_with_its_own_door(platform):
    demo = platform.capabilities.demo
    if demo is None:
        return
    assert demo.target in platform.targets and platform.is_local(demo.target)
    assert platform.capabilities.crowd_door is not None  # the demo's crowd comes through it
    assert demo.crowd_size > 0 and demo.says


def test_the_demos_choices_are_the_platforms_own_in_order():
    from harness.platform.registry import demos

    names = [demo.name for demo in demos()]
    assert names == ["local", "prolific-local", "link"]  # `harness demo --platform`, as shipped
    assert len({demo.rank for demo in demos()}) == len(names)


def test_a_platform_with_one_submission_per_study_has_places(platform):
    if platform.capabilities.one_submission_per_study:
        assert isinstance(platform, PlacesPlatform)


# -- the provider, connected ------------------------------------------------------------------


def test_the_provider_is_the_platforms_and_a_shared_one_is_kept(platform, where, provider):
    assert provider.platform is platform
    assert provider.target == where[0]
    assert _members(Provider) <= {n for n in dir(provider) if not n.startswith("_")}
    assert connect(platform.name, *where, shared=True) is connect(
        platform.name, *where, shared=True
    )
    assert connect(platform.name, *where) is not provider
    assert provider.balance() >= 0


def test_what_the_capabilities_say_the_provider_can_do(platform, provider):
    capabilities = platform.capabilities
    assert isinstance(provider, GroupsProvider) == capabilities.arm_groups
    assert isinstance(provider, ReturnAsker) == capabilities.asks_returns
    assert isinstance(provider, Pauses) == pausing(platform).can
    assert isinstance(provider, Messages) == messaging(platform).can
    assert isinstance(provider, PlacesProvider) == isinstance(platform, PlacesPlatform)


def test_work_is_published_once_per_token_and_found_again(platform, provider):
    prepared = provider.prepare(KEY, SETTINGS, None)
    assert provider.prepare(KEY, SETTINGS, prepared.exclude_ref).exclude_ref == prepared.exclude_ref
    if isinstance(provider, PlacesProvider):
        study = PlacesStudy(
            LABEL, 4, "http://tasks.test/p/contract", "C0DE", SETTINGS, prepared.exclude_ref
        )
        published = provider.open_places(prepared.work_type_id, study)
        assert provider.open_places(prepared.work_type_id, study).platform_id == (
            published.platform_id
        )
        provider.set_places(published.platform_id, 6)
        provider.set_places(published.platform_id, 6)
        assert provider.study_submissions(published.platform_id) == []
    else:
        question = external_question() if platform.name == "mturk" else "<question/>"
        unit = WorkUnit(0, question, 2, 3600, "harness-contract-0", f"{LABEL} hit=0")
        published = provider.publish(prepared.work_type_id, unit)
        assert provider.publish(prepared.work_type_id, unit).platform_id == published.platform_id
        assert [u.platform_id for u in provider.published(LABEL)] == [published.platform_id]
        found = provider.unit(published.platform_id)
        assert (found.state, found.assignments) == (UnitState.ASSIGNABLE, 2)
        assert provider.submissions(published.platform_id) == []
    if isinstance(provider, ListingProvider):
        assert provider.listed_submissions(published.platform_id) == []
    if isinstance(provider, Pauses):
        for move in (provider.pause, provider.pause, provider.resume, provider.resume):
            move(published.platform_id)  # idempotent both ways
    provider.expire(published.platform_id)


def test_a_provider_with_sessions_knows_no_session_it_never_started(provider):
    if isinstance(provider, SessionsProvider):
        assert provider.session_holder("5f0000000000000000000000") is None


def test_a_platform_with_groups_makes_each_group_once(provider):
    if isinstance(provider, GroupsProvider):
        ref = provider.make_group(KEY, "arm-a")
        assert provider.make_group(KEY, "arm-a") == ref
        provider.join_group(ref, "AWORKER1")
        provider.join_group(ref, "AWORKER1")


def test_worker_sites_and_group_pages_are_origins_and_urls(platform, where):
    target, endpoint = where
    if isinstance(platform, WorkerSites):
        origins = platform.worker_origins(target, endpoint)
        assert origins and all(o.startswith(("http://", "https://")) for o in origins)
    if isinstance(platform, GroupPages):
        for each in platform.targets:
            page = platform.group_url(each, "GROUP1")
            assert page is None or "GROUP1" in page
