"""The generator's LLM client against each common server's behaviour (tests/support_server_profiles.py).

Issue #31: llama-cpp-python answers json_schema with HTTP 500 (not 400), so the fallback to
plain never fired and the retry budget was spent; a forced tool call cut at max_tokens came
back as finish_reason "tool_calls", so the truncation was blamed on the schema. Here, per
profile and structured mode, over real HTTP: a structured 5xx is tried once in plain mode
before the budget and the warning names ``structured = "plain"``; a cut reply is found from
its token count in every mode, whatever finish_reason says.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.generator.backoff import RetryBudget
from scaleenv_mcp.generator.drafts import DomainCard
from scaleenv_mcp.generator.llm import LLMClient, LLMOutputError
from scaleenv_mcp.generator.prompting import render_prompt
from scaleenv_mcp.generator.report import UsageLedger
from scaleenv_mcp.generator.roles import RoleSettings, RolesFile, resolve_roles
from scaleenv_mcp.generator.store import ResponseStore
from tests.support_llm_server import CARD, FakeLLM, Fault
from tests.support_server_profiles import PROFILES, ServerProfile

pytestmark = pytest.mark.anyio


def _client(fake: FakeLLM, tmp_path: Path, structured: str, budget: int = 0, max_tokens: int | None = None) -> LLMClient:
    file = RolesFile(default=RoleSettings(structured=structured, max_tokens=max_tokens))
    roles = resolve_roles(file, model="fake-model", base_url=fake.base_url, timeout=10.0)
    return LLMClient(roles, ResponseStore(tmp_path / "store"), RetryBudget(budget, base=0.01, seed=1))


async def _card(client: LLMClient, ledger: UsageLedger) -> DomainCard:
    try:
        return await client.complete("domain_card", "card", render_prompt("domain_card", keyword="pet care",
                                                                          description="(none)"), DomainCard, ledger)
    finally:
        await client.aclose()


@pytest.mark.parametrize("profile", sorted(PROFILES))
async def test_a_5xx_on_json_schema_is_tried_in_plain_mode_before_the_budget(fake: FakeLLM, tmp_path: Path,
                                                                             profile: str):
    # Each profile with its json_schema support broken the way llama-cpp-python breaks it.
    fake.profile = ServerProfile(**{**PROFILES[profile].__dict__, "json_schema_status": 500})
    ledger = UsageLedger()
    client = _client(fake, tmp_path, "auto")  # budget 0: a retry would fail the call
    assert (await _card(client, ledger)).title == CARD["title"]
    assert [r.status for r in fake.requests("domain_card")] == ["500", "200"]
    assert ledger.rows()[0].fallbacks == 1 and ledger.rows()[0].retries == 0
    assert len(client.warnings) == 1 and 'structured = "plain"' in client.warnings[0]
    # remembered for the endpoint (in the store): the next client goes to plain mode at once, whose
    # answer is stored, so it asks nothing (in json_schema mode it would have met the 500 again)
    fake.log.clear()
    assert (await _card(_client(fake, tmp_path, "auto"), UsageLedger())).title == CARD["title"]
    assert fake.requests("domain_card") == []


@pytest.mark.parametrize("status", [500, 400])
@pytest.mark.parametrize("profile", sorted(PROFILES))
async def test_tool_mode_refused_falls_to_the_next_structured_mode_before_the_budget(fake: FakeLLM, tmp_path: Path,
                                                                                    profile: str, status: int):
    """structured = "tool" on a server that takes no tools (llama-server without --jinja: 500; a gateway:
    400): json_schema is tried once (then plain, where json_schema fails too, as on llama.cpp), nothing
    counts against the budget, and the next call starts in the mode that worked."""
    fake.profile = ServerProfile(**{**PROFILES[profile].__dict__, "tools_status": status})
    ledger = UsageLedger()
    client = _client(fake, tmp_path, "tool")  # budget 0: a retry would fail the call
    settled = "plain" if PROFILES[profile].json_schema_status else "json_schema"
    try:
        for _ in range(2):
            card = await client.complete("domain_card", "card", render_prompt(
                "domain_card", keyword="pet care", description="(none)"), DomainCard, ledger)
            assert card.title == CARD["title"]
    finally:
        await client.aclose()
    statuses = [r.status for r in fake.requests("domain_card")]
    expected = [str(status), *(["500"] if settled == "plain" else []), "200"]
    assert statuses == expected  # the second call was answered from the store, in the settled mode
    row = ledger.rows()[0]
    assert row.retries == 0 and row.fallbacks == len(expected) - 1
    assert any('structured = "json_schema"' in w and "(tool)" in w for w in client.warnings)


@pytest.mark.parametrize("cut", ["cut", "cut_no_usage"])
@pytest.mark.parametrize("mode", ["json_schema", "tool", "plain"])
@pytest.mark.parametrize("profile", sorted(PROFILES))
async def test_a_reply_cut_at_max_tokens_is_detected_in_every_mode(fake: FakeLLM, tmp_path: Path, profile: str,
                                                                   mode: str, cut: str):
    """The server says "stop" (or "tool_calls") for a cut reply: only the token count tells, or, when the
    server reports no usage, the JSON that never closes (the call's text, where SGLang's parser gave up)."""
    fake.profile = PROFILES[profile]
    fake.faults = [Fault("domain_card", cut)]
    ledger = UsageLedger()
    assert (await _card(_client(fake, tmp_path, mode, budget=2), ledger)).title == CARD["title"]
    row = ledger.rows()[0]
    assert row.continuations == 1 and row.repairs == 0  # continued or asked with twice the budget, never "repaired"
    served = [r for r in fake.requests("domain_card") if r.status == "200"]
    assert len(served) == 2 and (served[-1].kind == "continue") == (row.fallbacks > 0 or mode == "plain")


@pytest.mark.parametrize("profile", sorted(PROFILES))
async def test_a_reply_always_cut_blames_max_tokens_not_the_schema(fake: FakeLLM, tmp_path: Path, profile: str):
    fake.profile = PROFILES[profile]
    fake.faults = [Fault("domain_card", "cut", times=10)]
    with pytest.raises(LLMOutputError, match="cut off at max_tokens 400.*raise max_tokens"):
        await _card(_client(fake, tmp_path, "tool", budget=2, max_tokens=100), UsageLedger())
