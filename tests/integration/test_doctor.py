"""``scaleenv doctor`` against the loopback server in each server profile, and against nothing.

The verdicts must be those docs/model-servers.md gives for each server (tests/support_server_profiles.py
holds the behaviours), the roles-file lines must pick the structured mode that works, and a
port with nothing listening is one line naming the URL, exit 3.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.eval_llm_server import GENERIC, serve_llm

#: profile -> probes that must fail there (every other probe passes)
EXPECTED_FAILURES = {
    "openai": set(),
    "vllm": set(),
    "sglang": set(),
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


def test_doctor_against_a_port_with_nothing_listening_says_so_in_one_line():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    done = _doctor(url)
    assert done.returncode == 3
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and url in lines[0]
