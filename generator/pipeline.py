"""``scaleenv generate``: grow a validated domain package from a keyword, stage by stage.

1 card -> 2 tool schemas -> 3 database schema -> 4 database first (seed loaded and repaired)
-> 5 per tool: code, tests, validation, debug (parallel, capped) -> 6 dependency graph with
LLM-judged edges -> 7 verified tasks with LLM wording -> 8 package built in the workdir,
validated (before stage 7, which needs a servable package), its tasks verified, and only
then published at ``--out`` in one rename.

Every LLM response and every stage output is in the workdir's store, so the same command
after a crash (or kill -9) resumes: nothing answered is asked again, nothing finished is
redone, and the package is byte-identical to that of a run never interrupted. The report
(``report.json`` in the workdir) is written even when the run fails or is stopped by SIGINT or
SIGTERM, with the exit code; a previous run's report is removed at start, so the file on disk
is always this run's.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import re
import signal
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.errors import DomainError, ScaleEnvError, UsageError
from scaleenv_mcp.generator.backoff import RetryBudget
from scaleenv_mcp.generator.cassette import Cassette
from scaleenv_mcp.generator.llm import LLMClient, LLMOutputError
from scaleenv_mcp.generator.report import GenerationReport, TaskStats, ValidationSummary
from scaleenv_mcp.generator.roles import ResolvedRole
from scaleenv_mcp.generator.schema_sql import table_order
from scaleenv_mcp.generator.stages.card import run_card
from scaleenv_mcp.generator.stages.code import run_procedural
from scaleenv_mcp.generator.stages.context import GenerateSettings, GenerationError, RunContext
from scaleenv_mcp.generator.stages.database import run_database, run_db_schema
from scaleenv_mcp.generator.stages.graph_stage import run_graph
from scaleenv_mcp.generator.stages.package import (
    build_manifest,
    publish_package,
    render_tools_py,
    require_out_free,
    write_package,
)
from scaleenv_mcp.generator.stages.tasks_stage import run_tasks
from scaleenv_mcp.generator.stages.tools import run_tool_schemas
from scaleenv_mcp.generator.store import ResponseStore, atomic_write_text, content_key
from scaleenv_mcp.procedural.validate import validate_domain

__all__ = ["exit_code_for", "generate", "slugify"]

Log = Callable[[str], None]


def slugify(keyword: str) -> str:
    """"Pet care" -> "pet_care" (the package slug pattern [a-z][a-z0-9_]*)."""
    slug = re.sub(r"[^a-z0-9]+", "_", keyword.lower()).strip("_")
    return slug if re.match(r"^[a-z]", slug) else f"d_{slug}"


def exit_code_for(error: BaseException | None, report: GenerationReport) -> int:
    """0 complete and passing; 1 the generated domain (or the model's output) is bad; 2 usage; 3 the
    endpoint or harness failed. A model that never writes valid JSON answered: that is bad output (1),
    not a failed endpoint (3)."""
    if error is None:
        return 0 if report.validation is None or report.validation.passed else 1
    if isinstance(error, UsageError):
        return 2
    if isinstance(error, GenerationError | DomainError | LLMOutputError):
        return 1
    return 3  # HarnessError (endpoint down, retry budget spent), OSError: the environment failed


def _run_date(store: ResponseStore, slug: str) -> str:
    """The provenance date, fixed when the run first started (a resumed run keeps it)."""
    key = content_key("run-date", slug)
    stored = store.get("run", key)
    if stored is None:
        stored = {"date": datetime.date.today().isoformat()}
        store.put("run", key, stored)
    return str(stored["date"])


async def _validate(run: RunContext, report: GenerationReport, built: Path, log: Log) -> None:
    """Stage 8a: the whole package through the validation engine (before tasks: tasks need it).

    Recorded in the host-side validation cache (SCALEENV_STATE_DIR), like ``scaleenv
    validate``, so the hosts that synthesise and verify tasks bring the package online at once.
    """
    settings = run.settings
    log("validating the package")
    result = await validate_domain(built, mutation=settings.mutation, determinism=True, workers=2,
                                   timeout=settings.case_timeout)
    report.validation = ValidationSummary(
        passed=result.passed, servable=result.servable, cases=result.cases,
        unexpected_failures=result.unexpected_failures, mutation_score=result.mutation_score,
        findings=[f"{f.check}: {f.reason}" for f in result.findings][:20])
    if not result.servable:
        raise GenerationError("the assembled package fails validation: "
                              + "; ".join(report.validation.findings[:3] + [f"{result.unexpected_failures} "
                                                                           "unexpected failures"]))


async def _verify_and_publish(run: RunContext, report: GenerationReport, built: Path, log: Log) -> None:
    """Stage 8b: every task replayed through the verifier's gates over MCP, then publish."""
    assert report.validation is not None
    if (built / "tasks.jsonl").exists():
        from scaleenv_mcp.verifier.verify import verify_domain

        log("verifying the tasks")
        # Synthesis ran the determinism gate (workers under another hash seed) on these very actions and this
        # package hash; wording changes neither, so the per-task gates are what is rerun here.
        verified = await verify_domain(built, workers=2, determinism=False)
        report.validation.verified = f"{verified.passed}/{verified.tasks} tasks pass every gate"
        if verified.failed:
            report.validation.passed = False
            raise GenerationError(f"{verified.failed} tasks fail verification: {verified.failures_by_gate}")
    else:
        report.validation.verified = "no tasks to verify"
    log(f"publishing {run.settings.out}")
    publish_package(built, run.settings.out)
    report.out = str(run.settings.out)


async def _stages(run: RunContext, report: GenerationReport, date: str, log: Log) -> None:
    settings = run.settings
    log("stage 1: domain card")
    card = await run_card(run)
    log("stage 2: tool schemas")
    drafts = await run_tool_schemas(run, card)
    log("stage 3: database schema")
    draft = await run_db_schema(run, card, drafts)
    log("stage 4: database (seed rows, loaded and repaired)")
    db = await run_database(run, draft)
    report.tables, report.db_repair_rounds = len(db.draft.tables), db.repair_rounds
    report.seed_rows = sum(len(rows) for rows in db.seed.values())
    access = {a.tool: a for a in draft.access}
    tools = [t.model_copy(update={"reads": sorted(set(access[t.name].reads)), "writes": sorted(set(access[t.name].writes))})
             for t in drafts.tools]
    log(f"stage 5: {len(tools)} tools: code, tests, validation, debug (at most {settings.max_rounds} rounds)")
    results = await run_procedural(run, card, db, tools)
    report.finish_tools([r.outcome for r in results])
    passing = [r for r in results if r.outcome.passed]
    if not passing:
        raise GenerationError(f"no tool passed its tests within {settings.max_rounds} debug rounds")
    manifest = build_manifest(settings, card, table_order(db.draft.tables), db.draft.policy,
                              [r.tool for r in passing], model=run.models["code"], date=date,
                              principals=db.draft.principals)
    log("stage 6: dependency graph")
    judged, document, added = await run_graph(run, manifest)
    manifest = DomainManifest.model_validate(judged.model_dump(mode="json"))
    report.llm_edges_added, report.graph_edges = added, document.stats.edges_by_type
    built = run.workdir / "package" / settings.slug
    seed = {t.name: db.seed.get(t.name, []) for t in table_order(db.draft.tables)}  # referenced tables first
    write_package(built, manifest, db.schema_sql, seed, render_tools_py(card.title, [r.code for r in passing]),
                  [c for r in passing for c in r.cases], graph_json=document.to_json())
    await _validate(run, report, built, log)
    log("stage 7: tasks")
    tasks = await run_tasks(run, built, f"{card.title}: {card.description}")
    report.tasks = tasks.stats
    if tasks.tasks_jsonl:
        atomic_write_text(built / "tasks.jsonl", tasks.tasks_jsonl)
    else:
        (built / "tasks.jsonl").unlink(missing_ok=True)
    await _verify_and_publish(run, report, built, log)


class _Stop:
    """SIGINT and SIGTERM noted in ``caught``; the first one while ``armed`` cancels the run's task.

    Installed from the run's start until its report is on disk, so that no signal in between meets
    the default action: ``timeout`` sends SIGTERM twice (to the process, then to its process group),
    and a second one after the handlers were removed killed the process while it wrote the report
    (issue #31's real-server run: a ``.report.json.*.tmp`` and no report). After the first signal
    both are ignored until then (a second ``cancel`` would break off the cleanup that writes the
    report): asyncio drains its signal pipe until it is empty, so repeats sent back to back (a test's
    loop) kept the event loop in that drain and the run never reached its report."""

    def __init__(self) -> None:
        self.caught: list[int] = []
        self.armed = True

    def disarm(self) -> None:
        self.armed = False


@contextlib.contextmanager
def _signals_cancel(stop: _Stop) -> Iterator[None]:
    """Install ``stop``'s handlers for SIGINT and SIGTERM for the body of the ``with``.

    Signal handlers can only be installed from the main thread of a platform that has them; a caller
    that runs ``generate`` elsewhere (a worker thread of an embedding application) stops it by
    cancelling its task, which writes the report the same way."""
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    installed = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        def note(signum: int = signum) -> None:
            stop.caught.append(signum)
            for caught in installed:  # the rest are dropped by the OS until the report is written (_Stop)
                signal.signal(caught, signal.SIG_IGN)
            if stop.armed and task is not None:
                stop.disarm()
                task.cancel()
        try:
            loop.add_signal_handler(signum, note)
            installed.append(signum)
        except (NotImplementedError, RuntimeError, ValueError):
            continue  # not the main thread, or no signals here: cancelling the task stops the run (docstring)
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


async def generate(settings: GenerateSettings, roles: dict[str, ResolvedRole], *, retry_budget: int = 20,
                   backoff: float = 1.0, log: Log | None = None,
                   replay: Cassette | None = None) -> tuple[GenerationReport, int]:
    """Run (or resume) one domain's generation; returns its report and the exit code.

    ``replay``: every LLM answer comes from this cassette (``--replay``), none from an endpoint.

    Never raises for a failed run: the reason is the report's status and the exit code
    (1 bad output, 2 usage, 3 endpoint or harness). ``report.json`` is in the workdir.
    """
    log = log or (lambda message: None)
    settings.workdir.mkdir(parents=True, exist_ok=True)
    (settings.workdir / "report.json").unlink(missing_ok=True)  # a stale report must not pass for this run's
    report = GenerationReport(keyword=settings.keyword, slug=settings.slug, status="running",
                              workdir=str(settings.workdir), models={r: s.model for r, s in sorted(roles.items())},
                              retry_budget=retry_budget,
                              tasks=TaskStats(status="not reached", requested=max(0, settings.tasks)))
    store = ResponseStore(settings.workdir / "store", fresh=settings.fresh)
    budget = RetryBudget(retry_budget, base=backoff, seed=settings.seed)
    llm = LLMClient(roles, store, budget, concurrency=settings.concurrency, seed=settings.seed,
                    warn=lambda message: log(f"warning: {message}"), replay=replay)
    run = RunContext(settings, llm, store, report.models)
    error: BaseException | None = None
    stop = _Stop()
    code: int | None = None
    with _signals_cancel(stop):  # until the report is written: a signal in its cleanup is only noted
        try:
            require_out_free(settings.out, settings.workdir / "package" / settings.slug)
            await _stages(run, report, _run_date(store, settings.slug), log)
            report.status = "complete"
        except asyncio.CancelledError:
            if not stop.caught:
                report.status = "failed: cancelled"
                raise
            name = signal.Signals(stop.caught[0]).name
            report.status = f"interrupted by {name}: run the same command again to resume"
            code = 128 + stop.caught[0]
        except KeyboardInterrupt:  # SIGINT where no handler could be installed
            report.status = "interrupted by SIGINT: run the same command again to resume"
            raise
        except (ScaleEnvError, OSError) as failure:
            error = failure
            report.status = f"failed: {failure.message if isinstance(failure, ScaleEnvError) else failure}"
        except Exception as failure:  # a bug here or in a layer we call: report it, keep the work, exit 3
            error = failure
            report.status = f"failed: internal error {type(failure).__name__}: {failure} (traceback in error.txt)"
            atomic_write_text(settings.workdir / "error.txt", traceback.format_exc())
        finally:
            stop.disarm()
            await llm.aclose()
            report.usage, report.retries_used, report.warnings = run.ledger.rows(), budget.used, list(llm.warnings)
            atomic_write_text(settings.workdir / "report.json", report.model_dump_json(indent=1) + "\n")
    return report, code if code is not None else exit_code_for(error, report)
