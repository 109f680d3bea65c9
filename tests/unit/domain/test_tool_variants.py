"""A variant of a loaded tools module with one function changed loads from that function alone, and
behaves as the same source loaded in full (validation's mutants take this path)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.tool_loader import ToolLoadError, load_tool_functions
from scaleenv_mcp.domain.tool_variants import load_variant
from scaleenv_mcp.errors import ConflictError, NotFoundError
from scaleenv_mcp.procedural.mutation import build_mutants
from tests.unit.domain.test_tool_loader import ORDER_TOOLS, ORDERS, FakeCtx

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"


def _variant(old: str, new: str) -> str:
    assert ORDERS.count(old) == 1
    return ORDERS.replace(old, new)


@pytest.fixture
def base():
    return load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS)


def test_a_changed_helper_is_what_every_tool_calling_it_runs_and_the_base_is_untouched(base):
    source = _variant('raise NotFoundError(f"order {order_id} not found")', "return {'status': 'paid', 'id': order_id}")
    variant = load_variant(base, ORDERS, source, "tools.py", ORDER_TOOLS)
    assert variant["cancel_order"](FakeCtx(), "ORD-00404")["status"] == "cancelled"  # the helper no longer refuses
    full = load_tool_functions(source, "tools.py", ORDER_TOOLS)
    assert full["cancel_order"](FakeCtx(), "ORD-00404")["status"] == "cancelled"
    with pytest.raises(NotFoundError):
        base["cancel_order"](FakeCtx(), "ORD-00404")
    # loaded from the one function: the unchanged tools run the base's compiled code, in their own namespace
    assert variant["find_orders"].__code__ is base["find_orders"].__code__
    assert variant["find_orders"].__globals__ is variant["cancel_order"].__globals__ is not base["find_orders"].__globals__


def test_a_changed_tool_keeps_the_line_numbers_of_the_variant_text(base):
    source = _variant("if order[\"status\"] not in CANCELLABLE:", "if order[\"status\"] in CANCELLABLE:")
    variant = load_variant(base, ORDERS, source, "tools.py", ORDER_TOOLS)
    full = load_tool_functions(source, "tools.py", ORDER_TOOLS)
    assert variant["cancel_order"].__code__.co_firstlineno == full["cancel_order"].__code__.co_firstlineno
    with pytest.raises(ConflictError):
        variant["cancel_order"](FakeCtx(), "ORD-00001")  # 'new' is cancellable in the base, not here
    assert variant["cancel_order"](FakeCtx(), "ORD-00002")["status"] == "cancelled"


@pytest.mark.parametrize(("added", "reason"), [
    ("print(order)", "forbidden_builtin"),  # the policy refuses it
    ("break", "outside loop"),  # the policy passes it, the compiler refuses it
], ids=["policy", "compiler"])
def test_a_refused_changed_function_is_refused_with_the_full_loads_message(base, added: str, reason: str):
    source = _variant("    order = require_order(ctx, order_id)\n    if order", "    order = require_order(ctx, order_id)\n"
                      f"    {added}\n    if order")
    with pytest.raises(ToolLoadError) as full:
        load_tool_functions(source, "tools.py", ORDER_TOOLS)
    with pytest.raises(ToolLoadError) as variant:
        load_variant(base, ORDERS, source, "tools.py", ORDER_TOOLS)
    assert reason in variant.value.message
    assert (variant.value.message, variant.value.line) == (full.value.message, full.value.line)


@pytest.mark.parametrize("change", [
    ("RETURN_WINDOW_DAYS = 30", "RETURN_WINDOW_DAYS = 0"),  # a module constant
    ("from json import dumps\n", "from json import dumps\nfrom json import loads\n"),  # an import
], ids=["constant", "import"])
def test_a_change_outside_one_function_loads_in_full(base, change: tuple[str, str]):
    source = _variant(*change)
    variant = load_variant(base, ORDERS, source, "tools.py", ORDER_TOOLS)
    assert variant["find_orders"].__code__ is not base["find_orders"].__code__
    if change[0].startswith("RETURN"):
        with pytest.raises(ConflictError, match="return window closed"):
            variant["open_return"](FakeCtx(), "ORD-00001")


def test_two_changed_functions_load_in_full(base):
    source = _variant("ORDER BY id DESC", "ORDER BY id ASC").replace('"sum": str(', '"total": str(')
    variant = load_variant(base, ORDERS, source, "tools.py", ORDER_TOOLS)
    assert "total" in variant["get_orders"](FakeCtx(), ["ORD-00001"])
    assert variant["find_orders"].__code__ is not base["find_orders"].__code__


def test_every_mutant_of_a_package_loads_from_its_function_as_it_would_in_full():
    package = load_domain(FIXTURE)
    names = [t.name for t in package.manifest.tools]
    base = load_tool_functions(package.tools_source, "tools.py", names)
    tree = ast.parse(package.tools_source)
    mutants = [m for name in names for m in build_mutants(package.tools_source, name, tree=tree)]
    assert len(mutants) >= 20
    for mutant in mutants:
        variant = load_variant(base, package.tools_source, mutant.source, "tools.py", names)
        full = load_tool_functions(mutant.source, "tools.py", names)
        for name in names:
            fast, slow = variant[name].__code__, full[name].__code__
            assert (fast is base[name].__code__) == (name != mutant.tool), (mutant.description, name)
            assert (fast.co_code, fast.co_consts) == (slow.co_code, slow.co_consts), mutant.description
        changed, written = variant[mutant.tool].__code__, full[mutant.tool].__code__
        assert changed.co_firstlineno == written.co_firstlineno, mutant.description  # tracebacks name its lines


def test_a_base_with_other_line_breaks_has_its_variants_loaded_in_full():
    windows = ORDERS.replace("\n", "\r\n")
    base = load_tool_functions(windows, "tools.py", ORDER_TOOLS)
    source = windows.replace("ORDER BY id DESC", "ORDER BY id ASC")
    variant = load_variant(base, windows, source, "tools.py", ORDER_TOOLS)
    assert variant["get_orders"].__code__ is not base["get_orders"].__code__  # nothing taken from the base
    assert variant["find_orders"](FakeCtx(), newest_first=True)["items"][0]["id"] == "ORD-00001"
