"""Every shipped domain meets the bar of docs/domain-quality.md.

Parametrised over domains/*, so a new domain is checked the moment its folder exists.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import DomainPackage, load_domain

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (REPO / "domains").iterdir() if (p / "domain.json").is_file()) if (REPO / "domains").is_dir() else []

pytestmark = pytest.mark.skipif(not SHIPPED, reason="no shipped domains yet")


@pytest.fixture(scope="module", params=SHIPPED, ids=lambda p: p.name)
def package(request: pytest.FixtureRequest) -> DomainPackage:
    return load_domain(request.param)


def test_reference_provenance(package: DomainPackage):
    assert package.manifest.provenance.kind == "reference"


def test_tool_counts(package: DomainPackage):
    tools = package.manifest.tools
    assert len(tools) >= 30
    assert sum(1 for t in tools if t.writes) >= 12
    assert sum(1 for t in tools if len(t.writes) > 1) >= 3
    assert all(len(t.description) >= 60 for t in tools), "descriptions say what, when, formats and errors"


def test_data_size(package: DomainPackage):
    assert len(package.manifest.tables) >= 6
    for table in package.manifest.tables:
        assert len(package.seed.get(table.name, [])) >= 30, table.name
    assert package.row_count() >= 500


def test_every_writing_tool_declares_an_error(package: DomainPackage):
    assert [t.name for t in package.manifest.tools if t.writes and not t.raises] == []


def test_every_tool_has_an_example_call(package: DomainPackage):
    """`scaleenv tools DOMAIN TOOL` and the shell's `help TOOL` show an example for every tool (#28)."""
    from scaleenv_mcp.domain.tool_help import example_case

    assert [t.name for t in package.manifest.tools if example_case(package, t.name) is None] == []


def test_seed_script_reproduces_seed(package: DomainPackage, tmp_path: Path):
    import shutil
    import subprocess
    import sys

    script = package.path / "generate_seed.py"
    assert script.is_file(), "the seed is made by a deterministic script kept beside the package"
    copy = tmp_path / package.slug
    shutil.copytree(package.path, copy)
    (copy / "seed.json").unlink()
    subprocess.run([sys.executable, str(copy / "generate_seed.py")], cwd=copy, check=True, capture_output=True, timeout=120)
    assert (copy / "seed.json").read_bytes() == (package.path / "seed.json").read_bytes()


@pytest.mark.slow
@pytest.mark.anyio
async def test_validates_with_zero_unexpected_failures_and_strong_tests(package: DomainPackage):
    from scaleenv_mcp.procedural.validate import validate_domain

    report = await validate_domain(package.path, workers=2)
    assert report.findings == []
    assert [f.name for f in report.failures] == []
    assert report.mutation_score is not None and report.mutation_score >= 0.6


def test_dependency_graph_is_rich(package: DomainPackage):
    from scaleenv_mcp.generator.graph import build_graph

    stats = build_graph(package.manifest).stats
    assert stats.edges_by_type.get("data_flow", 0) >= 40
    assert stats.longest_data_flow_length >= 4


def test_tasks_are_verified_against_this_package_and_use_most_tools(package: DomainPackage):
    tasks = list(package.tasks.values())
    assert len(tasks) >= 200
    assert all(t.verified is not None and t.verified.result == "pass" for t in tasks)
    assert {t.verified.package_hash for t in tasks} == {package.content_hash}, "domain changed after verification"
    used = {a.tool for t in tasks for a in t.actions}
    assert len(used) >= 2 * len(package.manifest.tools) / 3
