"""The one place harness errors become JSON-RPC errors on agent endpoints.

Declared tool errors never come here: they are ``isError`` results (see ``server``). What
comes here is the harness failing or being misused; the message is safe to show (no paths,
no tracebacks) and ``data.code`` carries the stable error code. Pinned by
tests/contract/test_error_shape.py.
"""

from __future__ import annotations

from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST

from scaleenv_mcp.errors import (
    CapacityError,
    EnvironmentFaultError,
    EpisodeNotFoundError,
    HarnessError,
    LimitExceededError,
    ScaleEnvError,
    UnknownToolError,
    UsageError,
)

__all__ = ["JSONRPC_CODES", "to_mcp_error"]

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
