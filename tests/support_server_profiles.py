"""How the model servers people run answer what our clients send: profiles for the loopback servers.

Both loopback servers (tests/support_llm_server.py for generate, tests/integration/eval_llm_server.py
for eval) take a ``ServerProfile`` and behave like that server would on the points our
clients depend on: which request fields it refuses and with which status, whether it shows
the model its tools without ``tool_choice``, whether it honours a forced (named) tool
choice and with which finish_reason, how it reports a reply cut at ``max_tokens`` (a tool call
with broken arguments, or the call's text when its parser gave up), and whether it refuses a
history whose tool-call arguments are not JSON. The behaviours and their sources
are listed in docs/model-servers.md; each field below says what it stands for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["PROFILES", "ServerProfile", "cut_usage", "uses_keyword"]


@dataclass(frozen=True)
class ServerProfile:
    name: str
    # status answered to an assistant message whose "content" is null (None: accepted)
    null_content_status: int | None = None
    # tools are put in the prompt only when the request has tool_choice (else the model answers in text)
    tools_need_tool_choice: bool = False
    # status answered to response_format {"type": "json_schema"} (None: supported)
    json_schema_status: int | None = None
    # a named tool_choice (a forced function call) is ignored: the model answers in text
    ignores_named_tool_choice: bool = False
    # finish_reason of a tool call cut at max_tokens ("length" for most; llama-cpp-python says "tool_calls")
    cut_tool_call_finish: str = "length"
    # status answered to a tool or response schema holding "pattern" (None: supported)
    pattern_status: int | None = None
    # finish_reason of a complete forced call (tool_choice named or "required"): vLLM keeps the engine's
    # "stop" (it says "tool_calls" only when its auto parser found the calls); the others say "tool_calls"
    forced_call_finish: str = "tool_calls"
    # a tool call cut at max_tokens comes back as text content, no tool_calls: the server's tool parser
    # could not parse it (vLLM and SGLang with tool_choice auto; SGLang for a forced call too)
    cut_auto_call_as_text: bool = False
    cut_forced_call_as_text: bool = False
    # status answered when an assistant tool call in the history has arguments that are not JSON (vLLM and
    # SGLang json.loads them before applying the chat template; a ValueError there is a 400)
    broken_history_arguments_status: int | None = None
    # status answered to any request with tools (llama.cpp's llama-server without --jinja: 500 "tools param
    # requires --jinja flag"; a gateway without tool support: 400). None: tools are taken
    tools_status: int | None = None
    # the smallest "maxLength" that kills the server when the model calls a tool whose parameters hold it
    # (None: never): llama-cpp-python's chatml-function-calling builds a grammar from the called tool's
    # parameters, llama.cpp's parser refuses the nested repetition a long maxLength becomes ("exceeds sane
    # defaults") and the server exits; in issue #31's sweep 500 passed and 2,000 killed it (docs/model-servers.md).
    # The connection drops, and so does every later one: there is no refusal to react to
    dies_on_max_length: int | None = None
    # the answer to a prompt longer than the model's context (None: the server cuts the prompt silently, as
    # Ollama does by default). OpenAI and vLLM word it "This model's maximum context length is N tokens";
    # llama-cpp-python the same (seen in issue #31's sweep); SGLang "longer than the model's context length"
    context_error: tuple[int, str] | None = (
        400, "This model's maximum context length is 1536 tokens. However, you requested 1584 tokens (1536 in the "
             "messages, 48 in the completion). Please reduce the length of the messages or completion.")

    def dies_on(self, body: dict[str, Any], message: dict[str, Any]) -> bool:
        """Does answering ``body`` with ``message`` kill this server?"""
        if self.dies_on_max_length is None:
            return False
        called = {c["function"]["name"] for c in message.get("tool_calls") or []}
        schemas = [t["function"].get("parameters") for t in body.get("tools") or [] if t["function"]["name"] in called]
        return any(length >= self.dies_on_max_length for length in _keyword_values(schemas, "maxLength"))

    def refusal(self, body: dict[str, Any]) -> tuple[int, str] | None:
        """(status, message) when this server refuses the request as a whole, else None."""
        for index, message in enumerate(body.get("messages", [])):
            if "content" in message and message["content"] is None and self.null_content_status:
                return self.null_content_status, f"messages.{index}.content: Input should be a valid string"
        if self.broken_history_arguments_status and _broken_history_arguments(body.get("messages", [])):
            return self.broken_history_arguments_status, "Expecting value: line 1 column 1 (char 0)"
        if self.tools_status and body.get("tools"):
            return self.tools_status, "tools param requires --jinja flag"
        response_format = body.get("response_format") or {}
        if response_format.get("type") == "json_schema" and self.json_schema_status:
            return self.json_schema_status, "response_format json_schema: failed to build the grammar"
        if self.pattern_status and uses_keyword([body.get("tools"), body.get("response_format")], "pattern"):
            return self.pattern_status, "schema keyword 'pattern' is not supported by the grammar converter"
        return None

    def shows_tools(self, body: dict[str, Any]) -> bool:
        """Does the model see the tools of this request?"""
        return bool(body.get("tools")) and not (self.tools_need_tool_choice and body.get("tool_choice") is None)

    def forces_named_tool(self, body: dict[str, Any]) -> bool:
        """A forced function call that this server honours (else the model may answer in text)."""
        choice = body.get("tool_choice")
        return isinstance(choice, dict) and not self.ignores_named_tool_choice

    def forced(self, body: dict[str, Any]) -> bool:
        """Does this request force a tool call (tool_choice named or "required")?"""
        choice = body.get("tool_choice")
        return isinstance(choice, dict) or choice == "required"

    def cut_call_text(self, body: dict[str, Any], name: str, arguments: str) -> str | None:
        """The text content a tool call cut at max_tokens comes back as when this server's parser gives
        up on it (SGLang's forced calls are a JSON array, auto calls the model's own markup), else None."""
        if self.forced(body) and self.cut_forced_call_as_text:
            return f'[{{"name": "{name}", "parameters": {arguments}'
        if not self.forced(body) and self.cut_auto_call_as_text:
            return f'<tool_call>\n{{"name": "{name}", "arguments": {arguments}'
        return None


def _broken_history_arguments(messages: list[dict[str, Any]]) -> bool:
    for message in messages:
        for call in message.get("tool_calls") or []:
            try:
                json.loads(call.get("function", {}).get("arguments") or "{}")
            except json.JSONDecodeError:
                return True
    return False


def _keyword_values(value: Any, keyword: str) -> list[Any]:
    """Every value ``keyword`` has as a keyword in the schemas of ``value`` (not as a property name)."""
    if isinstance(value, list):
        return [found for item in value for found in _keyword_values(item, keyword)]
    if not isinstance(value, dict):
        return []
    found = [value[keyword]] if keyword in value and not isinstance(value[keyword], (dict, list)) else []
    for key, sub in value.items():
        found += _keyword_values(list(sub.values()) if key == "properties" and isinstance(sub, dict) else sub, keyword)
    return found


def uses_keyword(value: Any, keyword: str) -> bool:
    """Does a schema in ``value`` use ``keyword`` as a keyword, as a grammar converter reads it? A
    parameter named after it (a key of ``properties``) or the word in a description is not a use."""
    if isinstance(value, list):
        return any(uses_keyword(item, keyword) for item in value)
    if not isinstance(value, dict):
        return False
    if keyword in value and isinstance(value[keyword], (str, int)) and not isinstance(value[keyword], bool):
        return True
    properties = value.get("properties")
    named = list(properties.values()) if isinstance(properties, dict) else []
    return any(uses_keyword(v, keyword) for k, v in value.items() if k != "properties") or uses_keyword(named, keyword)


def cut_usage(body: dict[str, Any], prompt_tokens: int) -> dict[str, int]:
    """Usage of a reply that spent its whole ``max_tokens`` (what every server reports then)."""
    cap = int(body.get("max_tokens") or body.get("max_completion_tokens") or 256)
    return {"prompt_tokens": prompt_tokens, "completion_tokens": cap, "total_tokens": prompt_tokens + cap}


PROFILES = {
    # OpenAI itself: the reference every other server imitates.
    "openai": ServerProfile("openai"),
    # llama-cpp-python 0.3.x `python -m llama_cpp.server --chat_format chatml-function-calling` (issue #31).
    "llama.cpp": ServerProfile("llama.cpp", null_content_status=500, tools_need_tool_choice=True,
                               json_schema_status=500, cut_tool_call_finish="tool_calls", pattern_status=500,
                               dies_on_max_length=2000),
    # vLLM served with --enable-auto-tool-choice --tool-call-parser P (features/tool_calling page of the vLLM docs;
    # entrypoints/openai/serving_chat.py; chat_utils._postprocess_messages): named and "required" calls come
    # from structured outputs with finish_reason "stop"; the auto parser gives up on a cut call (text
    # content); tool-call arguments in the history must be JSON (else 400).
    "vllm": ServerProfile("vllm", forced_call_finish="stop", cut_auto_call_as_text=True,
                          broken_history_arguments_status=400),
    # Ollama's /v1 compatibility layer: tool_choice is not a supported field (a forced call is not honoured).
    "ollama": ServerProfile("ollama", ignores_named_tool_choice=True, context_error=None),
    # SGLang with --tool-call-parser P (srt/entrypoints/openai/serving_chat.py: _process_tool_calls,
    # _apply_jinja_template): a forced call is a JSON array under a grammar, parsed after the fact, so a cut
    # one (auto or forced) comes back as text; history arguments are orjson.loads'd (a ValueError: 400).
    "sglang": ServerProfile("sglang", cut_auto_call_as_text=True, cut_forced_call_as_text=True,
                            broken_history_arguments_status=400, context_error=(
                                400, "The input (1584 tokens) is longer than the model's context length (1536 "
                                     "tokens).")),
}
