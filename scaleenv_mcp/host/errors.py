"""The one place harness errors get their wire form: a JSON-RPC error on agent endpoints, an HTTP
status (``error_status``) on both listeners (the control API's JSON errors, the web view's pages,
and the agent listener's refusals before MCP).

Declared tool errors never come here: they are ``isError`` results (see ``server``). What
comes here is the harness failing or being misused; the message is safe to show (no paths,
no tracebacks) and ``data.code`` carries the stable error code. Pinned by
tests/contract/test_error_shape.py.
"""

from __future__ import annotations

from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST
from pydantic import ValidationError

from scaleenv_mcp.errors import (
    CapacityError,
    EnvironmentFaultError,
    EpisodeLostError,
    EpisodeNotFoundError,
    HarnessError,
    LimitExceededError,
    RequestTooLargeError,
    ScaleEnvError,
    UnknownToolError,
    UsageError,
    WorkerLostFaultError,
)

__all__ = ["HTTP_STATUS", "JSONRPC_CODES", "error_status", "to_mcp_error"]

# Looked up along the error's class hierarchy, most specific first.
HTTP_STATUS: dict[type[ScaleEnvError], int] = {
    EpisodeLostError: 410, EpisodeNotFoundError: 404, CapacityError: 429, RequestTooLargeError: 413,
    LimitExceededError: 429, UsageError: 400, WorkerLostFaultError: 503, EnvironmentFaultError: 500,
}


def error_status(error: Exception) -> tuple[int, str, str]:
    """(HTTP status, code, message) of an error: the one mapping, shared by both listeners and the web view."""
    if isinstance(error, ScaleEnvError):
        for cls in type(error).__mro__:
            if cls in HTTP_STATUS:
                return HTTP_STATUS[cls], error.code, error.message
        return 400, error.code, error.message
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        return 400, "invalid_request", f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
    return 500, "internal", "internal error"

EPISODE_NOT_FOUND = -32004
CAPACITY = -32005

JSONRPC_CODES: dict[type[ScaleEnvError], int] = {
    UnknownToolError: INVALID_PARAMS,
    EpisodeNotFoundError: EPISODE_NOT_FOUND,
    CapacityError: CAPACITY,
    LimitExceededError: CAPACITY,
    EnvironmentFaultError: INTERNAL_ERROR,
    UsageError: INVALID_REQUEST,
}


def to_mcp_error(error: ScaleEnvError) -> MCPError:
    for cls in type(error).__mro__:
        if cls in JSONRPC_CODES:
            return MCPError(JSONRPC_CODES[cls], error.message, {"code": error.code})
    code = INTERNAL_ERROR if isinstance(error, HarnessError) else INVALID_REQUEST
    return MCPError(code, error.message, {"code": error.code})
