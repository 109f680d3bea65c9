"""The project's exception tree, with a stable code on every error.

Two families, kept apart because they mean different things to an agent and to a harness:

    ScaleEnvError
    ├── ToolError                 the world said no: becomes an MCP ``isError`` result
    │   ├── NotFoundError            code ``not_found``
    │   ├── InvalidArgumentError     code ``invalid_argument``
    │   ├── ConflictError            code ``conflict``
    │   ├── NotPermittedError        code ``not_permitted`` (a rule of the world forbids it)
    │   └── PermissionDeniedError    code ``permission_denied`` (the acting principal may not do it)
    ├── HarnessError              the environment failed or was misused: a JSON-RPC error,
    │   │                         nothing of the host's internals leaked
    │   ├── UnknownToolError         code ``unknown_tool``
    │   ├── EpisodeNotFoundError     code ``episode_not_found``
    │   │   ├── SnapshotNotFoundError    code ``snapshot_not_found``
    │   │   ├── EpisodeExpiredError      code ``episode_expired`` (a keyed episode that expired or was closed)
    │   │   └── EpisodeLostError         code ``episode_lost`` (its host stopped, or its worker died and replay failed)
    │   ├── CapacityError            code ``capacity``
    │   ├── LimitExceededError       code ``limit_exceeded``
    │   ├── ControlAuthError         code ``unauthorized`` (control API: token, Host or Origin refused)
    │   └── EnvironmentFaultError    code ``environment_fault`` (tool crash, timeout, lost worker)
    │       └── WorkerLostFaultError     code ``worker_lost`` (the worker died under this request; retry)
    ├── DomainError               a domain package is broken: file, field and reason
    └── UsageError                bad input to a CLI command or Python API call
        ├── UnknownTaskError         code ``usage`` (a task id the domain does not have)
        ├── CallIdReusedError        code ``call_id_reused`` (a call id repeated with other arguments)
        ├── EpisodeFileError         code ``bad_episode_file`` (an exported episode file refused on import)
        │   └── DomainVersionError       code ``domain_version_mismatch`` (made by another version of the domain)
        └── RequestTooLargeError     code ``request_too_large`` (an HTTP body past its limit: 413)

Tool code raises only the ``ToolError`` family (through ``scaleenv_mcp.toolkit``); any
other exception escaping a tool is an environment fault, never the agent's failure.
"""

from __future__ import annotations

__all__ = [
    "CallIdReusedError",
    "CapacityError",
    "ConflictError",
    "ControlAuthError",
    "DomainError",
    "DomainVersionError",
    "EnvironmentFaultError",
    "EpisodeFileError",
    "EpisodeExpiredError",
    "EpisodeLostError",
    "EpisodeNotFoundError",
    "HarnessError",
    "InvalidArgumentError",
    "LimitExceededError",
    "NotFoundError",
    "NotPermittedError",
    "PermissionDeniedError",
    "RequestTooLargeError",
    "ScaleEnvError",
    "SnapshotNotFoundError",
    "ToolError",
    "UnknownTaskError",
    "UnknownToolError",
    "UsageError",
    "WorkerLostFaultError",
    "TOOL_ERROR_CODES",
    "tool_error_for_code",
]


class ScaleEnvError(Exception):
    """Root of every error this project raises on purpose."""

    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ToolError(ScaleEnvError):
    """A declared domain error: the call was refused and its writes rolled back."""

    code = "tool_error"


class NotFoundError(ToolError):
    code = "not_found"


class InvalidArgumentError(ToolError):
    code = "invalid_argument"


class ConflictError(ToolError):
    code = "conflict"


class NotPermittedError(ToolError):
    code = "not_permitted"


class PermissionDeniedError(ToolError):
    """The acting principal may not do this (ownership, role or membership): names the rule."""

    code = "permission_denied"


TOOL_ERROR_CODES: dict[str, type[ToolError]] = {
    cls.code: cls for cls in (NotFoundError, InvalidArgumentError, ConflictError, NotPermittedError, PermissionDeniedError)
}


def tool_error_for_code(code: str, message: str) -> ToolError:
    """Rebuild a tool error that crossed a process boundary as (code, message)."""
    return TOOL_ERROR_CODES.get(code, ToolError)(message)


class HarnessError(ScaleEnvError):
    """The harness failed or was misused; reported as a JSON-RPC error or an HTTP status."""

    code = "harness_error"


class UnknownToolError(HarnessError):
    code = "unknown_tool"


class EpisodeNotFoundError(HarnessError):
    code = "episode_not_found"


class SnapshotNotFoundError(EpisodeNotFoundError):
    """No such snapshot: never taken, deleted, or deleted with the episode that owned it."""

    code = "snapshot_not_found"


class EpisodeExpiredError(EpisodeNotFoundError):
    """A keyed episode (``/mcp/{domain}/s/{key}``) that expired or was closed: the key is remembered,
    so its next use says so instead of quietly starting a fresh, empty episode."""

    code = "episode_expired"


class EpisodeLostError(EpisodeNotFoundError):
    """The episode existed but its state is gone for good: the host that held it stopped (killed,
    crashed or restarted), or its worker died and the episode could not be rebuilt by replay. A
    harness that treats "not found" as "start a new episode" keeps working; one that looks at the
    code knows the episode did not simply end (HTTP 410)."""

    code = "episode_lost"


class CapacityError(HarnessError):
    """A live-episode cap was reached; nobody else's episode was evicted."""

    code = "capacity"


class LimitExceededError(HarnessError):
    """An episode hit one of its own limits (calls, trace length, database size)."""

    code = "limit_exceeded"


class ControlAuthError(HarnessError):
    """The control API refused the caller: missing or wrong bearer token, or a foreign Host/Origin."""

    code = "unauthorized"


class EnvironmentFaultError(HarnessError):
    """Tool code crashed, ran past its budget or lost its worker: infrastructure, not the agent."""

    code = "environment_fault"


class WorkerLostFaultError(EnvironmentFaultError):
    """The worker process running this request died under it (killed from outside, crashed). Nothing
    of the request was kept; the episode is rebuilt by replay on a fresh worker, so a retry is safe
    (HTTP 503). Not the agent's doing; a call past its own budget is a plain ``environment_fault``."""

    code = "worker_lost"


class DomainError(ScaleEnvError):
    """A domain package is broken. Names the file, the field (if any) and the reason."""

    code = "domain_invalid"

    def __init__(self, file: str, reason: str, field: str | None = None) -> None:
        where = f"{file}: {field}" if field else file
        super().__init__(f"{where}: {reason}")
        self.file = file
        self.field = field
        self.reason = reason


class UsageError(ScaleEnvError):
    code = "usage"


class UnknownTaskError(UsageError):
    """A task id the domain does not have (the CLI adds the command that lists its tasks)."""


class CallIdReusedError(UsageError):
    """A call id (``_meta["scaleenv/call_id"]``) sent again with another tool or other arguments: refused,
    nothing run. The same id with the same call is a retry and gets the first answer back."""

    code = "call_id_reused"


class RequestTooLargeError(UsageError):
    """An HTTP request body over the listener's limit, refused by its declared length before reading."""

    code = "request_too_large"


class EpisodeFileError(UsageError):
    """An exported episode file that cannot be imported here: another format version, corrupted or
    truncated, a domain or task not served, an SQLite image that fails validation. Nothing was created."""

    code = "bad_episode_file"


class DomainVersionError(EpisodeFileError):
    """An episode file made by another version of its domain package (names both content hashes);
    importing it anyway takes ``allow_other_version`` (``--force``)."""

    code = "domain_version_mismatch"
