"""``scaleenv bench``: run the benchmarks, print a table, write JSON, regenerate BENCHMARKS.md.

Every figure is a median (or p99) and every comparison a ratio against a baseline measured
in the same run: the machine is shared and noisy. BENCHMARKS.md is generated from the JSON,
never edited by hand.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.calls import bench_http, bench_memory_and_stdio, pick_call
from bench.cpu_split import bench_profile, render_profile
from bench.episodes import ROUNDS, bench_episodes
from bench.hostile import bench_hostile, render_hostile
from bench.interleaved import bench_interleaved, render_interleaved
from bench.replay import bench_replay
from bench.scaling import bench_scaling, render_scaling
from bench.stall import bench_stall, render_stall
from bench.startup import bench_startup, render_startup
from bench.state_tracking import bench_state_tracking, render_state_tracking
from bench.ui import bench_ui, render_ui

REPO = Path(__file__).resolve().parents[1]
# The targets, keyed like the ratios (the part before "@"); calls/s applies at 16 and 64.
TARGETS = {"server_cpu_vs_lowlevel": "<= 1.25", "calls_per_s_vs_lowlevel": ">= 0.9 (at 16 and 64)",
           "memory_call_vs_lowlevel": "<= 3.0",
           "create_vs_raw": "<= 3.0", "memory_created": "<= 1.3", "memory_read": "<= 2.5",
           "tau2_hash_vs_fingerprint": ">= 10 (at 1.2 MB)"}


def environment() -> dict[str, Any]:
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    versions = {name: metadata.version(name) for name in ("mcp", "fastmcp", "uvicorn", "starlette", "pydantic")}
    try:
        versions["httptools"] = metadata.version("httptools")
    except metadata.PackageNotFoundError:
        versions["httptools"] = "not installed"
    return {"commit": commit or "unknown", "python": platform.python_version(), "machine": platform.machine(),
            "cpus": os.cpu_count(), "system": platform.platform(), "packages": versions,
            "load_average": os.getloadavg()}


def run(domain_dir: Path, out: Path, quick: bool = False) -> dict[str, Any]:
    tool, arguments = pick_call(domain_dir)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        calls = bench_http(domain_dir, tool, arguments, work / "state", calls=500 if quick else 3000)
        calls += bench_memory_and_stdio(domain_dir, tool, arguments, work / "state", calls=200 if quick else 1000)
        episodes = bench_episodes(work, work / "state", sizes=(100_000, 1_000_000) if quick else (100_000, 1_000_000, 10_000_000),
                                  many=1_000 if quick else 10_000)
        replay = bench_replay(domain_dir, work / "state", verify_sample=20 if quick else 60, synth_n=5 if quick else 20)
        tracking = bench_state_tracking(work, quick)
    result = {"environment": environment(), "domain": domain_dir.name, "tool": tool, "calls": calls,
              "episodes": episodes, "replay": replay, "ratios": ratios(calls, episodes, tracking), "targets": TARGETS,
              "validation": bench_hostile(), "state_tracking": tracking}
    out.write_text(json.dumps(result, indent=2) + "\n")
    return result


SECTIONS = ("validation", "state", "startup", "calls", "ui", "profile", "episodes", "scaling", "stall")


def run_section_only(section: str, out: Path, quick: bool = False, baseline: Path | None = None,
                     domain_dir: Path | None = None, rounds: int = 3, http_parser: str = "auto") -> dict[str, Any]:
    """One section (hostile-package validation, fingerprint/diff from change sets, #28's start-up
    timings, or HTTP calls in interleaved rounds against the bare server and ``baseline``) merged
    into the results already in ``out`` (the rest of a full run takes tens of minutes); it records
    its own environment."""
    result = json.loads(out.read_text()) if out.exists() else {}
    if "environment" not in result:
        raise ValueError(f"{out} holds no full run to merge into: run `scaleenv bench` first")
    if section == "validation":
        result["validation"] = bench_hostile()
        result["validation_environment"] = environment()
    elif section == "calls":
        if domain_dir is None:
            raise ValueError("--only calls needs a domain")
        section_key = "calls_interleaved" if http_parser == "auto" else f"calls_interleaved_{http_parser}"
        result[f"{section_key}_environment"] = environment()
        with tempfile.TemporaryDirectory() as scratch:
            result[section_key] = bench_interleaved(domain_dir, Path(scratch) / "state", baseline, rounds,
                                                    calls=500 if quick else 2000, http_parser=http_parser)
            tool, arguments = pick_call(domain_dir)
            result["calls_memory"] = [bench_memory_and_stdio(domain_dir, tool, arguments, Path(scratch) / "state",
                                                             calls=200 if quick else 1000, stdio=False)
                                      for _ in range(rounds)]
        result["ratios"] = {k: v for k, v in result["ratios"].items()  # the interleaved medians replace one-pass ones
                            if not k.startswith(("server_cpu_vs_lowlevel@", "calls_per_s_vs_lowlevel@", "memory_call"))
                            or "," in k}
        result["ratios"].update(interleaved_ratios(result[section_key], result["calls_memory"]))
        result["targets"] = TARGETS
    elif section == "episodes":  # the sized rows only: the 10,000-episode host is the full run's
        with tempfile.TemporaryDirectory() as scratch:
            work = Path(scratch)
            result["episodes"] = {**result.get("episodes", {}), "sized": bench_episodes(
                work, work / "state", sizes=(100_000,) if quick else (100_000, 1_000_000), many=0)["sized"]}
        result["episodes_environment"] = environment()
        result["ratios"] = {k: v for k, v in result["ratios"].items() if not k.startswith(("create_vs_raw", "memory_created", "memory_read"))}
        result["ratios"].update(ratios([], result["episodes"]))
    elif section == "profile":
        if domain_dir is None:
            raise ValueError("--profile needs a domain")
        result["profile_environment"] = environment()
        result["profile"] = bench_profile(domain_dir, calls=500 if quick else 2000)
    elif section == "scaling":
        if domain_dir is None:
            raise ValueError("--only scaling needs a domain")
        tool, arguments = pick_call(domain_dir)
        result["scaling_environment"] = environment()
        with tempfile.TemporaryDirectory() as scratch:
            result["scaling"] = bench_scaling(domain_dir, Path(scratch) / "state", tool, arguments, rounds=rounds,
                                              calls=1000 if quick else 3000)
    elif section == "ui":
        with tempfile.TemporaryDirectory() as scratch:
            result["ui"] = bench_ui(Path(scratch), renders=10 if quick else 30)
        result["ui_environment"] = environment()
    elif section == "stall":
        result["stall_environment"] = environment()  # before the run: its load average is the one at the start
        with tempfile.TemporaryDirectory() as scratch:
            result["stall"] = bench_stall(Path(scratch), rounds)
        write_reliability_stall(result["stall"], result["stall_environment"])
    elif section == "startup":
        result["startup"] = bench_startup(REPO, baseline)
        result["startup_environment"] = environment()
        if baseline is not None:
            result["startup_baseline"] = subprocess.run(["git", "rev-parse", "HEAD"], cwd=baseline, capture_output=True,
                                                        text=True).stdout.strip()
    else:
        with tempfile.TemporaryDirectory() as scratch:
            result["state_tracking"] = bench_state_tracking(Path(scratch), quick)
        result["state_tracking_environment"] = environment()
        result["ratios"] = {k: v for k, v in result["ratios"].items() if not k.startswith("tau2_hash_vs_fingerprint")}
        result["ratios"].update(ratios([], {"sized": []}, result["state_tracking"]))
        result["targets"] = TARGETS
    out.write_text(json.dumps(result, indent=2) + "\n")
    return result


def write_reliability_stall(stall: dict[str, Any], measured: dict[str, Any]) -> None:
    """docs/reliability-stall.json, and docs/reliability.md rendered again from it and the soak's last JSON reports."""
    from scaleenv_mcp.soak.report import render_reliability

    docs = REPO / "docs"
    stall = {**stall, "commit": measured["commit"], "load_average": measured["load_average"], "cpus": measured["cpus"]}
    (docs / "reliability-stall.json").write_text(json.dumps(stall, indent=1) + "\n")
    soak, chaos = docs / "reliability.json", docs / "reliability-chaos.json"
    if soak.is_file():
        report = json.loads(soak.read_text())
        (docs / "reliability.md").write_text(render_reliability(
            report, report.get("machine", "not described"), json.loads(chaos.read_text()) if chaos.is_file() else None,
            stall))


def ratios(calls: list[dict[str, Any]], episodes: dict[str, Any], tracking: dict[str, Any] | None = None) -> dict[str, Any]:
    http = {(r["server"], r["concurrency"]): r for r in calls if r["transport"] == "http"}
    out: dict[str, Any] = {}
    for level in sorted({c for _, c in http}):
        ours, bare = http.get(("scaleenv", level)), http.get(("lowlevel", level))
        if ours and bare:
            out[f"server_cpu_vs_lowlevel@{level}"] = round(ours["server_cpu_ms_per_call"] / bare["server_cpu_ms_per_call"], 2)
            out[f"calls_per_s_vs_lowlevel@{level}"] = round(ours["calls_per_s"] / bare["calls_per_s"], 2)
    for row in episodes["sized"]:
        label = f"{row['start_state_bytes'] // 1000}KB"
        out[f"create_vs_raw@{label}"] = row["in_process_create_vs_raw"]
        out[f"memory_created@{label}"] = row["memory_created_vs_state"]
        out[f"memory_read@{label}"] = row["memory_read_vs_state"]
    for row in (tracking or {}).get("rows", []):
        if row["changed_rows"] == 10:
            out[f"tau2_hash_vs_fingerprint@{row['state_bytes'] // 1000}KB,10rows"] = row["tau2_hash_vs_fingerprint"]
    return out


def _with_spread(row: dict[str, Any], key: str, name: str) -> str:
    """An episode row's measure: the median of its rounds with their min-max beside it, where it has rounds."""
    spread = row.get("creation_rounds", {}).get(name)
    return str(row[key]) if spread is None else f"{spread['median']} ({spread['min']}-{spread['max']})"


def render_markdown(result: dict[str, Any]) -> str:
    env = result["environment"]
    lines = ["# Benchmarks (generated by `scaleenv bench`; do not edit)", "",
             f"Commit `{env['commit'][:12]}`, Python {env['python']}, {env['cpus']} CPUs ({env['machine']}), "
             f"load average at start {', '.join(f'{x:.1f}' for x in env['load_average'])}; "
             + ", ".join(f"{k} {v}" for k, v in env["packages"].items()) + ".", "",
             f"Domain `{result['domain']}`, tool `{result['tool']}`. Medians; ratios against baselines measured in the same run.",
             "", "## Tool calls", ""]
    newer = result.get("calls_interleaved_environment") or result.get("calls_interleaved_h11_environment")
    if newer and newer["commit"] != env["commit"]:
        lines += [f"(One pass per server, from the full run at commit `{env['commit'][:12]}`; the interleaved sections "
                  f"below, measured at commit `{newer['commit'][:12]}`, supersede it.)", ""]
    lines += ["| transport | server | concurrency | calls/s | p50 ms | p99 ms | server CPU ms/call |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in result["calls"]:
        lines.append(f"| {row['transport']} | {row['server']} | {row['concurrency']} | {row['calls_per_s']} | {row['p50_ms']} | "
                     f"{row['p99_ms']} | {row.get('server_cpu_ms_per_call', '')} |")
    lines += ["", "## Episodes", "", "| start state | control create p50/p99 ms | in-process create p50 ms | raw deserialize ms | "
              "create/raw | raw + schema parse ms | create/(raw + parse) | RSS/episode created | "
              "RSS/episode after full read | fingerprint ms | diff ms |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in result["episodes"]["sized"]:
        usable = (f"{_with_spread(row, 'raw_usable_p50_ms', 'usable')} | {row['in_process_create_vs_raw_usable']}x"
                  if "raw_usable_p50_ms" in row else "(not measured) | ")
        lines.append(f"| {row['start_state_bytes'] // 1000} KB | {row['control_create_p50_ms']}/{row['control_create_p99_ms']} | "
                     f"{_with_spread(row, 'create_in_process_p50_ms', 'create')} | "
                     f"{_with_spread(row, 'raw_deserialize_p50_ms', 'raw')} | "
                     f"{row['in_process_create_vs_raw']}x | {usable} | {row['memory_created_vs_state']}x state | "
                     f"{row['memory_read_vs_state']}x state | {row['fingerprint_p50_ms']} | {row['diff_p50_ms']} |")
    if any("creation_rounds" in row for row in result["episodes"]["sized"]):
        lines += ["", f"In-process create and the raw baselines: medians of {ROUNDS} interleaved rounds (min-max), each "
                  "baseline in a process of its own holding its copies alive, as a worker holds its episodes (#25)."]
    if result.get("episodes_environment"):
        lines += _measured_alone("episodes", result)
        lines[-1] = lines[-1][:-2] + "; the line below is the last full run's.)"
    many = result["episodes"].get("many")
    if many:
        lines += ["", f"Live episodes of ~100 KB in one host: {many['live_episodes']} (created in {many['create_all_s']} s, "
                      f"host + workers RSS {many['host_and_workers_rss_mb']} MB, a call on the last one ok: {many['last_episode_call_ok']})."]
    replay = result.get("replay")
    if replay:
        gold = replay["gold_replay"]
        lines += ["", "## Tasks", "", f"Gold replay of one task (new episode, replay over MCP, reward), median of {gold['tasks']}: "
                  f"in memory {gold['memory_p50_ms']} ms, over HTTP {gold['http_p50_ms']} ms. `scaleenv verify`: "
                  f"{replay['verify_memory_tasks_per_s']} tasks/s in memory, {replay['verify_http_tasks_per_s']} over HTTP "
                  f"(every gate, determinism included). Offline synthesis: "
                  f"{replay['synth_verified_tasks_per_s']} verified tasks/s."]
    if result.get("state_tracking"):
        lines += render_state_tracking(result["state_tracking"]) + _measured_alone("state", result)
    if result.get("validation"):
        lines += render_hostile(result["validation"]) + _measured_alone("validation", result)
    for key in ("calls_interleaved", "calls_interleaved_h11", "calls_interleaved_httptools"):
        if result.get(key):
            lines += render_interleaved(result[key], result.get(f"{key}_environment"))
    if result.get("calls_memory"):
        lines += render_memory_rounds(result["calls_memory"])
    if result.get("profile"):
        lines += render_profile(result["profile"], result.get("profile_environment"))
    if result.get("startup"):
        lines += render_startup(result["startup"], result.get("startup_environment"), result.get("startup_baseline"))
    if result.get("ui"):
        lines += render_ui(result["ui"], result.get("ui_environment"))
    if result.get("scaling"):
        lines += render_scaling(result["scaling"], result.get("scaling_environment"))
    if result.get("stall"):
        lines += render_stall(result["stall"], result.get("stall_environment"))
    lines += ["", "## Ratios against targets", "", "| ratio | measured | target |", "| --- | --- | --- |"]
    for key, value in result["ratios"].items():
        lines.append(f"| {key} | {value} | {result['targets'].get(key.split('@')[0], '')} |")
    return "\n".join(lines) + "\n"


def interleaved_ratios(section: dict[str, Any], memory_rounds: list[list[dict[str, Any]]]) -> dict[str, float]:
    """The targets' ratios from an interleaved calls run: medians over its rounds, keyed by level and parser."""
    out: dict[str, float] = {}
    for key, value in section["ratios"].items():
        if key.startswith("scaleenv/lowlevel "):
            metric, level = key.removeprefix("scaleenv/lowlevel ").split("@")
            name = "server_cpu_vs_lowlevel" if metric == "server_cpu" else "calls_per_s_vs_lowlevel"
            out[f"{name}@{level},{section['http_parser']}"] = round(value["median"], 2)
    out["memory_call_vs_lowlevel@p50"] = round(statistics.median(_memory_ratios(memory_rounds)), 2)
    return out


def _memory_ratios(rounds: list[list[dict[str, Any]]]) -> list[float]:
    return [next(r["p50_ms"] for r in one if r["server"] == "scaleenv") / next(r["p50_ms"] for r in one if r["server"] == "lowlevel")
            for one in rounds]


def render_memory_rounds(rounds: list[list[dict[str, Any]]]) -> list[str]:
    """In-memory MCP calls (the official client on both sides), one pass of each server per round."""
    ratios = _memory_ratios(rounds)
    lines = ["", "### In-memory MCP calls", "", f"`scaleenv bench --only calls`: {len(rounds)} rounds, the official Python "
             "client in the same process as the server (ours: `Host.client`, one worker process), p50 per call.", "",
             "| round | bare low-level p50 ms | scaleenv p50 ms | ratio |", "| --- | --- | --- | --- |"]
    for index, (one, ratio) in enumerate(zip(rounds, ratios), 1):
        bare = next(r["p50_ms"] for r in one if r["server"] == "lowlevel")
        ours = next(r["p50_ms"] for r in one if r["server"] == "scaleenv")
        lines.append(f"| {index} | {bare} | {ours} | {ratio:.2f}x |")
    lines.append(f"| median (min-max) | | | {statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) |")
    return lines


def _measured_alone(section: str, result: dict[str, Any]) -> list[str]:
    """The note under a section that ``--only SECTION`` measured at another commit than the rest."""
    measured = result.get(f"{'state_tracking' if section == 'state' else section}_environment")
    if not measured:
        return []
    return ["", f"(This section measured alone by `scaleenv bench --only {section}` at commit "
                f"`{measured['commit'][:12]}`, load average at start "
                f"{', '.join(f'{x:.1f}' for x in measured['load_average'])}.)"]
