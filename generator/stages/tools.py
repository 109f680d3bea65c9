"""Stage 2: tool schemas, top-down from the card (paper phase 1, step 2), planned then batched.

A real domain has 30 to 70 tools, and one reply holding every full schema would run past
any model's output budget. So the model first plans the whole set (names, purpose, whether
each changes state: a small answer that keeps the set coherent), then writes full schemas
(parameters, output structure, pre- and post-conditions, declared errors) for a batch of
planned tools at a time, seeing the whole plan. This stage only normalises what the package
format pins and models often leave out (``additionalProperties: false`` and a ``required``
list on every input schema), so tools validate as ``ToolSpec`` and the loader's signature
check has a definite answer.
"""

from __future__ import annotations

from typing import Any

from scaleenv_mcp.domain.manifest import ToolSpec
from scaleenv_mcp.generator.drafts import DomainCard, ToolDrafts, ToolPlan
from scaleenv_mcp.generator.gathering import gather_all
from scaleenv_mcp.generator.stages.context import RunContext, StageScope

__all__ = ["BATCH", "normalise_tool", "run_tool_schemas"]

BATCH = 6  # full schemas per request


def normalise_tool(tool: ToolSpec) -> ToolSpec:
    schema: dict[str, Any] = dict(tool.input_schema)
    schema.setdefault("properties", {})
    schema["required"] = [name for name in schema.get("required", []) if name in schema["properties"]]
    schema["additionalProperties"] = False
    return tool.model_copy(update={"input_schema": schema, "reads": [], "writes": []})


async def run_tool_schemas(run: RunContext, card: DomainCard) -> ToolDrafts:
    count = run.settings.tool_count

    async def compute(scope: StageScope) -> ToolDrafts:
        plan = await scope.ask("tool_plan", ToolPlan, card=card, tool_count=str(count))
        names = [t.name for t in plan.tools]
        batches = [names[i:i + BATCH] for i in range(0, len(names), BATCH)]
        answers = await gather_all(scope.ask("tool_schemas", ToolDrafts, context={"names": batch}, card=card,
                                             plan=plan, batch=", ".join(batch)) for batch in batches)
        by_name = {t.name: t for answer in answers for t in answer.tools}
        return ToolDrafts(tools=[normalise_tool(by_name[name]) for name in names])

    return await run.stage("tools", {"card": card.model_dump(), "count": count}, ToolDrafts, compute)
