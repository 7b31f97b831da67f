"""The role an item (or one showing of it) plays in an instrument: a real item or a control.

docs/methods.md section 3. Controls are stored as items with a role and are left out of the
instrument's reported figures unless a figure is about the controls.
"""

from __future__ import annotations

from enum import StrEnum


class ItemRole(StrEnum):
    """What an item, or one showing of it, is for."""

    ITEM = "item"  # a real item of the instrument
    IDENTICAL = "identical"  # calibration pair whose two sides are the same (expected: scale max)
    REPEAT = "repeat"  # the second showing of an item to the same worker (intra-rater consistency)
    GOLD = "gold"  # an item with a designated answer (fixpoint)
    RANDOM_PAIR = "random_pair"  # two sides drawn from different items, expected unrelated
    CONTROL_GROUP = "control_group"  # member of a group a consistent worker treats alike
