"""Every repository path that code, docs and configuration cite exists, and none cites a path outside
the repository: a comment saying "tests/unit/state/test_reward.py guards this" must point at a test
that is there."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ROOTS = ("scaleenv_mcp", "generator", "verifier", "clients", "bench", "tests", "docs", ".ci")
CITED = re.compile(r"(?<![\w./-])((?:scaleenv_mcp|generator|verifier|clients|bench|tests|docs|domains)/[\w./-]*\w\.(?:py|md|json|jsonl|toml|sql|mjs))")
# design notes and work folders outside the checkout (a user's ~/.scaleenv/ is a runtime path, not a citation)
OUTSIDE = re.compile(r"(?<![\w.])(?:/work/[\w.-]+/|[\w/.-]*\b(?:DESIGN|STYLE)\.md)")
SYNTHETIC = {  # files that build paths on purpose, and citations that are not of this repository
    "tests/contract/test_references.py", "tests/contract/test_import_layers.py",
}
NOT_OURS = {
    "domains/shop/tools.py",  # a file name the policy tests pass to the checker; no such domain
    "docs/openai.md",  # docs/model-servers.md cites it "of the Ollama repository"
}


def _texts() -> list[tuple[Path, str]]:
    files = [REPO / "README.md", REPO / "BENCHMARKS.md", REPO / "pyproject.toml"]
    for root in ROOTS:
        files += [p for p in (REPO / root).rglob("*") if p.suffix in (".py", ".md", ".toml", "") and p.is_file()
                  and "node_modules" not in p.parts and "fixtures" not in p.parts]
    return [(p, p.read_text(errors="replace")) for p in files]


def cited_paths(text: str) -> set[str]:
    return {m.rstrip(".") for m in CITED.findall(text)}


def test_cited_paths_exist():
    missing = sorted({f"{path.relative_to(REPO)} cites {cited}" for path, text in _texts()
                      if str(path.relative_to(REPO)) not in SYNTHETIC
                      for cited in cited_paths(text) - NOT_OURS if not (REPO / cited).exists()})
    assert missing == []


def test_nothing_points_outside_the_repository():
    found = sorted(f"{path.relative_to(REPO)}: {m.group(0)}" for path, text in _texts()
                   if str(path.relative_to(REPO)) not in SYNTHETIC for m in OUTSIDE.finditer(text))
    assert found == []


def test_a_stale_reference_would_be_caught():
    assert cited_paths("guarded by tests/unit/state/test_reward.py and tests/unit/nowhere/test_gone.py.") == {
        "tests/unit/state/test_reward.py", "tests/unit/nowhere/test_gone.py"}
    assert not (REPO / "tests/unit/nowhere/test_gone.py").exists()
    assert OUTSIDE.search("see /work/shared/DESIGN.md") is not None
