"""What agents see of a tool besides its name: a title, MCP annotations, portable schemas.

Derived from the manifest at serving time, never stored in it (the package hash, hence the
validation record, stays as it is):

- ``readOnlyHint`` from the manifest's ``writes`` (empty: read-only); ``openWorldHint`` is
  always false (a tool touches only its episode's database).
- ``destructiveHint`` for a writing tool unless its verb only adds (create_, add_, book_...):
  the MCP meaning is "may change or remove what is there", not "adds".
- ``idempotentHint`` for read-only tools and writers whose verb sets a value (set_, update_...):
  the same call twice leaves the state as once.
- Schemas: a ``type`` array (``["string", "null"]``) becomes ``anyOf`` branches with one
  ``type`` each, the form the MCP Inspector's portability check (``--strict``) accepts and
  single-type dialects (Gemini's OpenAPI subset) can map. The arguments accepted are the same.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from scaleenv_mcp.domain.manifest import ToolSpec

__all__ = ["ADDITIVE_VERBS", "SETTING_VERBS", "portable_schema", "tool_annotations", "tool_title"]

ADDITIVE_VERBS = frozenset({"create", "add", "book", "place", "register", "submit", "send", "post", "log", "record",
                            "schedule", "enroll", "apply", "request", "upload", "open", "file", "report", "invite"})
SETTING_VERBS = frozenset({"set", "update", "change", "rename", "mark", "enable", "disable", "assign", "edit",
                           "configure", "adjust"})
_NULL_BRANCH_KEYS = ("enum", "const")  # the only keywords that also constrain a null
_ANNOTATION_KEYS = ("title", "description", "default", "examples")  # stay on the node: they describe it


def tool_title(name: str) -> str:
    """'create_room' -> 'Create room'."""
    return name.replace("_", " ").replace("-", " ").capitalize()


def tool_annotations(tool: ToolSpec) -> types.ToolAnnotations:
    verb = tool.name.split("_", 1)[0].lower()
    read_only = not tool.writes
    return types.ToolAnnotations(
        title=tool_title(tool.name),
        read_only_hint=read_only,
        destructive_hint=not read_only and verb not in ADDITIVE_VERBS,
        idempotent_hint=read_only or verb in SETTING_VERBS,
        open_world_hint=False,
    )


def portable_schema(schema: Any) -> Any:
    """The same schema with every ``type`` array split into single-type ``anyOf`` branches."""
    if isinstance(schema, list):
        return [portable_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    node = {key: (value if key in ("enum", "const", "default", "examples") else portable_schema(value))
            for key, value in schema.items()}
    kinds = node.get("type")
    if not isinstance(kinds, list):
        return node
    kept = {key: node.pop(key) for key in _ANNOTATION_KEYS if key in node}
    node.pop("type")
    branches = []
    for kind in kinds:
        if kind == "null":
            branches.append({"type": "null", **{k: node[k] for k in _NULL_BRANCH_KEYS if k in node}})
        else:
            branches.append({"type": kind, **node})
    return {**kept, "anyOf": branches} if len(branches) > 1 else {**kept, **branches[0]}
