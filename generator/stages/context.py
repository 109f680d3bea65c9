"""What every stage gets: the run's settings, the LLM client, the store, and usage counting.

A stage's output is stored keyed by a hash of its inputs (and of the role -> model map, so a
different model never reuses another's work); a restart that reaches a finished stage takes
the stored output and counts the stored usage as replayed, without calling anything. Stages
ask roles through ``StageScope.ask``, which renders the role's prompt file and counts usage
under the stage's own name (the report's rows are per stage and role).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from scaleenv_mcp.errors import ScaleEnvError
from scaleenv_mcp.generator.llm import LLMClient
from scaleenv_mcp.generator.prompting import render_prompt
from scaleenv_mcp.generator.report import StageRecord, UsageLedger
from scaleenv_mcp.generator.store import ResponseStore, content_key

__all__ = ["GenerateSettings", "GenerationError", "RunContext", "StageScope"]

Model = TypeVar("Model", bound=BaseModel)

#: Bump when a stage's logic changes what it produces from the same inputs.
STAGE_VERSION = "3"


class GenerationError(ScaleEnvError):
    """The models' output could not be made into a working domain (exit code 1): e.g. the
    database never loaded within its repair rounds, or no tool passed its tests."""

    code = "generation_failed"


class GenerateSettings(BaseModel):
    """Everything that decides what a run produces (besides the models' answers)."""

    keyword: str
    description: str = ""
    slug: str = Field(description="Package folder name and manifest slug.")
    out: Path
    workdir: Path
    max_rounds: int = Field(default=4, description="Debug rounds per tool before it is dropped.")
    concurrency: int = Field(default=4, description="Tools in parallel, and LLM requests in flight.")
    fresh: bool = False
    seed: int = 0
    tool_count: int = Field(default=30, description="Tools asked for in stage 2.")
    table_count: int = Field(default=6, description="Tables asked for in stage 3.")
    rows_per_table: int = Field(default=90, description="Seed rows asked for per table (6 x 90 > the 500 of the bar).")
    db_repair_rounds: int = Field(default=3, description="Repair rounds of the database before the run fails.")
    tasks: int = Field(default=20, description="Tasks asked of task synthesis in stage 7.")
    mutation: bool = Field(default=True, description="Run the mutation check in the final validation.")
    clock: str = Field(default="2026-03-10T09:00:00", description="The fixed 'now' of the generated world.")
    case_timeout: float = Field(default=5.0, description="Wall-time budget of one test case, seconds.")


class StageScope:
    """One stage (or one tool within stage 5): its name and its own usage ledger."""

    def __init__(self, run: RunContext, name: str) -> None:
        self.run = run
        self.name = name
        self.ledger = UsageLedger()

    async def ask(self, role: str, output: type[Model], *, context: dict[str, Any] | None = None,
                  **values: Any) -> Model:
        """Render ``role``'s prompt with ``values`` and parse the answer into ``output``."""
        messages = render_prompt(role, **values)
        return await self.run.llm.complete(role, self.run.stage_label(self.name), messages, output, self.ledger,
                                           context)


class RunContext:
    def __init__(self, settings: GenerateSettings, llm: LLMClient, store: ResponseStore, models: dict[str, str]) -> None:
        self.settings = settings
        self.llm = llm
        self.store = store
        self.models = models
        self.ledger = UsageLedger()

    @property
    def workdir(self) -> Path:
        return self.settings.workdir

    @staticmethod
    def stage_label(name: str) -> str:
        """Usage rows group per stage: ``procedural/<tool>`` counts as ``procedural``."""
        return name.split("/", 1)[0]

    async def stage(self, name: str, inputs: Any, output: type[Model],
                    compute: Callable[[StageScope], Awaitable[Model]]) -> Model:
        """The stored output of ``name`` for these inputs, or compute and store it."""
        key = content_key("stage", STAGE_VERSION, name, inputs, self.models)
        stored = self.store.get("stage", key)
        if stored is not None:
            record = StageRecord.model_validate(stored)
            self.ledger.merge(record.usage, replayed=True)
            return output.model_validate(record.output)
        scope = StageScope(self, name)
        try:
            result = await compute(scope)
        finally:
            self.ledger.merge(scope.ledger.rows())  # a failed stage's calls were spent all the same
        record = StageRecord(output=result.model_dump(mode="json"), usage=scope.ledger.rows())
        self.store.put("stage", key, record.model_dump(mode="json"))
        return result
