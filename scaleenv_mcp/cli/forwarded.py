"""``scaleenv eval`` and ``scaleenv generate``: their options live with their layers (clients/,
generator/), so these commands parse nothing and hand their raw arguments over, importing
that layer only when the command runs (``scaleenv serve`` never loads openai)."""

from __future__ import annotations

import typer

__all__ = ["FORWARDED_SETTINGS", "doctor_command", "eval_command", "generate_command", "relay_command"]

FORWARDED_SETTINGS = {"ignore_unknown_options": True, "allow_extra_args": True}


def eval_command(ctx: typer.Context) -> None:
    """Evaluate an agent over MCP with a simulated user: avg@k, pass@k, pass^k (`scaleenv eval --help`)."""
    from scaleenv_mcp.clients.cli import main

    main(list(ctx.args))


def doctor_command(ctx: typer.Context) -> None:
    """Probe an OpenAI-compatible endpoint: what works for eval and generate, roles-file lines (`scaleenv doctor --help`)."""
    from scaleenv_mcp.clients.doctor import main

    main(list(ctx.args))


def generate_command(ctx: typer.Context) -> None:
    """Grow a new, validated domain from a keyword with any OpenAI-compatible LLM (`scaleenv generate --help`)."""
    from scaleenv_mcp.generator.cli import main

    main(list(ctx.args))


def relay_command(ctx: typer.Context) -> None:
    """An OpenAI-compatible endpoint on 127.0.0.1 answered through files, recording cassettes (`scaleenv relay --help`)."""
    from scaleenv_mcp.generator.relay import main

    main(list(ctx.args))
