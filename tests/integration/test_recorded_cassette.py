"""The recorded pet_care run (generator/recordings/pet_care/, answered by a capable model through
``scaleenv relay``), replayed offline: every prompt and parser change is tested against real model
output, not only against the scripted test server.

The recording is partial (docs/generator.md, "What was recorded"): stages 1 to 4 whole and stage 5
for the first 9 of 30 tools. The replay must get that far with exactly the recorded outcomes, then
stop at the first request the cassette does not hold (the code of check_availability) with the
one-line cassette miss and exit 3. A prompt or parser change that alters any recorded request
makes the replay stop earlier, naming the role and stage whose prompt changed: re-record then.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio

from generator.cassette import Cassette
from generator.pipeline import generate
from generator.roles import RolesFile, resolve_roles
from generator.stages.context import GenerateSettings

RECORDING = Path(__file__).resolve().parents[2] / "generator" / "recordings" / "pet_care"

#: What the recorded tools did in stage 5: passed first time, after debug rounds, or dropped.
OUTCOMES = {"find_owner": (True, 0), "get_owner": (True, 0), "register_owner": (True, 0), "find_pets": (True, 1),
            "get_pet": (True, 0), "register_pet": (True, 0), "update_pet": (True, 0), "transfer_pet": (True, 0),
            "find_staff": (False, 4)}


def _outcomes(workdir: Path) -> dict[str, tuple[bool, int]]:
    found = {}
    for path in (workdir / "store" / "stage").rglob("*.json"):
        output = json.loads(path.read_text()).get("output")
        if isinstance(output, dict) and "outcome" in output:
            outcome = output["outcome"]
            found[outcome["tool"]] = (outcome["passed"], outcome["repair_rounds"])
    return found


def test_the_recorded_run_replays_offline_up_to_where_it_was_recorded(tmp_path):
    cassette = Cassette.open(RECORDING)
    assert cassette.meta.model == "claude-via-relay" and "Claude" in cassette.meta.answered_by
    settings = GenerateSettings(keyword="pet care", slug="pet_care", out=tmp_path / "out" / "pet_care",
                                workdir=tmp_path / "work", tool_count=30, table_count=6, rows_per_table=84,
                                tasks=200, concurrency=1)
    roles = resolve_roles(RolesFile(), model=cassette.meta.model, base_url=None)
    report, code = anyio.run(lambda: generate(settings, roles, replay=cassette))
    assert code == 3
    assert report.status == ("failed: the cassette " + str(RECORDING) + " holds no answer for a request (role code, "
                             "stage procedural, TOOL: check_availability): the prompts changed: re-record "
                             "(scaleenv relay --record, docs/generator.md)")
    assert cassette.hits == set(cassette.entries)  # every recorded answer was asked for, none twice-needed
    assert report.tables == 8 and report.seed_rows == 672 and report.db_repair_rounds == 0
    calls = {(r.stage, r.role): (r.calls, r.repairs) for r in report.usage}
    assert calls[("tools", "tool_schemas")] == (6, 1)  # one batch repaired: a reply that was not valid JSON
    assert calls[("seed", "seed_data")] == (24, 0) and calls[("procedural", "debug")] == (5, 0)
    assert _outcomes(settings.workdir) == OUTCOMES
    assert not settings.out.exists()
