"""The raw baselines of episode creation: connect + ``deserialize`` of a start state's bytes, and the
same plus the schema read any first statement on the connection pays (#25 item 5).

Run as a script (``python bench/raw_sqlite.py FILE REPEAT raw|usable``) it measures in a process of its
own, as a worker holding its episodes is: measured in the bench's process, the baseline depended on what
that process had allocated and freed before (the first of two measurements paid for fresh memory, so
the plain deserialize once came out slower than deserialize + schema read). Only the standard library here.
"""

from __future__ import annotations

import sqlite3
import statistics
import sys
import time
from pathlib import Path


def raw_deserialize_ms(data: bytes, repeat: int = 200, usable: bool = False) -> float:
    """Median of connect + deserialize, keeping every copy alive as live episodes are (fresh memory each time).

    ``usable``: and the schema read that any first statement on the connection pays, which an episode
    pays when it opens."""
    times, alive = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        conn = sqlite3.connect(":memory:")
        conn.deserialize(data)
        if usable:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        times.append(time.perf_counter() - started)
        alive.append(conn)
    for conn in alive:
        conn.close()
    return statistics.median(times) * 1000


if __name__ == "__main__":
    print(raw_deserialize_ms(Path(sys.argv[1]).read_bytes(), int(sys.argv[2]), sys.argv[3] == "usable"))
