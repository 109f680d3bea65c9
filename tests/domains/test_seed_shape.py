"""Every shipped domain's seed has the shape of a live deployment (docs/domain-quality.md).

Status-like columns declare their typical values and most rows hold them, free text is not
copied from row to row, and look-alikes differ by a real attribute, never by a marker suffix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.procedural.seed_shape import check_seed_shape

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (REPO / "domains").iterdir() if (p / "domain.json").is_file())


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_seed_looks_like_a_live_deployment(path: Path) -> None:
    package = load_domain(path)
    shape = check_seed_shape(package.manifest, package.seed)
    assert shape.statuses, "no status-like column was measured"
    assert shape.problems == []
