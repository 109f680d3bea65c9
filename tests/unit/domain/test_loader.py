"""A broken package gets a precise error (file, field, reason) and is never half-served."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.errors import DomainError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    target = tmp_path / "tiny_library"
    shutil.copytree(FIXTURE, target)
    return target


def _edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_the_fixture_loads(package: Path):
    loaded = load_domain(package)
    assert loaded.slug == "tiny_library" and len(loaded.manifest.tools) == 6 and loaded.row_count() == 7


@pytest.mark.parametrize(("breakage", "file", "words"), [
    (lambda p: (p / "tools.py").unlink(), "tools.py", "missing"),
    (lambda p: (p / "domain.json").write_text("{ not json"), "domain.json", "not valid JSON"),
    (lambda p: _edit_json(p / "domain.json", lambda d: d.pop("clock")), "domain.json", "clock"),
    (lambda p: _edit_json(p / "domain.json", lambda d: d.update(slug="other")), "domain.json", "folder name"),
    (lambda p: _edit_json(p / "domain.json", lambda d: d["tools"][0].update(name="bad name!")), "domain.json", "tools.0.name"),
    (lambda p: _edit_json(p / "domain.json", lambda d: d["tools"][0]["input_schema"].update(type="array")), "domain.json", "object"),
    (lambda p: _edit_json(p / "domain.json", lambda d: d["tools"][0].update(writes=["nowhere"])), "domain.json", "unknown table"),
    (lambda p: (p / "schema.sql").write_text((p / "schema.sql").read_text().replace(") STRICT;", ");", 1)), "schema.sql", "STRICT"),
    (lambda p: (p / "schema.sql").write_text((p / "schema.sql").read_text().replace("email TEXT NOT NULL", "mail TEXT NOT NULL")), "schema.sql", "columns"),
    (lambda p: (p / "schema.sql").write_text((p / "schema.sql").read_text().replace("max_loans INTEGER", "max_loans REAL")), "schema.sql", "type REAL"),
    (lambda p: (p / "schema.sql").write_text("CREATE TABLE oops ("), "schema.sql", "does not execute"),
    (lambda p: _edit_json(p / "seed.json", lambda d: d["books"].append({**d["books"][0]})), "seed.json", "UNIQUE"),
    (lambda p: _edit_json(p / "seed.json", lambda d: d["loans"][0].update(member_id="MEM-77777")), "seed.json", "FOREIGN KEY"),
    (lambda p: _edit_json(p / "seed.json", lambda d: d["books"][0].update(copies_available=-1)), "seed.json", "CHECK"),
    (lambda p: _edit_json(p / "seed.json", lambda d: d["books"][0].update(colour="red")), "seed.json", "unknown columns"),
    (lambda p: (p / "tools.py").write_text((p / "tools.py").read_text().replace("def tally(ctx, upto: int)", "def tally(ctx, upto: int, extra: int)")), "tools.py", "parameters"),
    (lambda p: (p / "tools.py").write_text((p / "tools.py").read_text().replace("def return_book", "def give_back")), "tools.py", "return_book"),
    (lambda p: (p / "tools.py").write_text("def broken(:\n"), "tools.py", "syntax"),
])
def test_broken_package_names_file_and_reason(package: Path, breakage, file: str, words: str):
    breakage(package)
    with pytest.raises(DomainError) as caught:
        load_domain(package)
    assert caught.value.file.startswith(file) or file in caught.value.message
    assert words in caught.value.message


async def test_a_broken_domain_is_not_served_and_others_are(package: Path, tmp_path: Path, settings):
    from scaleenv_mcp.host.host import Host

    broken = tmp_path / "broken_copy"
    shutil.copytree(package, broken)
    _edit_json(broken / "domain.json", lambda d: d.update(slug="broken_copy", clock="yesterday"))
    async with Host.running(settings, [tmp_path]) as host:
        assert sorted(host.registry.domains) == ["tiny_library"]
        assert "clock" in host.load_errors["broken_copy"]


test_a_broken_domain_is_not_served_and_others_are = pytest.mark.anyio(test_a_broken_domain_is_not_served_and_others_are)


def test_load_domain_parses_tools_py_once(monkeypatch: pytest.MonkeyPatch):
    """Once per package, not once per tool: 39 parses of smart_home's tools.py were most of
    `scaleenv serve`'s start-up (#28). The policy check and every tool signature share one tree."""
    import ast

    from scaleenv_mcp.domain.catalog import find_domains

    parsed: list[object] = []
    real_parse = ast.parse

    def counting_parse(source, *args, **kwargs):
        parsed.append(source)
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting_parse)
    shipped = find_domains()
    path = shipped.get("smart_home") or next(iter(shipped.values()), FIXTURE)
    package = load_domain(path)
    assert len(package.manifest.tools) > 1
    assert parsed.count(package.tools_source) == 1, f"tools.py parsed {parsed.count(package.tools_source)} times"
    assert len(parsed) == 1
