"""An item's second showing to a worker within one assignment is a repeat, not a judgment of
the item: written so by the store, and read so from tables written before it was."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from harness.answer import Answer
from harness.roles import ItemRole
from harness.showings import mark_repeats, showing_roles


@dataclass(frozen=True)
class _Item:
    role: ItemRole


ITEMS = {
    "a": _Item(ItemRole.ITEM),
    "b": _Item(ItemRole.ITEM),
    "g": _Item(ItemRole.GOLD),
    "same": _Item(ItemRole.IDENTICAL),
}


def test_the_second_showing_of_an_item_is_a_repeat_and_the_first_keeps_the_items_role():
    answers = [
        Answer("a", 0, 1.0),
        Answer("same", 1, 10.0),
        Answer("b", 2, 4.0),
        Answer("a", 3, 2.0),
    ]
    assert showing_roles(answers, ITEMS) == ["item", "identical", "item", "repeat"]


def test_which_showing_is_second_goes_by_position_not_by_the_order_answers_arrive_in():
    answers = [Answer("a", 5, 2.0), Answer("b", 1, 4.0), Answer("a", 0, 1.0)]
    assert showing_roles(answers, ITEMS) == ["repeat", "item", "item"]


def test_a_repeated_gold_item_keeps_gold_on_its_first_showing():
    answers = [Answer("g", 0, 7.0), Answer("g", 4, 7.0)]
    assert showing_roles(answers, ITEMS) == ["gold", "repeat"]


def _old_store_table() -> pd.DataFrame:
    """Two assignments as stored before repeats had a role: both showings ``item`` (and an
    index that is not unique, as a concatenated table's may be)."""
    return pd.DataFrame(
        {
            "item_id": ["a", "b", "a", "a", "c"],
            "worker_id": ["w1", "w1", "w1", "w2", "w2"],
            "assignment_id": ["A1", "A1", "A1", "A2", "A2"],
            "position": [3, 1, 0, 0, 1],
            "value": [2.0, 4.0, 1.0, 5.0, 6.0],
            "role": ["item"] * 5,
        },
        index=[7, 7, 8, 9, 9],
    )


def test_a_table_written_before_marks_the_later_showing_by_position_as_the_repeat():
    marked = mark_repeats(_old_store_table())
    assert marked["role"].tolist() == ["repeat", "item", "item", "item", "item"]
    assert marked.index.tolist() == [7, 7, 8, 9, 9]
    assert marked["value"].tolist() == _old_store_table()["value"].tolist()


def test_the_same_item_in_two_assignments_of_one_worker_is_no_repeat():
    table = _old_store_table().assign(worker_id="w1")
    assert mark_repeats(table)["role"].tolist() == ["repeat", "item", "item", "item", "item"]


def test_a_table_already_marked_reads_the_same():
    marked = mark_repeats(_old_store_table())
    pd.testing.assert_frame_equal(mark_repeats(marked), marked)


def test_without_assignments_the_worker_is_the_unit():
    table = _old_store_table().drop(columns=["assignment_id", "position"])
    assert mark_repeats(table)["role"].tolist() == ["item", "item", "repeat", "item", "item"]


def test_a_table_without_roles_is_left_as_it_is():
    table = _old_store_table().drop(columns=["role"])
    assert mark_repeats(table) is table
