"""`harness launch SPEC --like STUDY`: run a stored instrument again, elsewhere, unchanged.

The new study must measure with the very instrument STUDY did (the same instrument hash: the
same items, guidelines, scale, template, controls, qualifications, raters and screening), so
that `harness characterize --new NEW --original STUDY` compares like with like. What the hash
leaves out may change: the study's name, the platform and target, the reward, the HIT's
wording. A spec that differs, or that keeps STUDY's name, is refused before anything is posted.
"""

from __future__ import annotations

import sqlalchemy as sa

from harness.errors import InputError
from harness.platform.launch import StudyDraft
from harness.spec import short_hash
from harness.store.database import session_scope
from harness.store.studies import find_study, instrument_of


def check_like(engine: sa.Engine, like: str, study: StudyDraft) -> str:
    """The instrument hash ``study`` shares with the stored study ``like``; `InputError` when
    it runs another instrument, has arms, or would take ``like``'s name."""
    if study.arms is not None:
        raise InputError(f"--like {like}: a study with arms runs several instruments, not one")
    with session_scope(engine) as session:
        original = find_study(session, like)
        stored = instrument_of(session, original).hash
    new = study.loaded.instrument_hash
    if new != stored:
        raise InputError(
            f"--like {like}: this spec is instrument {short_hash(new)}, {like} ran "
            f"{short_hash(stored)}; only what the hash leaves out may change (name, platform, "
            "reward, HIT wording), see docs/task-spec.md"
        )
    if study.plan.study_name == like:
        raise InputError(
            f"--like {like}: the new study needs its own study.name (the spec says {like!r})"
        )
    return new
