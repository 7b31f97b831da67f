"""The platforms harness can run studies on, by name: the one place a platform is registered.

Each entry names the module attribute holding the platform's `Platform` object; the module is
imported when the platform is first asked for (platform modules import nothing heavy, so
`harness --help` can list their local-service commands). Adding a
platform is one line here (and its subpackage): what it adds to harness beyond the contract (a
local-service command, blueprints of the task server, a door for simulated crowds, a run of
`harness demo`) its
`Capabilities` declare, and harness finds them here. `connect` is the one way to a provider.
"""

from __future__ import annotations

import importlib
import os
import threading
from typing import TYPE_CHECKING, Any

from harness.errors import InputError
from harness.platform.contract import DemoEntry, LocalCommand, Platform, Provider

if TYPE_CHECKING:  # the registry is imported by `harness validate`: no database stack
    from harness.store.studies import LaunchedStudy

PLATFORMS: dict[str, str] = {
    "mturk": "harness.providers.mturk.platform:MTURK",
    "link": "harness.providers.link.platform:LINK",
    "prolific": "harness.providers.prolific.platform:PROLIFIC",
}
"""Platform name -> "module:attribute" of its `Platform`."""

DEFAULT_PLATFORM = "mturk"
ARCHIVE_TARGET = "archive"
"""The target of a study imported from a platform's files (`harness.archives`): it keeps the
name of the platform it ran on, and there is nothing to connect to."""


def platform_named(name: str) -> Platform:
    """The platform called ``name``; `InputError` listing the known ones otherwise."""
    where = PLATFORMS.get(name)
    if where is None:
        known = ", ".join(sorted(PLATFORMS))
        raise InputError(f"unknown platform {name!r}; harness knows: {known}")
    platform: Platform = load(where)
    return platform


def load(where: str) -> Any:
    """What a ``"module:attribute"`` reference names, its module imported now."""
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute)


def platforms() -> list[Platform]:
    """Every registered platform (each module imported)."""
    return [platform_named(name) for name in PLATFORMS]


def local_commands() -> list[LocalCommand]:
    """The commands running the platforms' local services (`Capabilities.local_command`)."""
    found = (p.capabilities.local_command for p in platforms())
    return [command for command in found if command is not None]


def demos() -> list[DemoEntry]:
    """The runs of `harness demo` the platforms offer (`Capabilities.demo`), the default first."""
    found = (p.capabilities.demo for p in platforms())
    return sorted((demo for demo in found if demo is not None), key=lambda demo: demo.rank)


def blueprints() -> list[Any]:
    """The Flask blueprints the platforms add to the task server (`Capabilities.blueprints`)."""
    return [load(where) for p in platforms() for where in p.capabilities.blueprints]


def platform_of_target(target: str) -> Platform:
    """The platform whose targets include ``target``; `InputError` listing them otherwise."""
    for platform in platforms():
        if target in platform.targets:
            return platform
    known = ", ".join(t for p in platforms() for t in p.targets)
    raise InputError(f"unknown target {target!r}; expected one of {known}")


def resolve_target(
    spec_platform: str | None, spec_target: str | None, given: str | None
) -> tuple[Platform, str]:
    """The platform and target a launch uses.

    A target given on the command line wins and decides the platform (targets are unique
    across platforms), so one spec can run on several platforms. Otherwise the spec's target,
    else its platform's first target. A spec naming both a platform and a target of another
    platform is refused.
    """
    if given is not None:
        return platform_of_target(given), given
    if spec_target is not None:
        platform = platform_of_target(spec_target)
        if spec_platform is not None and spec_platform != platform.name:
            raise InputError(
                f"the spec's platform is {spec_platform!r} but its target {spec_target!r} "
                f"belongs to {platform.name!r}; change one of them"
            )
        return platform, spec_target
    platform = platform_named(spec_platform or DEFAULT_PLATFORM)
    return platform, platform.targets[0]


_PROVIDERS: dict[tuple[int, str, str, str | None], Provider] = {}
_LOCK = threading.Lock()


def connect(name: str, target: str, endpoint_url: str | None, *, shared: bool = False) -> Provider:
    """A provider for ``target`` of platform ``name``: the one way harness gets a provider
    (`Platform.connect` is the platform's half of it, called only here).

    A new connection each call, unless ``shared``: then the process's one per (platform,
    target, endpoint), made on first use, for a long-running process (the task server's
    verification, rechecks, hooks and after-submission work share it). Shared ones are kept
    per process id: a client made before a fork (its open connections) is never used by the
    forked process, which makes its own."""
    if target == ARCHIVE_TARGET:
        raise InputError(
            f"this study was imported from {name}'s files (target {ARCHIVE_TARGET}): there is no "
            "platform to ask; screen, characterize, export, status and the dashboard read it, "
            "and `harness launch SPEC --like STUDY` runs its instrument again"
        )
    if not shared:
        return platform_named(name).connect(target, endpoint_url)
    key = (os.getpid(), name, target, endpoint_url)
    with _LOCK:
        provider = _PROVIDERS.get(key)
        if provider is None:
            provider = _PROVIDERS[key] = platform_named(name).connect(target, endpoint_url)
    return provider


def provider_for(study: LaunchedStudy, *, shared: bool = False) -> Provider:
    """`connect` to the platform and target ``study`` was launched on (as its launch stored)."""
    return connect(
        study.platform.provider, study.target, study.platform.endpoint_url, shared=shared
    )
