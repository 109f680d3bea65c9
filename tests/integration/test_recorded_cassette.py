"""The recorded pet_care run (generator/recordings/pet_care/, answered by a capable model through
``scaleenv relay``), replayed offline: every prompt and parser change is tested against real model
output, not only against the scripted test server.

The recording is partial (docs/generator.md, "What was recorded"): stages 1 to 6 and the
validation of the whole package (8a), not the tasks of stage 7. The replay must get that far with
exactly the recorded outcomes (30 tools, 26 passing first time, 4 after one debug round; 156 cases,
mutation score 0.88), then stop at the first request of stage 7, which the cassette does not hold,
with the one-line cassette miss and exit 3 (about 15 seconds: the validation runs for real). A prompt or parser change that alters any recorded request
makes the replay stop earlier, naming the role and stage whose prompt changed: re-record then.
"""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.generator.cassette import Cassette
from scaleenv_mcp.generator.pipeline import generate
from scaleenv_mcp.generator.roles import RolesFile, resolve_roles
from scaleenv_mcp.generator.stages.context import GenerateSettings

RECORDING = Path(__file__).resolve().parents[2] / "generator" / "recordings" / "pet_care"

#: The tools that needed a debug round (every other one passed on its first try).
REPAIRED = {"book_appointment", "close_appointment", "find_pets", "record_vaccination"}


@pytest.mark.slow  # about 15 s on 2 cores: the validation runs for real
def test_the_recorded_run_replays_offline_up_to_where_it_was_recorded(tmp_path):
    cassette = Cassette.open(RECORDING)
    assert cassette.meta.model == "claude-via-relay" and "Claude" in cassette.meta.answered_by
    settings = GenerateSettings(keyword="pet care", slug="pet_care", out=tmp_path / "out" / "pet_care",
                                workdir=tmp_path / "work", tool_count=30, table_count=6, rows_per_table=84,
                                # 20 tasks, not the recording's 200: no request before stage 7 depends on
                                # the number (every recorded answer is still asked for), and stage 7 builds
                                # its candidates for it before its first request
                                tasks=20, concurrency=1)
    roles = resolve_roles(RolesFile(), model=cassette.meta.model, base_url=None)
    report, code = anyio.run(lambda: generate(settings, roles, replay=cassette))
    assert code == 3
    # which stage-7 role asks first depends on scheduling; the stage and the advice do not
    assert re.fullmatch(re.escape(f"failed: the cassette {RECORDING} holds no answer for a request (role ")
                        + r"(chain_writer|task_writer|expansion_gate), stage tasks\): the prompts changed: re-record "
                        + re.escape("(scaleenv relay --record, docs/generator.md)"), report.status), report.status
    assert cassette.hits == set(cassette.entries)  # every recorded answer was asked for
    assert report.tables == 8 and report.seed_rows == 672 and report.db_repair_rounds == 0
    calls = {(r.stage, r.role): (r.calls, r.repairs) for r in report.usage}
    assert calls[("tools", "tool_schemas")] == (6, 1)  # one batch repaired: a reply that was not valid JSON
    assert calls[("seed", "seed_data")] == (24, 0) and calls[("graph", "graph_edges")] == (14, 0)
    assert [t.tool for t in report.tools if not t.passed] == []
    assert {t.tool for t in report.tools if not t.first_try} == REPAIRED
    assert all(t.repair_rounds == 1 for t in report.tools if t.tool in REPAIRED)
    assert report.validation is not None and report.validation.passed and report.validation.cases == 156
    assert report.validation.unexpected_failures == 0 and report.validation.mutation_score >= 0.85
    assert report.llm_edges_added == 2
    assert not settings.out.exists()
