"""The never-lose-work store: atomic records, content keys, --fresh, and a writer killed mid-way."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from scaleenv_mcp.generator.store import ResponseStore, content_key


def test_keys_depend_on_content_not_on_dict_order():
    assert content_key("a", {"x": 1, "y": [1, 2]}) == content_key("a", {"y": [1, 2], "x": 1})
    assert content_key("a", {"x": 1}) != content_key("a", {"x": 1.5})


def test_records_round_trip_and_fresh_ignores_what_was_stored(tmp_path: Path):
    store = ResponseStore(tmp_path)
    store.put("llm", "k1", {"text": "hello"})
    assert ResponseStore(tmp_path).get("llm", "k1") == {"text": "hello"}
    fresh = ResponseStore(tmp_path, fresh=True)
    assert fresh.get("llm", "k1") is None
    fresh.put("llm", "k1", {"text": "again"})
    assert fresh.get("llm", "k1") == {"text": "again"}  # its own work is kept and readable
    assert ResponseStore(tmp_path).get("llm", "k1") == {"text": "again"}


def test_a_damaged_record_counts_as_absent(tmp_path: Path):
    store = ResponseStore(tmp_path)
    store.put("llm", "k2", {"text": "x"})
    path = next((tmp_path / "llm").rglob("k2.json"))
    path.write_text('{"text": ')
    assert store.get("llm", "k2") is None


WRITER = """
import sys
from scaleenv_mcp.generator.store import ResponseStore
store = ResponseStore(sys.argv[1])
n = 0
while True:
    n += 1
    store.put("llm", "hot", {"n": n, "pad": "x" * 200_000})
"""


def test_a_writer_killed_at_any_moment_leaves_a_whole_record_or_none(tmp_path: Path):
    for delay in (0.3, 0.45, 0.6):
        process = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)])
        time.sleep(delay)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        record = ResponseStore(tmp_path).get("llm", "hot")
        assert record is None or (record["n"] >= 1 and len(record["pad"]) == 200_000)
        for file in (tmp_path / "llm").rglob("*.json"):
            json.loads(file.read_text())  # every visible record parses; temporaries are hidden dotfiles
