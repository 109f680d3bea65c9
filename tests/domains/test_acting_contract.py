"""Every shipped domain acts for someone, proven through MCP on a seed episode.

For each domain: a wrong principal on each writing tool gets
``permission_denied`` and changes nothing; identification by natural keys finds exactly one
principal, and an ambiguous key is answered with a request for more, never a guess; a
principal that does not exist, a missing acting argument and a principal of the wrong kind
are each a clear tool error naming the argument, with nothing written.

The calls come from the domain's own tests.json (its seed-only cases), so the test follows
each domain's data instead of hard-coding ids here.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from scaleenv_mcp.domain.loader import DomainPackage, load_domain
from scaleenv_mcp.domain.manifest import ToolSpec
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.domain.cases import CaseOutcome, ToolCase
from scaleenv_mcp.procedural.validate import load_cases
from scaleenv_mcp.settings import HostSettings

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (REPO / "domains").iterdir() if (p / "domain.json").is_file())
# A small domain that keeps the contract, so the checks below are shown to pass on one that does.
FIXTURE = REPO / "tests" / "fixtures" / "acting_domains" / "lending_desk"

pytestmark = pytest.mark.anyio


@pytest.fixture(params=[*SHIPPED, FIXTURE], ids=lambda p: p.name)
def package(request: pytest.FixtureRequest) -> DomainPackage:
    return load_domain(request.param)


@pytest.fixture
async def host(package: DomainPackage, tmp_path: Path) -> AsyncIterator[Host]:
    # Validation is proven by test_shipped_domains (and for the fixture by tests/unit/procedural);
    # here only behaviour over MCP is under test.
    settings = HostSettings(workers=1, call_timeout=10.0, port=0, control_port=0, token_file=tmp_path / "token",
                            skip_validation=True)
    async with Host.running(settings, [package.path.parent], [package.slug]) as running:
        yield running


def _seed_cases(package: DomainPackage, tool: str) -> list[ToolCase]:
    return [c for c in load_cases(package) if c.tool == tool and c.fixture.base == "seed" and not c.fixture.rows]


def _text(result: Any) -> str:
    return result.content[0].text if result.content else ""


async def _refused(host: Host, package: DomainPackage, tool: str, arguments: dict[str, Any]) -> str:
    """Call on a fresh seed episode; the call must be an isError result that wrote nothing."""
    episode = await host.create_episode(package.slug)
    before = await host.registry.fingerprint(episode.id)
    async with host.client(episode.id) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} {arguments} succeeded: {result.structured_content}"
    assert await host.registry.fingerprint(episode.id) == before, f"{tool} {arguments} wrote although refused"
    return _text(result)


def test_every_shipped_domain_declares_principals_and_policy_only_rules(package: DomainPackage):
    manifest = package.manifest
    assert manifest.principals, "a shipped domain says who it acts for"
    assert len(manifest.policy_rules) >= 5
    assert all(t.acting and t.permission for t in manifest.tools if t.is_writing)


async def test_a_wrong_principal_is_denied_on_every_acting_tool_and_nothing_changes(host: Host,
                                                                                   package: DomainPackage):
    acting = [t for t in package.manifest.tools if t.acting and t.is_writing]
    assert acting
    uncovered = []
    for tool in acting:
        cases = [c for c in _seed_cases(package, tool.name) if c.expect.error == "permission_denied"]
        if not cases:
            uncovered.append(tool.name)
        for case in cases:
            text = await _refused(host, package, tool.name, case.arguments)
            assert text.startswith("permission_denied"), f"{case.name}: {text}"
    assert uncovered == [], "each writing tool needs a seed-only case with a wrong principal"


async def test_identification_by_natural_keys_finds_one_principal_and_asks_when_ambiguous(host: Host,
                                                                                        package: DomainPackage):
    for principal in package.manifest.principals:
        rows = package.seed[principal.table]
        keys = {row[principal.key] for row in rows}
        ambiguous = 0
        # Where two people share a value of some key (a name), a case must show the ask for more.
        shared = any(len({str(r.get(k)).lower() for r in rows}) < len(rows)
                     for path in principal.identify for k in path.keys if k in rows[0])
        for path in principal.identify:
            cases = _seed_cases(package, path.tool)
            found = [c for c in cases if c.expect.outcome is CaseOutcome.success and set(path.keys) <= set(c.arguments)]
            assert found, f"{principal.kind}: no seed-only case identifies by {path.keys}"
            episode = await host.create_episode(package.slug)
            async with host.client(episode.id) as client:
                for case in found:
                    result = await client.call_tool(path.tool, case.arguments)
                    assert not result.is_error, f"{case.name}: {_text(result)}"
                    named = _principal_ids(result.structured_content, principal.key)
                    assert len(named) == 1 and named <= keys, f"{case.name}: {named}"
            for case in cases:
                if case.expect.outcome is CaseOutcome.rejection and case.expect.error != "not_found":
                    text = await _refused(host, package, path.tool, case.arguments)
                    assert not text.startswith("not_found")
                    ambiguous += 1
        assert ambiguous or not shared, f"{principal.kind}: no case shows a shared key answered with a request for more"


def _principal_ids(result: dict[str, Any], key: str) -> set[Any]:
    """The principal ids a result names at its top level (or of its single item)."""
    if key in result:
        return {result[key]}
    items = result.get("items")
    if isinstance(items, list):
        return {item.get(key) for item in items if isinstance(item, dict)}
    nested = [v for v in result.values() if isinstance(v, dict) and key in v]
    return {v[key] for v in nested}


def _missing_id(pattern: str | None, existing: set[Any], sample: str) -> str | None:
    """An id of the principal's shape that names nobody."""
    candidate = re.sub(r"\d+$", lambda m: "9" * len(m.group()), sample)
    if candidate in existing or candidate == sample:
        return None
    if pattern and not re.search(pattern, candidate):
        return None
    return candidate


async def test_bad_principal_input_is_a_clear_error_naming_the_argument(host: Host, package: DomainPackage):
    manifest = package.manifest
    checked = 0
    for tool in (t for t in manifest.tools if t.acting):
        assert tool.acting is not None
        argument = tool.acting.argument
        cases = [c for c in _seed_cases(package, tool.name) if argument in c.arguments]
        if not cases:
            continue
        arguments = cases[0].arguments
        # a missing acting argument
        rest = {k: v for k, v in arguments.items() if k != argument}
        assert argument in await _refused(host, package, tool.name, rest)
        # a principal that does not exist
        existing = {row[manifest.principal(k).key] for k in tool.acting.kinds
                    for row in package.seed[manifest.principal(k).table]}
        missing = _missing_id(_pattern(tool, argument), existing, str(arguments[argument]))
        if missing:
            assert argument in await _refused(host, package, tool.name, {**arguments, argument: missing})
        # a principal of another kind
        for other in manifest.principals:
            if other.kind in tool.acting.kinds or other.table in {manifest.principal(k).table for k in tool.acting.kinds}:
                continue
            stranger = package.seed[other.table][0][other.key]
            assert argument in await _refused(host, package, tool.name, {**arguments, argument: stranger})
        checked += 1
    assert checked, "no acting tool had a seed-only case to vary"


def _pattern(tool: ToolSpec, argument: str) -> str | None:
    return tool.input_schema["properties"][argument].get("pattern")
