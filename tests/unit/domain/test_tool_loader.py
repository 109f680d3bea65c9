"""Loading tools modules: clean ones load and run, the runtime namespace stays restricted.

Tools run here against a tiny fake ``ctx`` over a real in-memory SQLite database: the fake
is a test double for the worker's context, not one of our classes, so the SQL idioms the
policy recommends (optional filters, json_each IN lists, LIKE search) run for real.
"""

from __future__ import annotations

import sqlite3
import textwrap
from typing import Any

import pytest

from scaleenv_mcp.domain import tool_loader
from scaleenv_mcp.domain.policy import check_policy
from scaleenv_mcp.domain.tool_loader import ParamInfo, ToolLoadError, checked_code, load_tool_functions, tool_signature
from scaleenv_mcp.errors import ConflictError, DomainError, InvalidArgumentError, NotFoundError

ORDERS = textwrap.dedent(
    '''\
    """Order tools for a small shop. SQL stays literal; time comes from ctx."""
    from __future__ import annotations

    from json import dumps
    from datetime import date, timedelta
    from decimal import Decimal, ROUND_HALF_UP
    from typing import Any, Optional
    from scaleenv_mcp.toolkit import ConflictError, InvalidArgumentError, NotFoundError

    CANCELLABLE = ("new", "paid")
    STATUSES = frozenset({"new", "paid", "shipped", "cancelled"})
    RETURN_WINDOW_DAYS = 30
    CENT = Decimal("0.01")
    ORDER_BY_ID = "SELECT * FROM orders WHERE id = ?"


    def require_order(ctx, order_id: str) -> dict:
        row = ctx.db.fetch_one(ORDER_BY_ID, (order_id,))
        if row is None:
            raise NotFoundError(f"order {order_id} not found")
        return row


    def find_orders(ctx, status: Optional[str] = None, text: str | None = None, newest_first: bool = False) -> dict:
        """Optional filters: each parameter is passed twice so NULL means 'any'."""
        if status is not None and status not in STATUSES:
            raise InvalidArgumentError(f"status must be one of {sorted(STATUSES)}")
        rows = ctx.db.fetch_all(
            "SELECT id, status, total FROM orders WHERE (? IS NULL OR status = ?) "
            "AND (? IS NULL OR note LIKE '%' || ? || '%') ORDER BY id DESC"
            if newest_first
            else "SELECT id, status, total FROM orders WHERE (? IS NULL OR status = ?) "
            "AND (? IS NULL OR note LIKE '%' || ? || '%') ORDER BY id",
            (status, status, text, text),
        )
        return {"items": rows, "count": len(rows)}


    def get_orders(ctx, order_ids: list[str]) -> dict:
        """IN list through json_each, one parameter."""
        rows = ctx.db.fetch_all(
            "SELECT id, total FROM orders WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
            (dumps(order_ids),),
        )
        missing = sorted(set(order_ids) - {r["id"] for r in rows})
        if missing:
            raise NotFoundError(f"unknown orders: {', '.join(missing)}")
        return {"items": rows, "sum": str(sum((Decimal(str(r["total"])) for r in rows), Decimal(0)).quantize(CENT))}


    def cancel_order(ctx, order_id: str, reason: str | None = None) -> dict:
        order = require_order(ctx, order_id)
        if order["status"] not in CANCELLABLE:
            raise ConflictError(f"order {order_id} is {order['status']}, only {', '.join(CANCELLABLE)} can be cancelled")
        ctx.db.execute(
            "UPDATE orders SET status = 'cancelled', note = coalesce(?, note), updated_at = ? WHERE id = ?",
            (reason, ctx.now, order_id),
        )
        return {"id": order_id, "status": "cancelled", "at": ctx.now}


    def open_return(ctx, order_id: str, *, amount: float = 0.0) -> dict:
        order = require_order(ctx, order_id)
        placed = date.fromisoformat(order["placed_on"])
        deadline = placed + timedelta(days=RETURN_WINDOW_DAYS)
        if date.fromisoformat(ctx.today) > deadline:
            raise ConflictError(f"return window closed on {deadline.isoformat()}")
        refund = Decimal(str(amount or order["total"])).quantize(CENT, rounding=ROUND_HALF_UP)
        return_id = ctx.new_id("RET")
        ctx.db.execute(
            "INSERT INTO returns (id, order_id, amount, opened_on) VALUES (?, ?, ?, ?)",
            (return_id, order_id, str(refund), ctx.today),
        )
        return {"id": return_id, "deadline": deadline.isoformat(), "refund": str(refund)}
    '''
)

SCHEDULING = textwrap.dedent(
    '''\
    from datetime import datetime, timedelta
    from json import loads
    from math import ceil
    from re import fullmatch
    from scaleenv_mcp.toolkit import InvalidArgumentError, NotPermittedError

    SLOT_MINUTES = 30
    DAY_START, DAY_END = 9, 17
    ROOM_PATTERN = r"R-[0-9]{3}"


    def list_free_slots(ctx, room: str, hours: float = 2.0) -> dict:
        if not fullmatch(ROOM_PATTERN, room):
            raise InvalidArgumentError("room looks like R-101")
        start = datetime.fromisoformat(ctx.now).replace(minute=0, second=0, microsecond=0)
        taken = {r["starts_at"] for r in ctx.db.fetch_all("SELECT starts_at FROM bookings WHERE room = ?", (room,))}
        slots = []
        for i in range(ceil(hours * 60 / SLOT_MINUTES)):
            at = start + timedelta(minutes=SLOT_MINUTES * i)
            if DAY_START <= at.hour < DAY_END and at.isoformat() not in taken:
                slots.append(at.isoformat())
        return {"items": sorted(slots, key=lambda s: s)}


    def book_slot(ctx, room: str, starts_at: str, tags: str = "[]") -> dict:
        if any(t == "admin" for t in loads(tags)):
            raise NotPermittedError("only staff may use the admin tag")
        booking_id = ctx.new_id("BKG")
        ctx.db.execute("INSERT INTO bookings (id, room, starts_at) VALUES (?, ?, ?)", (booking_id, room, starts_at))
        return {"id": booking_id}
    '''
)

SCHEMA = """
CREATE TABLE orders (id TEXT PRIMARY KEY, status TEXT, total REAL, note TEXT, placed_on TEXT, updated_at TEXT);
CREATE TABLE returns (id TEXT PRIMARY KEY, order_id TEXT, amount TEXT, opened_on TEXT);
CREATE TABLE bookings (id TEXT PRIMARY KEY, room TEXT, starts_at TEXT);
INSERT INTO orders VALUES
  ('ORD-00001', 'new', 10.5, 'gift wrap', '2025-03-01', NULL),
  ('ORD-00002', 'shipped', 20.0, NULL, '2025-03-02', NULL),
  ('ORD-00003', 'paid', 5.25, 'leave at door', '2025-01-02', NULL);
INSERT INTO bookings VALUES ('BKG-00001', 'R-101', '2025-03-10T10:00:00');
"""


class FakeDb:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Any = ()) -> int:
        return self.conn.execute(sql, params).rowcount

    def fetch_all(self, sql: str, params: Any = ()) -> list[dict[str, Any]]:
        return [dict(r) for r in self.conn.execute(sql, params).fetchall()]

    def fetch_one(self, sql: str, params: Any = ()) -> dict[str, Any] | None:
        row = self.conn.execute(sql, params).fetchone()
        return dict(row) if row is not None else None


class FakeCtx:
    def __init__(self, now: str = "2025-03-10T09:15:00") -> None:
        conn = sqlite3.connect(":memory:")
        conn.row_factory = sqlite3.Row
        conn.executescript(SCHEMA)
        self.db = FakeDb(conn)
        self.now = now
        self.today = now[:10]
        self.counter = 41

    def new_id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}-{self.counter:05d}"


ORDER_TOOLS = ["find_orders", "get_orders", "cancel_order", "open_return"]


@pytest.mark.parametrize("source", [ORDERS, SCHEDULING], ids=["orders", "scheduling"])
def test_clean_modules_pass_with_zero_violations(source: str) -> None:
    assert check_policy(source).violations == []


def test_loader_returns_exactly_the_requested_tools() -> None:
    tools = load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS)
    assert sorted(tools) == sorted(ORDER_TOOLS)  # require_order is a helper, not returned


def test_optional_filters_and_text_search_run() -> None:
    find_orders = load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS)["find_orders"]
    ctx = FakeCtx()
    assert find_orders(ctx)["count"] == 3
    assert [r["id"] for r in find_orders(ctx, status="paid")["items"]] == ["ORD-00003"]
    assert [r["id"] for r in find_orders(ctx, text="door")["items"]] == ["ORD-00003"]
    assert [r["id"] for r in find_orders(ctx, newest_first=True)["items"]][0] == "ORD-00003"
    with pytest.raises(InvalidArgumentError):
        find_orders(ctx, status="lost")


def test_json_each_in_list_and_decimal_sum() -> None:
    get_orders = load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS)["get_orders"]
    ctx = FakeCtx()
    assert get_orders(ctx, ["ORD-00001", "ORD-00003"]) == {
        "items": [{"id": "ORD-00001", "total": 10.5}, {"id": "ORD-00003", "total": 5.25}],
        "sum": "15.75",
    }
    with pytest.raises(NotFoundError, match="ORD-09999"):
        get_orders(ctx, ["ORD-00001", "ORD-09999"])


def test_writes_use_ctx_clock_and_toolkit_errors() -> None:
    tools = load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS)
    ctx = FakeCtx()
    assert tools["cancel_order"](ctx, "ORD-00001", reason="changed mind")["at"] == ctx.now
    assert ctx.db.fetch_one("SELECT status, updated_at FROM orders WHERE id = 'ORD-00001'") == {
        "status": "cancelled",
        "updated_at": "2025-03-10T09:15:00",
    }
    with pytest.raises(ConflictError, match="shipped"):
        tools["cancel_order"](ctx, "ORD-00002")
    with pytest.raises(NotFoundError):
        tools["cancel_order"](ctx, "ORD-00404")


def test_date_arithmetic_on_ctx_today() -> None:
    open_return = load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS)["open_return"]
    ctx = FakeCtx()
    assert open_return(ctx, "ORD-00001") == {"id": "RET-00042", "deadline": "2025-03-31", "refund": "10.50"}
    with pytest.raises(ConflictError, match="2025-02-01"):
        open_return(ctx, "ORD-00003", amount=1.0)


def test_second_clean_module_runs() -> None:
    tools = load_tool_functions(SCHEDULING, "tools.py", ["list_free_slots", "book_slot"])
    ctx = FakeCtx()
    assert tools["list_free_slots"](ctx, "R-101", hours=2) == {
        "items": ["2025-03-10T09:00:00", "2025-03-10T09:30:00", "2025-03-10T10:30:00"]
    }
    assert tools["book_slot"](ctx, "R-101", "2025-03-10T11:00:00") == {"id": "BKG-00042"}


def test_runtime_builtins_are_restricted() -> None:
    """Defence in depth: even code that skipped the static check finds no print, open or os."""
    namespace = load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS)["find_orders"].__globals__
    runtime_builtins = namespace["__builtins__"]
    assert isinstance(runtime_builtins, dict)
    for name in ("print", "open", "eval", "exec", "getattr", "globals", "type", "__build_class__", "Exception"):
        assert name not in runtime_builtins
    scratch = dict(namespace)  # run probes beside, not inside, the loaded namespace
    with pytest.raises(NameError):
        exec("print('escaped')", scratch)
    with pytest.raises(NameError):
        exec("open('/etc/passwd')", scratch)
    with pytest.raises(ImportError):
        exec("__import__('os')", scratch)
    with pytest.raises(ImportError):
        exec("from json import decoder", scratch)
    with pytest.raises(ImportError):
        exec("import os", scratch)
    exec("from json import loads", scratch)
    assert scratch["loads"]("[1]") == [1]


def test_code_checked_in_the_host_loads_as_the_source_does_and_just_as_restricted() -> None:
    """A worker given the host's checked code (``checked_code``) runs it without checking again: the
    same tools, the same restricted builtins; a refused source sends no code at all."""
    report, code = checked_code(ORDERS, "tools.py")
    assert report.ok and code is not None
    from_code = load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS, checked=code)
    from_source = load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS)
    assert from_code.keys() == from_source.keys()
    assert from_code["find_orders"].__code__.co_code == from_source["find_orders"].__code__.co_code
    assert set(from_code["find_orders"].__globals__["__builtins__"]) == set(from_source["find_orders"].__globals__["__builtins__"])
    assert "open" not in from_code["find_orders"].__globals__["__builtins__"]
    refused = ORDERS + "\nimport os\n"
    report, code = checked_code(refused, "tools.py")
    assert code is None and [v.rule for v in report.violations]
    with pytest.raises(ToolLoadError, match="refused by the tool policy"):
        load_tool_functions(refused, "tools.py", ORDER_TOOLS, checked=code)


def test_each_load_gets_a_fresh_namespace() -> None:
    first = load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS)["find_orders"]
    second = load_tool_functions(ORDERS, "tools.py", ORDER_TOOLS)["find_orders"]
    assert first.__globals__ is not second.__globals__
    assert first.__globals__["__builtins__"] is not second.__globals__["__builtins__"]


def test_policy_refusal_lists_every_violation() -> None:
    source = "import os\n\ndef t(ctx):\n    print(1)\n    return ().__class__\n"
    with pytest.raises(ToolLoadError) as info:
        load_tool_functions(source, "domains/shop/tools.py", ["t"])
    error = info.value
    assert isinstance(error, DomainError) and error.code == "domain_invalid"
    assert error.file == "domains/shop/tools.py" and error.line == 1
    assert [(v.line, v.rule) for v in error.violations] == [(1, "plain_import"), (4, "forbidden_builtin"), (5, "private_attribute")]
    assert str(error).startswith("domains/shop/tools.py:1: refused by the tool policy")
    for rule in ("plain_import", "forbidden_builtin", "private_attribute"):
        assert rule in str(error)


def test_missing_tool_is_refused() -> None:
    with pytest.raises(ToolLoadError, match="'ship_order' is not defined"):
        load_tool_functions(ORDERS, "tools.py", ["find_orders", "ship_order"])


def test_constant_or_imported_function_is_not_a_tool() -> None:
    with pytest.raises(ToolLoadError, match="'CANCELLABLE'"):
        load_tool_functions(ORDERS, "tools.py", ["CANCELLABLE"])
    with pytest.raises(ToolLoadError, match="'dumps'"):
        load_tool_functions(ORDERS, "tools.py", ["dumps"])


def test_tool_without_ctx_first_is_refused_with_its_line() -> None:
    source = "def helper(x):\n    return {}\n\n\ndef t(order_id, ctx):\n    return {}\n"
    with pytest.raises(ToolLoadError, match="ctx as its first parameter") as info:
        load_tool_functions(source, "tools.py", ["t"])
    assert info.value.line == 5


def test_module_that_raises_while_loading_reports_the_line() -> None:
    source = "RATE = 1\n\nBROKEN = RATE // 0\n"
    assert check_policy(source).ok
    with pytest.raises(ToolLoadError, match="ZeroDivisionError") as info:
        load_tool_functions(source, "tools.py", [])
    assert info.value.line == 3


def test_tool_signature_reads_parameters_without_running_code() -> None:
    signature = tool_signature(ORDERS, "find_orders")
    assert signature.name == "find_orders"
    assert signature.params == [
        ParamInfo(name="status", required=False, annotation="Optional[str]"),
        ParamInfo(name="text", required=False, annotation="str | None"),
        ParamInfo(name="newest_first", required=False, annotation="bool"),
    ]
    assert tool_signature(ORDERS, "open_return").params == [
        ParamInfo(name="order_id", required=True, annotation="str"),
        ParamInfo(name="amount", required=False, annotation="float"),
    ]
    unannotated = "def t(ctx, a, b=1, *, c, d=None):\n    raise SystemExit\n"
    assert [(p.name, p.required, p.annotation) for p in tool_signature(unannotated, "t").params] == [
        ("a", True, None),
        ("b", False, None),
        ("c", True, None),
        ("d", False, None),
    ]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def t(ctx, *args):\n    return {}\n", r"\*args"),
        ("def t(ctx, **kwargs):\n    return {}\n", r"\*args/\*\*kwargs"),
        ("def t(ctx, a, /):\n    return {}\n", "positional-only"),
        ("def t(db, a):\n    return {}\n", r"def t\(ctx"),
        ("def u(ctx):\n    return {}\n", "not defined"),
        ("def t(ctx):\n    return (\n", "syntax error"),
    ],
    ids=["varargs", "kwargs", "positional_only", "no_ctx", "missing", "syntax_error"],
)
def test_tool_signature_refuses_what_a_schema_cannot_describe(source: str, message: str) -> None:
    with pytest.raises(ToolLoadError, match=message):
        tool_signature(source, "t")


def test_public_api_is_pinned() -> None:
    assert sorted(tool_loader.__all__) == ["ParamInfo", "ToolLoadError", "ToolSignature", "checked_code",
                                           "load_tool_functions", "parse_tools", "tool_signature"]
