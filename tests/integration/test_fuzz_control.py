"""The control API fuzzed from its own OpenAPI document (issue #29 item 6), a short seeded run that stays.

Schemathesis reads ``/openapi.json`` of a real ``scaleenv serve`` (fixture domain, loopback) and
generates requests for every operation from it: valid ones (positive) and ones that break the
schema (negative: wrong types, missing fields, bodies that are not the declared model). Path
parameters are, half the time, the id of a live episode or snapshot, so the operations reach the
host's code and not only its 404. Every answer must be: no 5xx, a status the document declares,
the declared content type, a body that matches the declared schema (the error shape included), and
for a request that breaks the schema a 4xx. Larger runs: ``-m long`` (``LONG``, 3,000 examples: a sweep,
out of the full run).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from scaleenv_mcp.soak.served import ServedHost
from scaleenv_mcp.tls import shared_ssl_context

# one worker runs the whole module under pytest -n, so its module-scoped fixture is built once (#26)
pytestmark = pytest.mark.xdist_group("fuzz_control")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "domains"
SHORT = settings(max_examples=150, derandomize=True, deadline=None, database=None,
                 suppress_health_check=list(HealthCheck))
LONG = settings(SHORT, max_examples=3000)
# An imported episode file is raw bytes (application/zip): sent as schemathesis sends any binary body.
schemathesis.serializer.alias("application/zip", "application/octet-stream")
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


class _Target:
    """A served host, its control API's schema, and live ids to put into path parameters."""

    def __init__(self, served: ServedHost) -> None:
        self.served = served
        self.headers = {"authorization": f"Bearer {served.token}"}
        self.schema = schemathesis.openapi.from_url(f"{served.control_url}/openapi.json")
        self.ids: dict[str, list[str]] = {"id": [], "slug": ["tiny_library"], "key": ["k1"]}  # id: [episode, snapshot]

    def refill(self) -> None:
        """A live episode and snapshot of the fixture domain (a fuzzed DELETE may have closed the last ones)."""
        with httpx.Client(base_url=self.served.control_url, headers=self.headers, timeout=60,
                          verify=shared_ssl_context()) as http:
            episode = http.post("/episodes", json={"domain": "tiny_library"}).json()["episodes"][0]["id"]
            snapshot = http.post(f"/episodes/{episode}/snapshot", json={}).json()["snapshot_id"]
        self.ids["id"] = [episode, snapshot]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Target]:
    domains_dir = tmp_path_factory.mktemp("domains")
    (domains_dir / "tiny_library").symlink_to(FIXTURES / "tiny_library")
    with ServedHost(domains_dir, tmp_path_factory.mktemp("state"), skip_validation=True) as served:
        yield _Target(served)
        assert served.process is not None and served.process.poll() is None, "the host crashed"


def _case(target: _Target, data: st.DataObject, mode: GenerationMode) -> Any:
    """A generated request, with the token (auth has tests of its own); a valid one gets, half the
    time, real ids and the served domain in place of generated ones: else nearly all end at a 404."""
    case = data.draw(target.schema.as_strategy(generation_mode=mode))
    case.headers = {**(case.headers or {}), **target.headers}
    if mode is GenerationMode.NEGATIVE:  # a real id or domain could make the broken part valid again
        return case
    for name in list(case.path_parameters or {}):
        if name in target.ids and data.draw(st.booleans()):
            snapshot = name == "id" and case.operation.path.startswith("/snapshots")
            case.path_parameters[name] = target.ids[name][int(snapshot)] if name == "id" else \
                data.draw(st.sampled_from(target.ids[name]))
    if isinstance(case.body, dict) and "domain" in case.body and data.draw(st.booleans()):
        case.body["domain"] = "tiny_library"
        if "task_id" in case.body:
            case.body["task_id"] = data.draw(st.sampled_from([None, case.body["task_id"]]))
    return case


def _run(target: _Target, data: st.DataObject, mode: GenerationMode) -> None:
    refill = data.draw(st.integers(0, 3)) == 0  # drawn every time: hypothesis needs the same draws on a rerun
    if refill or not target.ids["id"]:
        target.refill()
    case = _case(target, data, mode)
    response = case.call(base_url=target.served.control_url, headers=target.headers, timeout=60)
    checks = CHECKS + ([negative_data_rejection] if mode is GenerationMode.NEGATIVE else [])
    case.validate_response(response, checks=checks, headers=target.headers)


def test_schema_lists_every_operation(target: _Target) -> None:
    """The fuzz reaches every documented operation (a route missing from the document is not fuzzed)."""
    operations = {op.ok().label for op in target.schema.get_all_operations()}
    assert len(operations) >= 22 and "POST /episodes" in operations and "DELETE /snapshots/{id}" in operations


@SHORT
@given(data=st.data())
def test_valid_requests_answer_as_documented(target: _Target, data: st.DataObject) -> None:
    _run(target, data, GenerationMode.POSITIVE)


@SHORT
@given(data=st.data())
def test_invalid_requests_are_refused_as_documented(target: _Target, data: st.DataObject) -> None:
    _run(target, data, GenerationMode.NEGATIVE)


@pytest.mark.slow
@pytest.mark.long
@LONG
@given(data=st.data())
def test_long_fuzz(target: _Target, data: st.DataObject) -> None:
    _run(target, data, data.draw(st.sampled_from([GenerationMode.POSITIVE, GenerationMode.NEGATIVE])))
