"""The communicate evaluator: values are hard, wording is free."""

from __future__ import annotations

from datetime import date

import pytest

from scaleenv_mcp.state.communicate import check_communication, fact_tokens

TODAY = date(2026, 5, 12)


@pytest.mark.parametrize(("fact", "message"), [
    ("2026-05-14", "Your appointment is on 14 May 2026 at 10:00."),
    ("2026-05-14", "It's booked for May 14th, 2026."),
    ("2026-05-14", "You're seeing her on May 14."),
    ("2026-05-14", "Date: 14/05/2026"),
    ("USD 12.50", "The refund is $12.50."),
    ("1250", "That comes to 1,250 in total."),
    ("3 parcels", "There are three parcels in that shipment."),
    ("Dr Ana Ruiz", "Your clinician is Ana Ruiz."),
    ("DS-101", "The course code is ds-101."),
])
def test_a_fact_said_in_other_words_is_found(fact: str, message: str):
    assert check_communication([fact], ["Hello.", message], today=TODAY).complete


@pytest.mark.parametrize(("fact", "message"), [
    ("2026-05-14", "Your appointment is on 15 May 2026."),
    ("2026-05-14", "It was on May 14, 2025."),
    ("USD 12.50", "The refund is $125."),
    ("USD 12.50", "The refund is $12.05."),
    ("3 parcels", "There are 4 parcels."),
    ("Dr Ana Ruiz", "Your clinician is Ana Ortiz."),
])
def test_a_changed_value_is_missing(fact: str, message: str):
    report = check_communication([fact], [message], today=TODAY)
    assert report.missing == [fact] and report.found == []


def test_every_fact_must_be_in_one_message_of_its_own_tokens():
    report = check_communication(["Ana Ruiz", "2026-05-14"], ["Ana is booked.", "Ruiz, May 14."], today=TODAY)
    assert report.found == ["2026-05-14"] and report.missing == ["Ana Ruiz"]


def test_nothing_said_finds_nothing():
    report = check_communication(["42"], [], today=TODAY)
    assert not report.complete


def test_tokens_normalise_dates_numbers_and_currency():
    assert fact_tokens("Paid $1,200.50 on 3 March 2026, twelve items", TODAY) == [
        "paid", "1200.5", "2026-03-03", "12", "items"]


def test_a_fact_in_cents_is_found_when_the_message_says_it_as_money():
    assert check_communication(["98175"], ["Your shares cost $981.75 in total."], today=TODAY).complete
    assert check_communication(["1200"], ["That is 12 USD."], today=TODAY).complete
    assert check_communication(["98175"], ["That's 98,175 cents."], today=TODAY).complete
    assert not check_communication(["98175"], ["Your shares cost $981.70 in total."], today=TODAY).complete
    assert not check_communication(["98175"], ["You hold 981.75 shares."], today=TODAY).complete  # no money, no cents


@pytest.mark.parametrize(("fact", "message"), [
    ("2026-05-12", "Your pickup is today, so the courier is already on the way."),
    ("2026-05-13", "The interview is tomorrow at 9:00."),
    ("2026-05-11", "That order was placed yesterday."),
    ("2026-05-13", "It starts 2026-05-13T09:00:00."),
    ("75000", "The approved amount is EUR 750, above the limit."),
    ("12500", "Refunds above USD 125.00 need a manager."),
])
def test_relative_days_timestamps_and_codes_before_amounts(fact: str, message: str):
    assert check_communication([fact], [message], today=TODAY).complete


def test_relative_days_are_the_clocks_not_any_day():
    assert not check_communication(["2026-05-14"], ["Your pickup is tomorrow."], today=TODAY).complete
    assert fact_tokens("due today", TODAY) == ["due", "2026-05-12"]


@pytest.mark.parametrize(("fact", "message"), [
    ("2026-04-18T03:00:00", "It is scheduled for April 18 at 3:00 am."),
    ("2026-04-18T15:30:00", "It is scheduled for April 18 at 3:30pm."),
    ("2026-04-18T15:30:00", "April 18, 3.30 p.m."),
    ("2026-04-18T15:30:00", "April 18 at 3:30."),  # no am/pm: either reading
    ("2026-01-23T09:50:51", "You placed it on 23 January 2026 at 09:50."),
])
def test_a_timestamp_is_its_date_and_its_time_of_day(fact: str, message: str):
    assert check_communication([fact], [message], today=TODAY).complete


def test_a_wrong_time_or_half_of_the_day_is_missing():
    assert not check_communication(["2026-04-18T15:30:00"], ["April 18 at 3:30 am."], today=TODAY).complete
    assert not check_communication(["2026-04-18T15:30:00"], ["April 18 at 4:30."], today=TODAY).complete
    assert fact_tokens("The price is $9.50", TODAY) == ["price", "9.5"]  # an amount, not a time
