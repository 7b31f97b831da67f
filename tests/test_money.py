"""`harness.money`: the one writer of amounts, in a study's currency, and what a person types."""

from __future__ import annotations

from decimal import Decimal

import pytest

from harness.money import money, symbol, typed_amount


@pytest.mark.parametrize(
    ("amount", "currency", "places", "written"),
    [
        (Decimal("0.75"), "USD", None, "$0.75"),
        (Decimal("0.75"), "GBP", None, "£0.75"),
        (Decimal("1000"), "GBP", 2, "£1,000.00"),
        (Decimal("0.005"), "USD", 2, "$0.01"),  # half-up, as the platforms round
        (0.3125, "GBP", 3, "£0.313"),  # a float figure (an arm's cost) to a tenth of a cent
        (Decimal("-1.5"), "GBP", 2, "-£1.50"),  # a budget overspent: the sign first
        (Decimal("0.75"), "EUR", None, "0.75 EUR"),  # a code without a symbol follows
    ],
)
def test_an_amount_is_written_in_its_currency(amount, currency, places, written):
    assert money(amount, currency, places) == written


def test_a_form_shows_the_symbol_or_else_the_code():
    assert (symbol("GBP"), symbol("USD"), symbol("EUR")) == ("£", "$", "EUR")


@pytest.mark.parametrize(
    ("typed", "bare"),
    [("£1.68", "1.68"), (" $1,000.00 ", "1000.00"), ("1.68 GBP", "1.68"), ("0.96", "0.96")],
)
def test_a_typed_amount_loses_its_symbol_code_and_grouping(typed, bare):
    assert typed_amount(typed) == bare
