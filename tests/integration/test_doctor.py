"""``scaleenv doctor`` against the loopback server in each server profile, and against nothing.

The verdicts must be those docs/model-servers.md gives for each server (tests/support_server_profiles.py
holds the behaviours), the roles-file lines must pick the structured mode that works, and a
port with nothing listening is one line naming the URL, exit 3.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.eval_llm_server import GENERIC, serve_llm

#: profile -> probes that must fail there (every other probe passes)
EXPECTED_FAILURES = {
    "openai": set(),
    "vllm": {"history arguments not JSON"},
    "sglang": {"history arguments not JSON"},
    "ollama": {"structured tool (forced call)"},
    "llama.cpp": {"tools, no tool_choice", "assistant content null", "structured json_schema",
                  "schema pattern (json_schema)", "schema pattern (tools)"},
}
STRUCTURED = {"openai": "auto", "vllm": "auto", "sglang": "auto", "ollama": "auto", "llama.cpp": "plain"}


def _doctor(base_url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scaleenv_mcp", "doctor", "--base-url", base_url, "--model", GENERIC,
                           "--timeout", "10", *extra], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("profile", sorted(EXPECTED_FAILURES))
def test_doctor_verdicts_per_server_profile(profile: str, tmp_path: Path):
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"agent_model": "a", "user_model": "u", "profile": profile, "tasks": {}}))
    with serve_llm(scenario) as server:
        done = _doctor(server.base_url, "--json")
        text = _doctor(server.base_url)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    failed = {p["name"] for p in report["probes"] if not p["ok"]}
    assert failed == EXPECTED_FAILURES[profile], report["probes"]
    assert f'structured = "{STRUCTURED[profile]}"' in report["roles_file"]
    assert text.returncode == 0 and "roles file" in text.stdout and "chat: ok" in text.stdout
    if "schema pattern (tools)" in failed:  # what eval does about it is said on the probe's line
        said = " ".join(text.stdout.split())  # rich wraps long lines in a pipe
        probe = said[said.index("no schema pattern (tools): refused (HTTP 500"):]
        assert "-> eval resends the tools with schemas reduced to a portable subset" in probe.split(" no ")[0]


def test_a_server_that_dies_on_a_probe_is_not_called_unreachable(tmp_path: Path):
    """llama-cpp-python answers the first probes, then dies building a grammar from a tool schema's
    ``maxLength`` (issue #31's sweep; here with ``pattern`` accepted, so the schema reaches the grammar).
    Doctor used to call that "nothing answers" and exit 3; it is the probe's verdict, the probes after
    it are not tried, and eval is told to send portable schemas from the first request."""
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"agent_model": "a", "user_model": "u", "profile": "llama.cpp",
                                    "profile_changes": {"pattern_status": None}, "tasks": {}}))
    with serve_llm(scenario) as server:
        done = _doctor(server.base_url)
        assert server.dead
    said = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stderr[-2000:]
    probe = said[said.index("no schema pattern (tools):"):]
    assert "the connection dropped" in probe and "--portable-schemas" in probe, said


def test_doctor_against_a_port_with_nothing_listening_says_so_in_one_line():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    done = _doctor(url)
    assert done.returncode == 3
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and url in lines[0]


@contextlib.contextmanager
def _stalling_server(kind: str) -> Iterator[str]:
    """A port that takes connections and never finishes an answer: ``silent`` never accepts (the
    kernel's backlog completes the handshake), ``drip`` sends headers, then a byte of body every 0.5 s,
    each well inside any read timeout. Bounded: it stops after 60 s or when the test ends."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    stop = threading.Event()

    def drip() -> None:
        sock.settimeout(0.2)
        ends, peers = time.monotonic() + 60, []
        while not stop.is_set() and time.monotonic() < ends:
            with contextlib.suppress(OSError):
                peer, _ = sock.accept()
                peer.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n")
                peers.append(peer)
            for peer in list(peers):
                try:
                    peer.sendall(b" ")
                except OSError:
                    peers.remove(peer)
            stop.wait(0.5)
        for peer in peers:
            peer.close()

    thread = threading.Thread(target=drip, daemon=True) if kind == "drip" else None
    if thread:
        thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    finally:
        stop.set()
        if thread:
            thread.join(timeout=5)
        sock.close()


@pytest.mark.parametrize("kind", ["silent", "drip"])
def test_doctor_ends_by_its_deadline_whatever_the_server_does(kind: str):
    """Per probe, --timeout 30 would take 13 x 30 s against a server that never answers; the whole-run
    deadline ends it: one line naming the URL, exit 3 (subprocess's 60 s limit fails the test otherwise)."""
    with _stalling_server(kind) as url:
        done = subprocess.run([sys.executable, "-m", "scaleenv_mcp", "doctor", "--base-url", url, "--model", GENERIC,
                               "--timeout", "30", "--deadline", "4"], capture_output=True, text=True, timeout=60)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 3, done.stderr[-2000:]
    assert len(lines) == 1 and url in lines[0] and "answered nothing within doctor's 4s deadline" in lines[0]


def test_doctor_reports_the_probes_its_deadline_left_untried(tmp_path: Path):
    """A server that answers, slowly: what was probed is reported, the rest says it was not tried."""
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"agent_model": "a", "user_model": "u", "profile": "openai", "tasks": {},
                                    "delay": 1.0}))
    with serve_llm(scenario) as server:
        done = _doctor(server.base_url, "--json", "--deadline", "3.5")
    assert done.returncode == 0, done.stderr[-2000:]
    probes = {p["name"]: p for p in json.loads(done.stdout)["probes"]}
    assert probes["chat"]["ok"]  # 13 probes of 1 s each cannot all fit in 3.5 s
    untried = [name for name, p in probes.items() if p["verdict"].startswith("not tried: doctor's 3.5s deadline")]
    assert "truncation at max_tokens 8" in untried and len(untried) < len(probes) - 1
