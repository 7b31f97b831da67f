"""The platforms harness can run studies on, by name: the one place a platform is registered.

Each entry names the module attribute holding the platform's `Platform` object; the module is
imported only when that platform is used, so naming every platform costs nothing. Adding a
platform is one line here (and its subpackage).
"""

from __future__ import annotations

import importlib
import os
import threading
from typing import TYPE_CHECKING

from harness.errors import InputError
from harness.platform.contract import Platform, Provider

if TYPE_CHECKING:  # the registry is imported by `harness validate`: no database stack
    from harness.store.studies import LaunchedStudy

PLATFORMS: dict[str, str] = {
    "mturk": "harness.providers.mturk.platform:MTURK",
    "link": "harness.providers.link.platform:LINK",
    "prolific": "harness.providers.prolific.platform:PROLIFIC",
}
"""Platform name -> "module:attribute" of its `Platform`."""

DEFAULT_PLATFORM = "mturk"


def platform_named(name: str) -> Platform:
    """The platform called ``name``; `InputError` listing the known ones otherwise."""
    where = PLATFORMS.get(name)
    if where is None:
        known = ", ".join(sorted(PLATFORMS))
        raise InputError(f"unknown platform {name!r}; harness knows: {known}")
    module, _, attribute = where.partition(":")
    platform: Platform = getattr(importlib.import_module(module), attribute)
    return platform


def platforms() -> list[Platform]:
    """Every registered platform (each module imported)."""
    return [platform_named(name) for name in PLATFORMS]


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


def connect(name: str, target: str, endpoint_url: str | None) -> Provider:
    """A provider for ``target`` of platform ``name`` (a new connection each call)."""
    return platform_named(name).connect(target, endpoint_url)


def provider_for(study: LaunchedStudy) -> Provider:
    """A provider for the platform and target ``study`` was launched on (as its launch stored)."""
    return connect(study.platform.provider, study.target, study.platform.endpoint_url)


def shared_provider(name: str, target: str, endpoint_url: str | None) -> Provider:
    """One provider per (platform, target, endpoint) for a long-running process (the task
    server's verification, rechecks and after-submission work share it), made on first use.
    Kept per process id: a client made before a fork (its open connections) is never used by
    the forked process, which makes its own."""
    key = (os.getpid(), name, target, endpoint_url)
    with _LOCK:
        provider = _PROVIDERS.get(key)
        if provider is None:
            provider = _PROVIDERS[key] = connect(name, target, endpoint_url)
    return provider
