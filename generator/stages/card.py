"""Stage 1: the domain card (title, description, keywords, main entities) from the keyword.

Everything downstream is conditioned on the card, so it is asked once and stored; the
user's ``--description`` is passed through verbatim to steer it.
"""

from __future__ import annotations

from scaleenv_mcp.generator.drafts import DomainCard
from scaleenv_mcp.generator.stages.context import RunContext, StageScope

__all__ = ["run_card"]


async def run_card(run: RunContext) -> DomainCard:
    settings = run.settings

    async def compute(scope: StageScope) -> DomainCard:
        return await scope.ask("domain_card", DomainCard, keyword=settings.keyword,
                               description=settings.description or "(none)")

    return await run.stage("card", {"keyword": settings.keyword, "description": settings.description}, DomainCard,
                           compute)
