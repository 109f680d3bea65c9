"""``scaleenv doctor``: probe an OpenAI-compatible endpoint the way eval and generate will use it.

Each probe is one small request (short timeout, no retries) on a point where servers differ
(docs/model-servers.md): plain chat, tools with ``tool_choice`` auto and required and without
it, a tool-result turn, an assistant turn with ``content: null``, a history whose tool-call
arguments are not JSON (vLLM and SGLang answer 400), structured output in each
mode, a reply cut at a small ``max_tokens``, a ``pattern`` in a json_schema and, apart, in a
tool's parameters (what eval's agent sends: every shipped domain has patterns). It prints a verdict
per probe, what our clients do about it, and the roles-file lines to use. The whole run has a
wall-clock deadline (``--deadline``, 50 s): a server that accepts and never answers cannot make
it hang probe after probe. A port with nothing listening, or a server that answers nothing
before the deadline, is one line naming the URL, exit 3.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Annotated, Any

import typer
from pydantic import BaseModel

from scaleenv_mcp.truncation import is_truncated

__all__ = ["Probe", "app", "main", "run_probes"]

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

_TOOL = {"type": "function", "function": {
    "name": "lookup_order", "description": "Look up an order by its id (ORD-N).",
    "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}}
_ASK = [{"role": "system", "content": "You are a support agent. Use the tools."},
        {"role": "user", "content": "Please look up order ORD-1."}]
_SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
_JSON_ASK = [{"role": "user", "content": 'Reply with a JSON object {"answer": "<one word>"} and nothing else.'}]


class Probe(BaseModel):
    name: str
    ok: bool
    verdict: str
    action: str = ""


class _Unreachable(Exception):
    pass


class _Prober:
    """One endpoint's probes under one whole-run deadline: each request gets at most ``timeout`` and
    at most what is left of ``deadline``, enforced on the wall clock (a server that accepts and never
    answers, or drips a byte at a time under the read timeout, cannot stretch it); once the deadline
    has passed, the remaining probes are not tried."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float, deadline: float) -> None:
        import openai

        self.timeout, self.deadline = timeout, deadline
        self.ends = time.monotonic() + deadline
        self.answered = False  # did any request get an answer (even a refusal)?
        self.lost = ""  # the probe after which the connection dropped: a server that answered, then died
        self.loop = asyncio.new_event_loop()
        self.client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed", max_retries=0,
                                         timeout=timeout)

    def call(self, model: str, request: dict[str, Any]) -> tuple[Any | None, str]:
        """(completion, "") or (None, why): one request, no retries."""
        import openai

        budget = min(self.timeout, self.ends - time.monotonic())
        if budget <= 0:
            return None, f"not tried: doctor's {self.deadline:g}s deadline had passed"
        if self.lost:
            return None, f"not tried: the server stopped answering ({self.lost})"
        try:
            reply = self.loop.run_until_complete(
                asyncio.wait_for(self.client.chat.completions.create(model=model, **request), budget))
        except (asyncio.TimeoutError, openai.APITimeoutError):
            return None, f"no answer within {budget:.3g}s"
        except openai.APIConnectionError as error:
            if not self.answered:
                raise _Unreachable(str(error)) from None
            # it answered before: this request killed it (llama-cpp-python dies building some grammars)
            self.lost = "the connection dropped during an earlier probe"
            return None, "the connection dropped: the server may have died on this request"
        except openai.APIStatusError as error:
            self.answered = True
            return None, f"refused (HTTP {error.status_code}: {str(getattr(error, 'message', error))[:120]})"
        self.answered = True
        return reply, ""

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.loop.run_until_complete(asyncio.wait_for(self.client.close(), 5))
        self.loop.close()


def _call(client: _Prober, model: str, **request: Any) -> tuple[Any | None, str]:
    return client.call(model, request)


def _parses(text: str | None) -> bool:
    try:
        return isinstance(json.loads(text or ""), dict)
    except ValueError:
        return False


def _tool_probe(client: _Prober, model: str, name: str, choice: Any, action: str) -> Probe:
    request: dict[str, Any] = {"messages": _ASK, "tools": [_TOOL], "max_tokens": 200}
    if choice is not None:
        request["tool_choice"] = choice
    reply, why = _call(client, model, **request)
    if reply is None:
        return Probe(name=name, ok=False, verdict=why, action=action)
    calls = reply.choices[0].message.tool_calls or []
    if calls:
        return Probe(name=name, ok=True, verdict=f"tool call {calls[0].function.name}")
    return Probe(name=name, ok=False, verdict="answered in text, no tool call", action=action)


def run_probes(base_url: str, model: str, api_key: str | None = None, timeout: float = 20.0,
               deadline: float = 50.0) -> list[Probe]:
    """Every probe against the endpoint, in order, all within ``deadline`` seconds.

    Raises:
        _Unreachable: nothing answers at ``base_url`` (no connection, or not one answer before the deadline).
    """
    client = _Prober(base_url, api_key, timeout, deadline)
    try:
        probes = _probes(client, model)
    finally:
        client.close()
    if not client.answered:
        raise _Unreachable(f"it took the connection but answered nothing within doctor's {deadline:g}s deadline")
    return probes


def _probes(client: _Prober, model: str) -> list[Probe]:
    probes = []
    reply, why = _call(client, model, messages=[{"role": "user", "content": "Say OK."}], max_tokens=16)
    probes.append(Probe(name="chat", ok=reply is not None, verdict="ok" if reply else why,
                        action="" if reply else "nothing will work: check --model and the API key"))
    probes.append(_tool_probe(client, model, "tools, tool_choice auto", "auto",
                              "eval sends tool_choice auto; an agent without tool calls is reported (no_tool_call)"))
    probes.append(_tool_probe(client, model, "tools, tool_choice required", "required", "not needed by our clients"))
    probes.append(_tool_probe(client, model, "tools, no tool_choice", None,
                              "this server shows tools only with tool_choice: eval always sends it"))
    call = {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": '{"order_id": "ORD-1"}'}}
    result = {"role": "tool", "tool_call_id": "call_1", "content": '{"status": "shipped"}'}
    broken = {**call, "function": {**call["function"], "arguments": '{"order_id": "ORD-'}}  # a cut call's
    for name, content, sent, action in (
            ("tool result turn", "", call, "eval cannot score agents on this server"),
            ("assistant content null", None, call, 'eval sends content "" instead'),
            ("history arguments not JSON", "", broken, "eval sends a cut or malformed call's arguments back as {}")):
        turn = [*_ASK, {"role": "assistant", "content": content, "tool_calls": [sent]}, result]
        reply, why = _call(client, model, messages=turn, tools=[_TOOL], tool_choice="auto", max_tokens=100)
        probes.append(Probe(name=name, ok=reply is not None, verdict="accepted" if reply else why,
                            action="" if reply else action))
    probes += _structured_probes(client, model)
    reply, why = _call(client, model, messages=[{"role": "user", "content": "Count from 1 to 200, comma-separated."}],
                       max_tokens=8)
    if reply is None:
        probes.append(Probe(name="truncation at max_tokens 8", ok=False, verdict=why))
    else:
        finish, used = reply.choices[0].finish_reason, reply.usage.completion_tokens if reply.usage else None
        seen = is_truncated(finish, used, 8)
        probes.append(Probe(name="truncation at max_tokens 8", ok=seen,
                            verdict=f"finish_reason {finish!r}, {used} completion tokens",
                            action="" if seen else "a cut reply cannot be told apart: raise max_tokens generously"))
    return probes


def _structured_probes(client: _Prober, model: str) -> list[Probe]:
    schema_format = {"type": "json_schema", "json_schema": {"name": "answer", "schema": _SCHEMA, "strict": False}}
    tool = {"type": "function", "function": {"name": "submit_answer", "parameters": _SCHEMA}}
    probes = []
    reply, why = _call(client, model, messages=_JSON_ASK, response_format=schema_format, max_tokens=100)
    good = reply is not None and _parses(reply.choices[0].message.content)
    probes.append(Probe(name="structured json_schema", ok=good, verdict="valid JSON" if good else
                        (why if reply is None else "reply is not a JSON object"),
                        action="" if good else "generate tries plain mode (a 5xx once, a 400 for good)"))
    reply, why = _call(client, model, messages=_JSON_ASK, tools=[tool], max_tokens=100,
                       tool_choice={"type": "function", "function": {"name": "submit_answer"}})
    calls = (reply.choices[0].message.tool_calls or []) if reply is not None else []
    good = bool(calls) and _parses(calls[0].function.arguments)
    probes.append(Probe(name="structured tool (forced call)", ok=good, verdict="valid arguments" if good else
                        (why if reply is None else "no forced call, or arguments not JSON"),
                        action="" if good else 'do not use structured = "tool"'))
    reply, why = _call(client, model, messages=_JSON_ASK, max_tokens=100)
    good = reply is not None and _parses(reply.choices[0].message.content)
    probes.append(Probe(name="structured plain", ok=good, verdict="valid JSON" if good else
                        (why if reply is None else "not bare JSON (generate strips fences and repairs)")))
    patterned = {**_SCHEMA, "properties": {"answer": {"type": "string", "pattern": "^[a-z]+$"}}}
    reply, why = _call(client, model, messages=_JSON_ASK, max_tokens=100, response_format={
        "type": "json_schema", "json_schema": {"name": "answer", "schema": patterned, "strict": False}})
    probes.append(Probe(name="schema pattern (json_schema)", ok=reply is not None,
                        verdict="accepted" if reply else why,
                        action="" if reply else 'use structured = "plain" (patterns are then checked by us)'))
    probes.append(_tool_pattern_probe(client, model))
    return probes


def _tool_pattern_probe(client: _Prober, model: str) -> Probe:
    """``pattern`` in a tool's parameters, apart from json_schema: a server may refuse one and not the
    other, and every shipped domain's tools have patterns (eval's agent sends them). With the
    ``maxLength`` the host gives every string it serves: llama-cpp-python dies building a grammar from
    one (issue #31's sweep), and that is what eval's first tool call would meet."""
    order_id = {"type": "string", "pattern": "^ORD-[0-9]+$", "maxLength": 10_000, "description": "The order's id."}
    tool = {"type": "function", "function": {**_TOOL["function"], "parameters": {
        **_TOOL["function"]["parameters"], "properties": {"order_id": order_id}}}}
    reply, why = _call(client, model, messages=_ASK, tools=[tool], tool_choice="auto", max_tokens=200)
    if reply is not None:
        return Probe(name="schema pattern (tools)", ok=True, verdict="accepted")
    if why.startswith("refused"):
        action = ("eval resends the tools with schemas reduced to a portable subset (results.json schema_fallback); "
                  "in generate avoid structured = \"tool\"")
    else:  # no refusal to react to: a server that hangs or dies on a schema (llama-cpp-python on a maxLength)
        action = ("no refusal to fall back from: run eval with --portable-schemas (reduced schemas from the first "
                  "request); in generate avoid structured = \"tool\"")
    return Probe(name="schema pattern (tools)", ok=False, verdict=why, action=action)


def roles_lines(probes: list[Probe], base_url: str, model: str) -> list[str]:
    """The roles-file lines (generate) this endpoint needs."""
    ok = {p.name: p.ok for p in probes}
    # a server that cannot take "pattern" in a mode fails on our schemas in that mode
    if ok.get("structured json_schema") and ok.get("schema pattern (json_schema)", True):
        mode = "auto"
    elif ok.get("structured tool (forced call)") and ok.get("schema pattern (tools)", True):
        mode = "tool"
    else:
        mode = "plain"
    lines = ["[default]", f'model = "{model}"', f'base_url = "{base_url}"', f'structured = "{mode}"']
    if not ok.get("truncation at max_tokens 8", True):
        # generous, but prompt + max_tokens must fit the server's context (a local server started with a small
        # --n_ctx refuses every longer request: HTTP 400), which doctor cannot see
        lines.append("max_tokens = 8000  # lower it when the server's context is smaller than prompt + 8000")
    return lines


@app.command()
def doctor(
    base_url: Annotated[str, typer.Option(help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")],
    model: Annotated[str, typer.Option(help="Model name to probe.")],
    api_key: Annotated[str | None, typer.Option(help="API key (default: none; local servers need none).")] = None,
    timeout: Annotated[float, typer.Option(min=1, help="Seconds per probe at most.")] = 20.0,
    deadline: Annotated[float, typer.Option(min=1, help="Seconds for the whole run: probes not tried by then "
                                                         "are reported as not tried.")] = 50.0,
    json_output: Annotated[bool, typer.Option("--json", help="Print the verdicts as JSON.")] = False,
) -> None:
    """Probe an endpoint: what works, what eval and generate will do about what does not, roles-file lines."""
    from scaleenv_mcp.console import EXIT_ENV, console, err_console, print_json

    try:
        probes = run_probes(base_url, model, api_key, timeout, deadline)
    except _Unreachable as error:
        err_console.print(f"[bold red]error:[/] nothing answers at {base_url} ({error})", highlight=False)
        raise typer.Exit(EXIT_ENV) from None
    lines = roles_lines(probes, base_url, model)
    if json_output:
        print_json({"base_url": base_url, "model": model, "probes": [p.model_dump() for p in probes],
                    "roles_file": lines})
        return
    for probe in probes:
        mark = "[green]ok[/]  " if probe.ok else "[yellow]no[/]  "
        console.print(f"{mark}{probe.name}: {probe.verdict}" + (f" -> {probe.action}" if probe.action else ""),
                      highlight=False)
    console.print("\nroles file for scaleenv generate (docs/model-servers.md):", highlight=False)
    console.print("\n".join(lines), highlight=False, markup=False)


def main(args: list[str]) -> None:
    """Entry point for ``scaleenv doctor ARGS`` (the core CLI forwards its arguments here)."""
    from scaleenv_mcp.console import run_app

    run_app(app, "scaleenv doctor", args)
