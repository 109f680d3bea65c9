"""SHA-256 fingerprint of a canonical state: equal states, equal fingerprints, on any machine.

Must not depend on dict order, hash seeds or float formatting: the dump is serialised with
sorted keys and rows ordered by primary key (tests/unit/state/test_fingerprint.py runs it
under two PYTHONHASHSEED values).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3

from scaleenv_mcp.state.canonical import CanonicalTable, dump_state

__all__ = ["fingerprint_dump", "fingerprint_state"]


def fingerprint_dump(dump: dict[str, CanonicalTable]) -> str:
    payload = {name: dump[name].to_json() for name in sorted(dump)}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprint_state(conn: sqlite3.Connection) -> str:
    return fingerprint_dump(dump_state(conn))
