"""The first five minutes (#28): `scaleenv serve` binds first, says where, then reports each
domain and one banner; every error a new user meets is one line with its documented exit code."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scaleenv_mcp.host.host import Host
from tests.support_processes import interrupt
from tests.unit.clients.library_tasks import library, library_master  # noqa: F401 - fixtures

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "domains"


def scaleenv(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scaleenv_mcp", *args], capture_output=True, text=True, timeout=120,
                          env=env)


def in_terminal(*args: str, env: dict[str, str] | None = None, until: str | None = None, columns: int = 100,
                timeout: float = 120) -> str:
    """Run `scaleenv ARGS` on a pseudo-terminal (what a person sees), up to ``until`` (then SIGINT)
    or its exit; returns what it wrote, escape codes removed and carriage returns as line ends."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp", *args], stdin=terminal, stdout=terminal,
                               stderr=terminal, start_new_session=True,
                               env={**os.environ, **(env or {}), "TERM": "xterm", "COLUMNS": str(columns)})
    os.close(terminal)
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and not (until and until.encode() in seen):
            if select.select([controller], [], [], 0.2)[0]:
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # EIO: the process closed the terminal (it exited)
                    break
                if not chunk:
                    break
                seen += chunk
            elif process.poll() is not None:
                break
    finally:
        interrupt(process)
        os.close(controller)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", seen.decode(errors="replace"))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def serve_until_banner(domains_dir: Path, state_dir: Path, *extra: str) -> list[str]:
    """Start `scaleenv serve` on loopback (free ports), read stderr up to the banner, stop it;
    returns the lines up to the banner, then what followed it (the domains not served)."""
    env = {**os.environ, "SCALEENV_STATE_DIR": str(state_dir)}
    process = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp", "serve", "--port", "0", "--control-port", "0",
                                "--workers", "1", "--domains-dir", str(domains_dir), *extra],
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    lines: list[str] = []
    try:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line.rstrip("\n"))
            if " online at " in line:
                break
    finally:
        interrupt(process)
        rest = process.stderr.read()  # not communicate(): it would skip what the line reader buffered
    return lines + [line for line in rest.splitlines() if line.startswith("  not served:")]


def assert_started_in_order(lines: list[str], states: dict[str, str], banner: str) -> None:
    """Bound line first, then each domain's states, the banner last; nothing else before the banner."""
    assert lines[0].startswith("scaleenv: listening on http://127.0.0.1:"), lines
    assert "control: http://127.0.0.1:" in lines[0]
    (at,) = [i for i, line in enumerate(lines) if line.startswith("scaleenv: ") and " online at " in line]
    assert lines[at].startswith(f"scaleenv: {banner} online at http://127.0.0.1:"), lines
    assert "/mcp/{domain}" in lines[at] and "bearer token in" in lines[at]
    reported = lines[1:at]
    for slug, final in states.items():
        mine = [line.strip().removeprefix(f"{slug}: ") for line in reported if line.strip().startswith(f"{slug}: ")]
        assert mine[0] == "loading" and mine[-1].startswith(final), (slug, mine)


def test_serve_binds_first_then_each_domain_then_the_banner_cold_and_warm(tmp_path: Path):
    cold = serve_until_banner(FIXTURES, tmp_path / "state")
    assert_started_in_order(cold, {"tiny_library": "online"}, "1 domain")
    assert "  tiny_library: validating (0/1 domains done)" in cold  # a fresh validation record: the gate runs
    warm = serve_until_banner(FIXTURES, tmp_path / "state")
    assert_started_in_order(warm, {"tiny_library": "online"}, "1 domain")
    assert not [line for line in warm if "tiny_library: validating" in line]  # the record says these contents passed


def test_into_a_pipe_each_state_line_after_loading_counts_the_domains_done(tmp_path: Path):
    """The pipe's stand-in for the terminal's 'all domains 1/2 done' bar: every line after the
    'loading' ones (whose total is not known yet) ends with the domains done of all started."""
    domains = tmp_path / "domains"
    shutil.copytree(FIXTURES / "tiny_library", domains / "tiny_library")
    shutil.copytree(FIXTURES / "tiny_library", domains / "twin_library")
    manifest = json.loads((domains / "twin_library" / "domain.json").read_text())
    (domains / "twin_library" / "domain.json").write_text(json.dumps({**manifest, "slug": "twin_library"}))
    lines = serve_until_banner(domains, tmp_path / "state")
    assert_started_in_order(lines, {"tiny_library": "online", "twin_library": "online"}, "2 domains")
    states = [line.strip() for line in lines[1:-1]]
    assert states[:2] == ["tiny_library: loading", "twin_library: loading"], lines
    counters = [re.fullmatch(r"\w+: \w+ \((\d)/2 domains done\)", line) for line in states[2:]]
    assert all(counters), lines
    done = [int(c.group(1)) for c in counters if c is not None]
    assert done == sorted(done) and done[-1] == 2, lines  # it only grows, and ends with every domain


def test_on_a_terminal_serve_shows_progress_bars_then_the_banner(tmp_path: Path):
    """The rich display (#28): a counter of the domains done and a bar per validation with its
    cases and ETA, drawn while the gate runs; the banner after it, one line however wide."""
    shown = in_terminal("serve", "--port", "0", "--control-port", "0", "--workers", "1", "--domains-dir", str(FIXTURES),
                        env={"SCALEENV_STATE_DIR": str(tmp_path / "state")}, until="bearer token in")
    lines = [line.strip() for line in shown.splitlines()]
    bars = [line for line in lines if re.search(r"validating tiny_library .*━+ (\d+)/\1 cases \d+:\d\d:\d\d$", line)]
    assert bars, shown[-3000:]  # the bar, full, with its cases done and the time remaining
    assert any(re.search(r"all domains .*━+ 0/1 +done", line) for line in lines), shown[-3000:]
    assert any(re.search(r"all domains .*━+ 1/1 +done", line) for line in lines), shown[-3000:]
    (banner,) = [i for i, line in enumerate(lines) if line.startswith("scaleenv: 1 domain online at ")]
    assert "bearer token in" in lines[banner]  # not wrapped at the terminal's width
    assert banner > max(i for i, line in enumerate(lines) if line in bars)
    assert lines.index("tiny_library: validating") < lines.index("tiny_library: online") < banner


def test_banner_names_a_broken_domain_with_its_reason_and_the_command(tmp_path: Path):
    domains = tmp_path / "domains"
    shutil.copytree(FIXTURES / "tiny_library", domains / "tiny_library")
    broken = domains / "broken_library"
    shutil.copytree(FIXTURES / "tiny_library", broken)
    manifest = json.loads((broken / "domain.json").read_text())
    manifest["slug"] = "broken_library"
    (broken / "domain.json").write_text(json.dumps(manifest))
    (broken / "tools.py").write_text((broken / "tools.py").read_text().replace("def tally(", "def tally_renamed("))
    lines = serve_until_banner(domains, tmp_path / "state")
    assert_started_in_order(lines, {"tiny_library": "online", "broken_library": "broken"}, "1 of 2 domains")
    (note,) = [line for line in lines if "not served: broken_library" in line]
    assert "tally" in note and f"scaleenv validate {broken}" in note


def test_busy_port_is_one_line_naming_the_port_exit_3():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = scaleenv("serve", "--port", str(port), "--domains-dir", str(FIXTURES))
    assert result.returncode == 3, result.stderr
    assert f"port {port}" in result.stderr and "--port" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [["serve", "--domain", "nope"], ["serve", "--stdio", "tiny_librar"]])
def test_serving_no_installed_domain_exits_2_listing_the_installed(args: list[str]):
    result = scaleenv(*args, "--domains-dir", str(FIXTURES))
    assert result.returncode == 2, result.stderr
    assert "unknown domain" in result.stderr and "installed: tiny_library" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_serve_with_no_domains_at_all_exits_2(tmp_path: Path):
    result = scaleenv("serve", "--domains-dir", str(tmp_path))
    assert result.returncode == 2 and "no domains found" in result.stderr and "--domains-dir" in result.stderr


def test_unknown_tool_exits_2_and_says_how_to_list_tools():
    result = scaleenv("call", "tiny_library", "no_such_tool", "--domains-dir", str(FIXTURES))
    assert result.returncode == 2
    assert "unknown tool 'no_such_tool'" in result.stderr and "scaleenv tools tiny_library" in result.stderr


def test_every_missing_and_unexpected_argument_in_one_message():
    result = scaleenv("call", "tiny_library", "borrow_book", "--args", '{"bogus": 1, "zzz": 2}',
                      "--domains-dir", str(FIXTURES))
    assert result.returncode == 1
    assert ("missing required arguments 'member_id', 'book_id'; unexpected arguments 'bogus', 'zzz'"
            in " ".join(result.stdout.split()))


def test_call_json_writes_agree_with_its_changes():
    result = scaleenv("call", "tiny_library", "borrow_book", "--args", '{"member_id": "MEM-00002", "book_id": "BK-00001"}',
                      "--json", "--domains-dir", str(FIXTURES))
    payload = json.loads(result.stdout)
    assert payload["writes"] == sorted(payload["changes"]["tables"]) == ["books", "loans"]
    assert "reads" not in payload["outcome"] and "writes" not in payload["outcome"]


@pytest.mark.anyio
async def test_an_agent_over_mcp_gets_the_same_one_message(host: Host):
    episode = await host.create_episode("tiny_library")
    async with host.client(episode.id) as client:
        result = await client.call_tool("borrow_book", {"note": "x", "extra": 1})
    assert result.is_error
    assert result.content[0].text == ("invalid_argument: missing required arguments 'member_id', 'book_id'; "
                                      "unexpected argument 'extra'")


def test_tools_tool_explains_one_tool_with_an_example_that_runs():
    result = scaleenv("tools", "tiny_library", "borrow_book", "--domains-dir", str(FIXTURES))
    assert result.returncode == 0, result.stderr
    assert "member_id (string, required)" in result.stdout and "note (" in result.stdout
    example = next(line for line in result.stdout.splitlines() if "scaleenv call tiny_library borrow_book" in line)
    arguments = example.split("--args '", 1)[1].rstrip("'")
    ran = scaleenv("call", "tiny_library", "borrow_book", "--args", arguments, "--domains-dir", str(FIXTURES))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    unknown = scaleenv("tools", "tiny_library", "nope", "--domains-dir", str(FIXTURES))
    assert unknown.returncode == 2 and "unknown tool 'nope'" in unknown.stderr


def test_tools_example_on_the_plain_seed_runs_on_a_fresh_episode():
    """request_approval had an example only after a case changed the seed; now one on the seed as shipped."""
    shown = scaleenv("tools", "project_management", "request_approval")
    assert shown.returncode == 0, shown.stderr
    assert "example (from a passing test case):" in shown.stdout and "the case first:" not in shown.stdout
    example = next(line for line in shown.stdout.splitlines() if "scaleenv call project_management request_approval" in line)
    ran = scaleenv("call", "project_management", "request_approval", "--args", example.split("--args '", 1)[1].rstrip("'"))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert '"status": "pending"' in ran.stdout


def test_tools_example_of_a_tool_no_case_runs_on_the_plain_seed_says_what_its_case_changes_first():
    """No account of stock_trading's seed can be closed (each holds cash): the example is still
    shown, with the row its case changes first, and --json carries the same as example_fixture."""
    shown = scaleenv("tools", "stock_trading", "close_account")
    assert shown.returncode == 0, shown.stderr
    assert "scaleenv call stock_trading close_account --args '" in shown.stdout
    assert "on a fresh episode this call may be refused" in shown.stdout
    assert shown.stdout.rstrip().endswith('the case first:\n    update accounts account_id="ACC-00046": cash_cents=0')
    (listed,) = json.loads(scaleenv("tools", "stock_trading", "close_account", "--json").stdout)
    assert listed["example_arguments"] == {"acting_investor_id": "INV-00023", "account_id": "ACC-00046"}
    assert listed["example_fixture"] == [{"op": "update", "table": "accounts", "key": {"account_id": "ACC-00046"},
                                          "values": {"cash_cents": 0}}]


def test_shell_help_tool_prints_the_same_explanation():
    shell = subprocess.run([sys.executable, "-m", "scaleenv_mcp", "shell", "tiny_library", "--domains-dir", str(FIXTURES)],
                           input="help get_member\nquit\n", capture_output=True, text=True, timeout=120)
    explained = scaleenv("tools", "tiny_library", "get_member", "--domains-dir", str(FIXTURES)).stdout
    assert explained.strip().splitlines()[0] in shell.stdout and "parameters:" in shell.stdout


def test_version_and_mcp_config_for_the_port_and_host_served():
    version = scaleenv("--version")
    assert version.returncode == 0 and version.stdout.startswith("scaleenv 0.")
    config = json.loads(scaleenv("mcp-config", "tiny_library", "--http", "--port", "9100", "--host", "127.0.0.2",
                                 "--domains-dir", str(FIXTURES)).stdout)
    assert config["mcpServers"]["scaleenv-tiny_library"]["url"] == "http://127.0.0.2:9100/mcp/tiny_library"


def test_graph_never_writes_into_an_installed_package(tmp_path: Path):
    """A domain under site-packages (as the wheel installs the shipped ones) is left alone: a note
    says so and --out writes elsewhere; from a checkout graph.json is written beside the source."""
    import sysconfig

    from scaleenv_mcp.domain.catalog import is_installed

    assert is_installed(Path(sysconfig.get_paths()["purelib"]) / "scaleenv_mcp" / "shipped_domains" / "smart_home")
    assert not is_installed(FIXTURES / "tiny_library")
    checkout = tmp_path / "tiny_library"
    shutil.copytree(FIXTURES / "tiny_library", checkout)
    (checkout / "graph.json").unlink(missing_ok=True)
    written = scaleenv("graph", str(checkout))
    assert written.returncode == 0 and (checkout / "graph.json").is_file()
    out = tmp_path / "elsewhere.json"
    assert scaleenv("graph", str(checkout), "--out", str(out)).returncode == 0 and out.is_file()


@pytest.mark.parametrize(("args", "said"), [
    ([], "error: Missing command."),
    (["serve", "--port", "abc"], "error: Invalid value for '--port'"),
    (["nosuch"], "error: No such command 'nosuch'"),
    (["tools"], "error: Missing argument 'domain'"),
])
def test_usage_errors_are_two_plain_lines_exit_2(args: list[str], said: str):
    result = scaleenv(*args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith(said), result.stderr
    assert lines[1].startswith("usage: scaleenv") and "--help` says more" in lines[1]
    assert not set("╭╰│─") & set(result.stderr), result.stderr  # no rich boxes
    assert result.stdout == ""


def test_a_refusal_is_one_line_at_80_columns():
    result = scaleenv("call", "tiny_library", "borrow_book", "--args", '{"bogus": 1, "zzz": 2}',
                      "--domains-dir", str(FIXTURES), env={**os.environ, "COLUMNS": "80"})
    assert result.returncode == 1
    (line,) = result.stdout.strip().splitlines()
    assert line == ("invalid_argument: missing required arguments 'member_id', 'book_id'; "
                    "unexpected arguments 'bogus', 'zzz'")


def test_unknown_task_says_how_to_list_tasks(library: Path):
    domains = str(library)
    for command in ("call", "shell"):
        args = [command, "tiny_library", *(["get_member"] if command == "call" else []), "--task", "nope"]
        result = scaleenv(*args, "--domains-dir", domains)
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip() == ("error: domain 'tiny_library' has no task 'nope': "
                                         "`scaleenv tasks list tiny_library` lists them")
    listed = scaleenv("tasks", "list", "tiny_library", "--domains-dir", domains)
    assert listed.returncode == 0, listed.stderr
    assert all(task in listed.stdout for task in ("lend-ada-dune", "return-solaris", "swap-solaris", "lend-grace"))
    assert "Hi, I'd like to borrow Dune." in listed.stdout


def test_a_domains_dir_that_is_not_there_is_a_usage_error(tmp_path: Path):
    missing = tmp_path / "nowhere"
    for command in (["domains"], ["tools", "tiny_library"], ["serve"]):
        result = scaleenv(*command, "--domains-dir", str(missing))
        assert result.returncode == 2, result.stderr
        first = result.stderr.splitlines()[0]
        assert first.startswith("error: Invalid value for '--domains-dir'") and f"'{missing}' does not exist" in first
    no_file = scaleenv("tasks", "list", "tiny_library", "--tasks", str(missing), "--domains-dir", str(FIXTURES))
    assert no_file.returncode == 2 and f"Invalid value for '--tasks': file '{missing}' does not exist" in no_file.stderr


def test_shell_help_of_an_unknown_tool_says_so():
    shell = subprocess.run([sys.executable, "-m", "scaleenv_mcp", "shell", "tiny_library", "--domains-dir", str(FIXTURES)],
                           input="help nope\nquit\n", capture_output=True, text=True, timeout=120)
    assert "unknown tool 'nope': `tools` lists them" in shell.stdout
    assert "help TOOL |" not in shell.stdout  # not the command list instead


def test_tools_list_never_cuts_a_word_at_80_columns():
    shown = in_terminal("tools", "smart_home", columns=80)
    assert "smart_home: " in shown and "│" in shown
    assert "…" not in shown
    assert max(len(line) for line in shown.splitlines()) <= 80


def test_tools_list_into_a_pipe_has_types_and_whole_descriptions():
    from scaleenv_mcp.domain.catalog import find_domains
    from scaleenv_mcp.domain.loader import load_domain

    result = scaleenv("tools", "tiny_library", "--domains-dir", str(FIXTURES))
    assert result.returncode == 0, result.stderr
    (row,) = [line for line in result.stdout.splitlines() if "│ borrow_book " in line]
    assert "member_id*: string, book_id*: string, note: string or null" in row
    package = load_domain(find_domains()["smart_home"])
    listed = scaleenv("tools", "smart_home").stdout
    longest = max(package.manifest.tools, key=lambda t: len(t.description))
    assert len(longest.description) > 200
    for tool in package.manifest.tools:
        assert tool.description in listed, tool.name  # whole, on one line: nothing wrapped or cut


def _children(pid: int) -> set[int]:
    """Pids whose parent is ``pid`` (the host's worker processes), from /proc."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_serve_started_with_sigint_ignored_still_stops_on_a_signal(tmp_path: Path, stop: signal.Signals):
    """A background job of a script starts with SIGINT ignored; uvicorn's handlers closed the
    listeners on SIGINT, then gave the ignored disposition back, and serve never exited (#28)."""
    process = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp", "serve", "--port", "0", "--control-port", "0",
                                "--workers", "1", "--domains-dir", str(FIXTURES)],
                               stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                               env={**os.environ, "SCALEENV_STATE_DIR": str(tmp_path / "state")},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if " online at " in line:
                break
        workers = _children(process.pid)
        assert workers, "the host has a worker process"
        process.send_signal(stop)
        assert process.wait(timeout=10) == 0
        assert f"scaleenv: {stop.name}: stopping" in process.stderr.read()
        deadline = time.monotonic() + 5
        while any(map(_alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(_alive, workers)), "a worker outlived serve"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_graph_of_an_installed_package_says_so_writes_nothing_there_and_out_writes(tmp_path: Path):
    """The command itself, on a domain inside another interpreter's site-packages (a venv whose
    path entries are this one's, so the same code runs): the note, no graph.json, --out writes."""
    import sysconfig

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    assert site.is_relative_to(venv) and sysconfig.get_paths()["purelib"] != str(site)
    (site / "zz_test_paths.pth").write_text("\n".join(p for p in sys.path if p and Path(p).is_dir()) + "\n")
    installed = site / "some_package" / "tiny_library"
    shutil.copytree(FIXTURES / "tiny_library", installed)
    (installed / "graph.json").unlink(missing_ok=True)

    def graph(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(python), "-m", "scaleenv_mcp", "graph", str(installed), *args], capture_output=True,
                              text=True, timeout=120, cwd=tmp_path)

    refused = graph()
    assert refused.returncode == 0, refused.stderr
    assert refused.stderr.strip() == (f"note: graph.json not written: {installed} is inside an installed package; "
                                      "pass --out FILE to write it elsewhere")
    assert not (installed / "graph.json").exists() and "wrote" not in refused.stdout
    assert "tiny_library: tool dependency graph" in refused.stdout  # the statistics are still printed
    out = tmp_path / "graph.json"
    written = graph("--out", str(out))
    assert written.returncode == 0 and written.stderr == "", written.stderr
    assert json.loads(out.read_text())["domain"] == "tiny_library" and f"wrote {out}" in written.stdout
    assert not (installed / "graph.json").exists()
    quiet = graph("--no-save")
    assert quiet.returncode == 0 and quiet.stderr == "" and not (installed / "graph.json").exists()
