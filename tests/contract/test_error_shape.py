"""Errors keep one shape per surface: agents read JSON-RPC codes plus a stable ``data.code``,
harnesses read ``{"error": {"code", "message"}}`` with an HTTP status; neither carries a path or a
traceback, whatever the error says internally."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ValidationError

from scaleenv_mcp import errors
from scaleenv_mcp.host.control import error_response
from scaleenv_mcp.host.errors import to_mcp_error

HARNESS = [
    (errors.UnknownToolError("no tool 'x'"), -32602, "unknown_tool"),
    (errors.EpisodeNotFoundError("episode E is closed"), -32004, "episode_not_found"),
    (errors.CapacityError("cap reached"), -32005, "capacity"),
    (errors.LimitExceededError("too many calls"), -32005, "limit_exceeded"),
    (errors.EnvironmentFaultError("worker lost"), -32603, "environment_fault"),
    (errors.UsageError("bad request"), -32600, "usage"),
    (errors.EpisodeLostError("episode lost: its host stopped"), -32004, "episode_lost"),
    (errors.WorkerLostFaultError("the worker died under it"), -32603, "worker_lost"),
]


@pytest.mark.parametrize(("error", "jsonrpc", "code"), HARNESS)
def test_agent_errors_carry_a_jsonrpc_code_and_a_stable_data_code(error, jsonrpc: int, code: str):
    mapped = to_mcp_error(error)
    assert (mapped.code, mapped.data) == (jsonrpc, {"code": code})
    assert mapped.message == error.message


@pytest.mark.parametrize(("error", "jsonrpc", "code"), HARNESS)
def test_control_errors_have_one_json_shape(error, jsonrpc: int, code: str):
    response = error_response(error)
    body = json.loads(response.body)
    assert set(body) == {"error"} and body["error"] == {"code": code, "message": error.message}
    assert 400 <= response.status_code < 600


def test_unexpected_errors_say_nothing_internal():
    response = error_response(RuntimeError("/home/someone/secret.py line 3 exploded"))
    assert response.status_code == 500 and json.loads(response.body) == {"error": {"code": "internal", "message": "internal error"}}

    class Body(BaseModel):
        n: int

    with pytest.raises(ValidationError) as invalid:
        Body.model_validate({"n": "x"})
    shaped = json.loads(error_response(invalid.value).body)["error"]
    assert shaped["code"] == "invalid_request" and shaped["message"].startswith("n: ")
