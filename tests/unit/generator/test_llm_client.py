"""The LLM client against a real loopback OpenAI-compatible server, through the real openai client.

Each test scripts a defect at the server (tests/support_llm_server.py) and checks the client
recovers the way the module docstring of generator/llm.py promises, or fails as it must.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.generator.backoff import LLMEndpointError, RetryBudget, RetryBudgetExhaustedError
from scaleenv_mcp.generator.drafts import DomainCard
from scaleenv_mcp.generator.llm import LLMClient, LLMOutputError
from scaleenv_mcp.generator.prompting import render_prompt
from scaleenv_mcp.generator.report import UsageLedger
from scaleenv_mcp.generator.roles import RoleSettings, RolesFile, resolve_roles
from scaleenv_mcp.generator.store import ResponseStore
from tests.support_llm_server import CARD, FakeLLM, Fault

pytestmark = pytest.mark.anyio


def _client(fake: FakeLLM, tmp_path: Path, *, budget: int = 5, structured: str | None = None,
            timeout: float = 10.0, max_repairs: int = 2) -> LLMClient:
    file = RolesFile(default=RoleSettings(structured=structured)) if structured else RolesFile()
    roles = resolve_roles(file, model="fake-model", base_url=fake.base_url, timeout=timeout)
    return LLMClient(roles, ResponseStore(tmp_path / "store"), RetryBudget(budget, base=0.01, seed=1),
                     max_repairs=max_repairs)


async def _card(client: LLMClient, ledger: UsageLedger | None = None) -> DomainCard:
    messages = render_prompt("domain_card", keyword="pet care", description="(none)")
    try:
        return await client.complete("domain_card", "card", messages, DomainCard, ledger or UsageLedger())
    finally:
        await client.aclose()


async def test_structured_output_parses_and_counts_tokens(fake: FakeLLM, tmp_path: Path):
    ledger = UsageLedger()
    assert (await _card(_client(fake, tmp_path), ledger)).title == CARD["title"]
    row = ledger.rows()[0]
    assert (row.stage, row.role, row.calls, row.stored_calls) == ("card", "domain_card", 1, 0)
    assert row.prompt_tokens > 0 and row.completion_tokens > 0


@pytest.mark.parametrize("kind", ["fence", "prose"])
async def test_fences_and_prose_need_no_round_trip(fake: FakeLLM, tmp_path: Path, kind: str):
    fake.faults = [Fault("domain_card", kind)]
    assert (await _card(_client(fake, tmp_path))).title == CARD["title"]
    assert len(fake.requests("domain_card")) == 1


@pytest.mark.parametrize("kind", ["missing_field", "bad_json"])
async def test_missing_fields_and_broken_json_are_repaired_by_asking_again(fake: FakeLLM, tmp_path: Path, kind: str):
    fake.faults = [Fault("domain_card", kind)]
    ledger = UsageLedger()
    assert (await _card(_client(fake, tmp_path), ledger)).title == CARD["title"]
    repair = fake.requests("domain_card")[-1]
    assert repair.kind == "repair" and ("title" in repair.user or "decode" in repair.user)
    assert ledger.rows()[0].repairs == 1


async def test_output_still_invalid_after_the_repairs_is_an_output_error(fake: FakeLLM, tmp_path: Path):
    fake.faults = [Fault("domain_card", "missing_field", times=5)]
    with pytest.raises(LLMOutputError, match="after 1 repair"):
        await _card(_client(fake, tmp_path, max_repairs=1))


async def test_truncation_is_retried_with_a_larger_budget_in_structured_mode(fake: FakeLLM, tmp_path: Path):
    fake.faults = [Fault("domain_card", "truncate")]
    ledger = UsageLedger()
    assert (await _card(_client(fake, tmp_path), ledger)).title == CARD["title"]
    assert [r.kind for r in fake.requests("domain_card")] == ["first", "first"]
    assert ledger.rows()[0].continuations == 1


async def test_an_endpoint_without_structured_output_gets_plain_json_and_continuations(fake: FakeLLM, tmp_path: Path):
    fake.reject_response_format = True
    fake.faults = [Fault("domain_card", "truncate")]
    ledger = UsageLedger()
    assert (await _card(_client(fake, tmp_path), ledger)).title == CARD["title"]
    assert [r.status for r in fake.requests("domain_card")] == ["400", "200", "200"]
    assert fake.requests("domain_card")[-1].kind == "continue"
    assert ledger.rows()[0].fallbacks == 1
    # remembered for the endpoint (in the store too): a new client goes straight to plain JSON
    fake.log.clear()
    assert (await _card(_client(fake, tmp_path / "other"), UsageLedger())).title == CARD["title"]
    await _card(_client(fake, tmp_path))
    assert [r.status for r in fake.requests("domain_card")] == ["400", "200"]


async def test_tool_mode_reads_the_forced_function_call(fake: FakeLLM, tmp_path: Path):
    assert (await _card(_client(fake, tmp_path, structured="tool"))).title == CARD["title"]


async def test_429_and_500_are_retried_within_the_budget(fake: FakeLLM, tmp_path: Path):
    """In plain mode (a structured 5xx is first tried in plain: tests/unit/generator/test_llm_servers.py)."""
    fake.faults = [Fault("domain_card", "http429"), Fault("domain_card", "http500")]
    ledger = UsageLedger()
    assert (await _card(_client(fake, tmp_path, structured="plain"), ledger)).title == CARD["title"]
    assert [r.status for r in fake.requests("domain_card")] == ["429", "500", "200"]
    assert ledger.rows()[0].retries == 2


async def test_a_slow_reply_times_out_and_is_retried(fake: FakeLLM, tmp_path: Path):
    fake.faults = [Fault("domain_card", "slow", seconds=3.0)]
    assert (await _card(_client(fake, tmp_path, timeout=0.5))).title == CARD["title"]
    assert [r.status for r in fake.requests("domain_card")] == ["slow", "200"]


async def test_an_endpoint_that_always_fails_exhausts_the_budget_with_a_clear_message(fake: FakeLLM, tmp_path: Path):
    fake.always_fail = 503
    with pytest.raises(RetryBudgetExhaustedError, match="HTTP 503") as caught:
        await _card(_client(fake, tmp_path, budget=3))
    # json_schema 503, the one plain try 503 (the endpoint, not the mode), then json_schema + 3 retries
    assert "--retry-budget 3" in caught.value.message and len(fake.requests()) == 6


async def test_an_unauthorised_request_is_not_retried(fake: FakeLLM, tmp_path: Path):
    fake.always_fail = 401
    with pytest.raises(LLMEndpointError, match="HTTP 401.*OPENAI_API_KEY"):
        await _card(_client(fake, tmp_path))
    assert len(fake.requests()) == 1


async def test_a_stored_answer_is_never_asked_for_again(fake: FakeLLM, tmp_path: Path):
    await _card(_client(fake, tmp_path))
    ledger = UsageLedger()
    assert (await _card(_client(fake, tmp_path), ledger)).title == CARD["title"]
    assert len(fake.requests()) == 1 and ledger.rows()[0].stored_calls == 1
