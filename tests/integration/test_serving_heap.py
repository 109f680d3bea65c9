"""The serving process's garbage collector is set for serving once the host is up (scaleenv_mcp/host/heap.py, #25).

Read from inside a real `scaleenv serve` process: a ``sitecustomize`` on its path reports, as the
process exits after Ctrl-C, how many objects are frozen and the collector's thresholds."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

from scaleenv_mcp.host.heap import YOUNG_THRESHOLD
from tests.support_processes import scaleenv_serve

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
    path = os.pathsep.join([str(tmp_path / "site"), *filter(None, [os.environ.get("PYTHONPATH")])])
    with scaleenv_serve(DOMAINS, tmp_path, ["--domain", "smart_home", "--skip-validation"],
                        {"PYTHONPATH": path, "HEAP_REPORT": str(report)}):
        pass  # up: the banner came; leaving interrupts it, and its exit writes the report
    settled = json.loads(report.read_text())
    assert settled["frozen"] > 10_000  # modules, classes, schemas, the app: tens of thousands of objects
    assert settled["threshold"][0] == YOUNG_THRESHOLD
    assert gc.get_threshold()[0] < YOUNG_THRESHOLD  # the test process keeps CPython's defaults: only serve settles
