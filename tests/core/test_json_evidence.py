from __future__ import annotations

import json

import pytest

from favakit.contracts import EditRequest
from favakit.json_evidence import read_json_evidence

FLAT = {
    "listing_id": "RL-1", "type": "flat", "bedrooms": 2, "bathrooms": 1, "lift": False,
    "rent_per_month_gbp": 1150, "pets_allowed": False, "furnished": True,
    "available_from": "2027-01-15", "minimum_term_months": 12, "garden": None, "notes": [],
}  # fmt: skip


def statements(record: object) -> list[str]:
    said = read_json_evidence(json.dumps(record))
    assert said is not None
    return said.text.split("\n")


def test_a_record_is_said_one_statement_a_line() -> None:
    assert statements(FLAT) == [
        "Listing id: RL-1.",
        "Type: flat.",
        "2 bedrooms.",
        "1 bathroom.",  # a count of one is singular
        "No lift.",  # a thing the record says it lacks
        "Rent per month: £1,150.",  # the unit ending the key goes with the value
        "Pets not allowed.",
        "Furnished.",
        "Available from: 15 January 2027.",
        "Minimum term: 12 months.",
    ]  # null and an empty list say nothing


def test_keys_units_states_times_and_nesting() -> None:
    said = statements({
        "name": "The Copper Kettle", "review_count": 212, "stars": 4.5, "in_stock": False,
        "sold_out": False, "WheelchairAccessible": False, "OutdoorSeating": True,
        "hours": {"Monday": "closed", "Friday": "8:00-20:00", "Sunday": "9:30-14:00"},
        "attributes": {"WiFi": "free", "Alcohol": "beer_and_wine"}, "doors": "19:30",
        "price_gbp": 129.99, "weight_kg": 1.4, "lineup": ["Ann", "Bo", "Cy"],
    })  # fmt: skip
    assert said == [
        "Name: The Copper Kettle.",
        "212 reviews.",
        "4.5 stars.",
        "Not in stock.",
        "Not sold out.",
        "Not wheelchair accessible.",
        "Has outdoor seating.",
        "Hours Monday: closed.",  # a one-word key keeps its case
        "Hours Friday: 8 am to 8 pm.",
        "Hours Sunday: 9:30 am to 2 pm.",
        "WiFi: free.",  # "attributes" names nothing; "WiFi" kept as written
        "Alcohol: beer and wine.",
        "Doors: 7:30 pm.",
        "Price: £129.99.",
        "Weight: 1.4 kg.",
        "Lineup: Ann, Bo and Cy.",
    ]


def test_records_printed_by_python_and_yelp_s_quoted_values() -> None:
    said = read_json_evidence(
        "{'name': 'Subway', 'attributes': {'RestaurantsTakeOut': 'True', 'WiFi': \"u'no'\", "
        "'BusinessParking': \"{'garage': False, 'lot': True}\", 'Ambience': 'None'}}"
    )
    assert said is not None
    assert said.text.split("\n") == [
        "Name: Subway.", "Restaurants take out.", "WiFi: no.", "No business parking garage.",
        "Has business parking lot.",
    ]  # fmt: skip
    assert said.title == "Subway"


def test_yelp_s_hours_and_a_list_of_reviews() -> None:
    said = statements({
        "name": "Pizza Hut", "hours": {"Monday": "11:0-21:30"},
        "review_info": [{"review_date": "2021-06-01 12:34:56", "review_text": "Great crust."}],
    })  # fmt: skip
    assert said == [
        "Name: Pizza Hut.",
        "Hours Monday: 11 am to 9:30 pm.",  # minutes in one digit, as Yelp writes them
        "Review date: 1 June 2021, 12:34 pm.",  # "review_info review date": said once
        "Review text: Great crust.",
    ]


def test_a_list_of_records_and_what_is_not_a_record() -> None:
    said = read_json_evidence('[{"room": "A1", "seats": 30}, {"room": "B2", "seats": 12}]')
    assert said is not None
    assert said.text.split("\n") == ["Room: A1.", "30 seats.", "Room: B2.", "12 seats."]
    assert said.title == ""  # several records: no one name
    for text in ("Marie Curie was born in Warsaw.", "[1, 2, 3]", '"a string"', "{not json",
                 "{}", "[]", "  "):  # fmt: skip
        assert read_json_evidence(text) is None


def test_a_request_s_json_evidence_is_read_as_statements_and_titled() -> None:
    row = {"text": "The flat has a lift.",
           "evidence": [json.dumps({"name": "Orchard Flat", "lift": False}), "Plain prose."]}  # fmt: skip
    request = EditRequest.from_obj(row)
    assert request.evidence is not None
    first, second = request.evidence
    assert (first.text, first.title) == ("Name: Orchard Flat.\nNo lift.", "Orchard Flat")
    assert (second.text, second.title) == ("Plain prose.", "")
    titled = EditRequest.from_obj(
        {"text": "x", "evidence": [{"title": "Mine", "text": '{"lift": true}'}]}
    )
    assert titled.evidence is not None
    assert (titled.evidence[0].text, titled.evidence[0].title) == ("Has lift.", "Mine")


@pytest.mark.parametrize(
    "clock,said", [("0:00", "12 am"), ("12:00", "12 pm"), ("23:45", "11:45 pm")]
)
def test_the_twelve_hour_clock(clock: str, said: str) -> None:
    assert statements({"at": clock}) == [f"At: {said}."]


def test_units_only_with_numbers_per_and_a_container_s_unit() -> None:
    assert statements({
        "check_out": "11:00",  # "out" is no unit of a time ("in" none of a "check_in")
        "ram_gb": 8, "storage_options_gb": [128, 256],
        "nearby_car_park_gbp_per_day": 8, "salary_gbp": {"min": 65000, "max": 75000},
        "calories_per_serving": 420, "rating": {"average": 4.6, "votes": 58},
        "review": {"count": 86},
        "vegan": False, "gluten_free": False,
    }) == [
        "Check out: 11 am.",
        "Ram: 8 GB.",
        "Storage options: 128 GB and 256 GB.",
        "Nearby car park: £8 per day.",
        "Salary min: £65,000.",
        "Salary max: £75,000.",
        "420 calories per serving.",
        "Rating average: 4.6.",
        "Rating: 58 votes.",  # a count under its container's name
        "86 reviews.",
        "Not vegan.",
        "Not gluten free.",
    ]  # fmt: skip
