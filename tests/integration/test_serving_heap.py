"""The serving process's garbage collector is set for serving once the host is up (scaleenv_mcp/host/heap.py, #25).

Read from inside a real `scaleenv serve` process: a ``sitecustomize`` on its path reports, as the
process exits after Ctrl-C, how many objects are frozen and the collector's thresholds."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from scaleenv_mcp.host.heap import YOUNG_THRESHOLD
from tests.support_processes import interrupt

DOMAINS = Path(__file__).resolve().parents[2] / "domains"

REPORTER = """
import atexit, gc, json, os, sys

def _report():
    if "serve" in sys.argv:
        with open(os.environ["HEAP_REPORT"], "w") as out:
            json.dump({"frozen": gc.get_freeze_count(), "threshold": gc.get_threshold()}, out)

atexit.register(_report)
"""


def test_scaleenv_serve_freezes_its_start_up_objects_and_raises_the_young_threshold(tmp_path: Path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(REPORTER)
    report = tmp_path / "heap.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), *filter(None, [os.environ.get("PYTHONPATH")])]),
           "HEAP_REPORT": str(report), "SCALEENV_STATE_DIR": str(tmp_path / "state")}
    host = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp", "serve", "--port", "0", "--no-control", "--workers", "1",
                             "--domains-dir", str(DOMAINS), "--domain", "smart_home", "--skip-validation"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        assert host.stderr is not None
        assert any(" online at " in line for line in host.stderr)
    finally:
        interrupt(host)
    settled = json.loads(report.read_text())
    assert settled["frozen"] > 10_000  # modules, classes, schemas, the app: tens of thousands of objects
    assert settled["threshold"][0] == YOUNG_THRESHOLD
    assert gc.get_threshold()[0] < YOUNG_THRESHOLD  # the test process keeps CPython's defaults: only serve settles
