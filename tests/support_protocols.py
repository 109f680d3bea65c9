"""Hold a class to a Protocol by its signatures: every operation async, the Protocol's parameters first
(optional extras allowed after them, e.g. ``Host.fingerprint(full=False)``), the same return annotation.
Used where the type checker does not reach or to fail with the operation's name (tests/contract/test_host_api.py,
tests/unit/generator/test_synthesis_hosting.py)."""

from __future__ import annotations

import inspect
from collections.abc import Callable

__all__ = ["assert_offers", "operations", "shape"]


def operations(protocol: type) -> list[str]:
    """The Protocol's public async methods, sorted."""
    return sorted(name for name, member in vars(protocol).items()
                  if inspect.iscoroutinefunction(member) and not name.startswith("_"))


def shape(function: Callable[..., object]) -> list[tuple[str, object]]:
    """The parameters as (name, default)."""
    return [(p.name, p.default) for p in inspect.signature(function).parameters.values()]


def assert_offers(implementation: type, protocol: type, operation: str) -> None:
    declared = shape(getattr(protocol, operation))
    offered = getattr(implementation, operation)
    assert inspect.iscoroutinefunction(offered), f"{implementation.__name__}.{operation} is not async"
    offered_shape = shape(offered)
    assert offered_shape[:len(declared)] == declared, f"{implementation.__name__}.{operation}{inspect.signature(offered)}"
    extra = offered_shape[len(declared):]  # only optional extras
    assert all(default is not inspect.Parameter.empty for _, default in extra), extra
    returns = inspect.signature(getattr(protocol, operation)).return_annotation
    assert inspect.signature(offered).return_annotation == returns
