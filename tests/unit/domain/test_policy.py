"""The static tool policy against a corpus of hostile and broken tools modules.

Each entry is a module an LLM (careless or hostile) might write; the policy must report the
named rule and the loader must refuse the module. Several escapes are ones the rules do
not name literally (frame walking, str.format traversal, module attributes through
imports), so the corpus guards the allow-list's coverage, not a list of known strings.
"""

from __future__ import annotations

import textwrap

import pytest

from scaleenv_mcp import toolkit
from scaleenv_mcp.domain import policy
from scaleenv_mcp.domain.policy import ALLOWED_BUILTINS, ALLOWED_IMPORTS, PolicyReport, check_policy
from scaleenv_mcp.domain.tool_loader import ToolLoadError, load_tool_functions

HEADER = "from datetime import date, datetime\nfrom json import dumps\n\n"


def tool(body: str) -> str:
    """A module with one tool ``t`` whose body is ``body``."""
    return HEADER + "def t(ctx, x=None):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ") + "\n"


HOSTILE: list[tuple[str, str, str]] = [
    # Reaching interpreter internals through attributes.
    ("class_bases_subclasses", tool("return ().__class__.__bases__[0].__subclasses__()"), "private_attribute"),
    ("facade_private_slot", tool("return ctx.db._DatabaseFacade__conn"), "private_attribute"),
    ("lambda_globals", tool("return (lambda: 0).__globals__"), "private_attribute"),
    ("single_underscore", tool("return ctx._guard"), "private_attribute"),
    ("generator_frame_walk", tool("return (y for y in ()).gi_frame.f_back.f_globals"), "forbidden_attribute"),
    ("format_traversal", tool('return "{0.__class__}".format(ctx)'), "forbidden_attribute"),
    ("format_map_traversal", tool('return "{c.db}".format_map({"c": ctx})'), "forbidden_attribute"),
    ("dunder_string_lookup", tool('return ctx.db.fetch_all("SELECT 1")["__class__"]'), "dunder_string"),
    ("dunder_builtins_name", tool('return __builtins__["print"]'), "dunder_name"),
    ("function_attribute_state", tool("t.calls = 1\nreturn {}"), "attribute_write"),
    ("delete_attribute", tool("del ctx.db\nreturn {}"), "attribute_write"),
    # Imports.
    ("json_decoder_module", "from json import decoder\n", "import_not_allowed"),
    ("re_sys", "from re import sys\n", "import_not_allowed"),
    ("datetime_sys", "from datetime import sys\n", "import_not_allowed"),
    ("random_import", "from random import random\n", "import_not_allowed"),
    ("star_import", "from json import *\n", "import_not_allowed"),
    ("relative_import", "from . import tools\n", "import_not_allowed"),
    ("import_os", "import os\n", "plain_import"),
    ("import_in_function", tool("import subprocess\nreturn {}"), "plain_import"),
    ("alias_shadows_builtin", "from json import loads as len\n", "shadowed_builtin"),
    # Builtins that are not on the allow-list.
    ("dunder_import", tool("return __import__('os')"), "forbidden_builtin"),
    ("eval", tool('return eval("1")'), "forbidden_builtin"),
    ("exec", tool('exec("x = 1")\nreturn {}'), "forbidden_builtin"),
    ("open_passwd", tool("return open('/etc/passwd').read()"), "forbidden_builtin"),
    ("breakpoint", tool("breakpoint()\nreturn {}"), "forbidden_builtin"),
    ("globals", tool("return globals()"), "forbidden_builtin"),
    ("vars_ctx", tool("return vars(ctx)"), "forbidden_builtin"),
    ("getattr_ctx", tool("return getattr(ctx, 'db')"), "forbidden_builtin"),
    ("print", tool("print(x)\nreturn {}"), "forbidden_builtin"),
    ("type_of_ctx", tool("return type(ctx)"), "forbidden_builtin"),
    ("catch_everything", tool("try:\n    return {}\nexcept Exception:\n    return {}"), "forbidden_builtin"),
    ("unknown_name", tool("return helper(ctx)"), "unknown_name"),
    # Syntax outside the allow-list.
    ("class_definition", "class Tool:\n    pass\n", "class_definition"),
    ("async_def", "async def t(ctx):\n    return {}\n", "async_code"),
    ("yield_generator", tool("yield x"), "generator"),
    ("with_statement", tool("with x:\n    return {}"), "with_statement"),
    ("decorator", "def deco(f):\n    return f\n\n@deco\ndef t(ctx):\n    return {}\n", "decorator"),
    ("match_statement", tool("match x:\n    case str():\n        return {}"), "disallowed_syntax"),
    ("try_star", tool("try:\n    pass\nexcept* ValueError:\n    pass\nreturn {}"), "disallowed_syntax"),
    ("bare_except", tool("try:\n    return {}\nexcept:\n    return {}"), "bare_except"),
    ("return_in_finally", tool("try:\n    x = 1\nfinally:\n    return {}"), "finally_control_flow"),
    ("global_statement", "X = 1\n\ndef t(ctx):\n    global X\n    X = 2\n    return {}\n", "global_statement"),
    ("nonlocal_statement", tool("n = 0\ndef inc():\n    nonlocal n\n    n += 1\nreturn {}"), "global_statement"),
    ("ctx_rebound", tool("ctx = datetime\nreturn ctx.now()"), "ctx_rebound"),
    # Module-level state.
    ("module_dict_cache", "CACHE = {}\n", "module_state"),
    ("module_list_call", "SEEN = list()\n", "module_state"),
    ("module_augassign", "N = 0\nN += 1\n", "module_state"),
    ("main_guard", 'if __name__ == "__main__":\n    pass\n', "module_statement"),
    ("mutable_default_list", "def t(ctx, x=[]):\n    return {}\n", "mutable_default"),
    ("mutable_default_dict_kwonly", "def t(ctx, *, x={}):\n    return {}\n", "mutable_default"),
    # Wall clock and randomness.
    ("datetime_now", tool("return {'at': datetime.now().isoformat()}"), "wall_clock"),
    ("date_today", tool("return {'on': date.today().isoformat()}"), "wall_clock"),
    ("now_as_sql_parameter", tool('return ctx.db.fetch_one("SELECT date(?) AS d", ("now",))'), "wall_clock"),
    # SQL built from strings.
    ("fstring_sql", tool('return ctx.db.execute(f"DELETE FROM t WHERE id={x}", ())'), "sql_not_literal"),
    ("concat_sql", tool('return ctx.db.fetch_all("SELECT " + x, ())'), "sql_not_literal"),
    ("percent_sql", tool('return ctx.db.fetch_all("SELECT * FROM t WHERE id = %s" % x)'), "sql_not_literal"),
    ("join_sql", tool('return ctx.db.fetch_all(" ".join(["SELECT", x]))'), "sql_not_literal"),
    ("format_sql", tool('return ctx.db.fetch_all("SELECT {}".format(x))'), "sql_not_literal"),
    ("aliased_execute", tool('run = ctx.db.execute\nreturn run(x, ())'), "sql_not_literal"),
    ("sql_from_parameter", "def q(ctx, sql):\n    return ctx.db.fetch_all(sql, ())\n", "sql_not_literal"),
    ("shadowed_sql_constant", 'SQL = "SELECT 1"\n\ndef t(ctx, x):\n    SQL = x\n    return ctx.db.fetch_all(SQL)\n',
     "sql_not_literal"),
    # SQL literals that read the clock, randomness or escape the facade.
    ("sql_now", tool("""return ctx.db.fetch_one("SELECT datetime('now') AS t")"""), "sql_wall_clock"),
    ("sql_current_timestamp", tool('return ctx.db.execute("UPDATE t SET at = CURRENT_TIMESTAMP", ())'), "sql_wall_clock"),
    ("sql_date_without_value", tool('return ctx.db.fetch_one("SELECT date() AS d")'), "sql_wall_clock"),
    ("sql_localtime", tool("""return ctx.db.fetch_one("SELECT datetime(?, 'localtime') AS d", (x,))"""),
     "sql_wall_clock"),
    ("sql_random", tool('return ctx.db.fetch_all("SELECT * FROM t ORDER BY random()")'), "sql_randomness"),
    ("sql_attach", tool("""return ctx.db.execute("ATTACH DATABASE '/tmp/x.db' AS x", ())"""), "sql_forbidden"),
    ("sql_pragma", tool('return ctx.db.execute("PRAGMA foreign_keys = OFF", ())'), "sql_forbidden"),
    ("sql_vacuum_into", tool("""return ctx.db.execute("VACUUM INTO '/tmp/copy.db'", ())"""), "sql_forbidden"),
    ("sql_internal_ids", tool('return ctx.db.execute("UPDATE _scaleenv_ids SET next = 1", ())'), "sql_forbidden"),
    ("sql_constant_now", """SQL = "SELECT datetime('now') AS t"\n\ndef t(ctx):\n    return ctx.db.fetch_one(SQL)\n""",
     "sql_wall_clock"),
    # Broken code.
    ("syntax_error", "def t(ctx):\n    return {\n", "syntax_error"),
    ("return_outside_function", "return 1\n", "syntax_error"),
]


@pytest.mark.parametrize(("source", "rule"), [pytest.param(s, r, id=i) for i, s, r in HOSTILE])
def test_hostile_module_is_reported_and_refused(source: str, rule: str) -> None:
    report = check_policy(source)
    assert rule in {v.rule for v in report.violations}, report.violations
    assert not report.ok
    with pytest.raises(ToolLoadError) as info:
        load_tool_functions(source, "tools.py", ["t"])
    assert rule in {v.rule for v in info.value.violations}


def test_corpus_is_large_and_ids_are_unique() -> None:
    assert len(HOSTILE) >= 35
    assert len({case_id for case_id, _, _ in HOSTILE}) == len(HOSTILE)


@pytest.mark.parametrize(("source", "rule"), [pytest.param(s, r, id=i) for i, s, r in HOSTILE])
def test_every_violation_points_into_the_file(source: str, rule: str) -> None:
    lines = source.count("\n") + 1
    for violation in check_policy(source, "domains/shop/tools.py").violations:
        assert violation.file == "domains/shop/tools.py"
        assert 1 <= violation.line <= lines
        assert violation.reason


def test_all_violations_are_reported_with_their_lines() -> None:
    source = textwrap.dedent(
        '''\
        """Docstrings may mention __dunder__ names."""
        import os
        from json import dumps
        CACHE = {}

        def t(ctx, x=None):
            print(x)
            return ().__class__

        def u(ctx, status=None):
            return ctx.db.fetch_all(f"SELECT * FROM t WHERE s = {status}")
        '''
    )
    found = {(v.line, v.rule) for v in check_policy(source).violations}
    assert found == {
        (2, "plain_import"),
        (4, "module_state"),
        (7, "forbidden_builtin"),
        (8, "private_attribute"),
        (11, "sql_not_literal"),
    }


def test_syntax_error_is_one_violation_with_its_line() -> None:
    report = check_policy("from json import dumps\n\ndef t(ctx):\n    return dumps(\n\n\nx = 1\n")
    assert [(v.line, v.rule) for v in report.violations] == [(4, "syntax_error")]
    assert "never closed" in report.violations[0].reason
    report = check_policy("X = 1\nY = = 2\nimport os\n")  # nothing else is reported
    assert [(v.line, v.rule) for v in report.violations] == [(2, "syntax_error")]


def test_sql_in_a_multiline_call_is_blamed_on_the_literal_line() -> None:
    source = tool(
        """
        return ctx.db.fetch_all(
            "SELECT * FROM t "
            "WHERE at < CURRENT_DATE",
            (),
        )
        """
    )
    lines = {v.line for v in check_policy(source).violations if v.rule == "sql_wall_clock"}
    assert lines == {HEADER.count("\n") + 3}


def test_ctx_clock_is_allowed_but_other_clocks_are_not() -> None:
    assert check_policy(tool("return {'now': ctx.now, 'today': ctx.today}")).ok
    report = check_policy(tool("return {'now': x.now}"))
    assert [v.rule for v in report.violations] == ["wall_clock"]


def test_allowed_sql_shapes_pass() -> None:
    source = HEADER + textwrap.dedent(
        '''\
        BASE = "SELECT * FROM orders WHERE (? IS NULL OR status = ?)"

        def t(ctx, status=None, newest=False):
            rows = ctx.db.fetch_all(BASE, (status, status))
            ordered = ctx.db.fetch_all(
                "SELECT * FROM orders ORDER BY placed_at DESC" if newest else "SELECT * FROM orders ORDER BY placed_at",
                (),
            )
            return {"items": rows + ordered, "n": ctx.db.execute(sql="DELETE FROM carts WHERE id = ?", params=(1,))}
        '''
    )
    assert check_policy(source).violations == []


def test_import_allow_list_covers_exactly_the_toolkit_errors() -> None:
    assert ALLOWED_IMPORTS["scaleenv_mcp.toolkit"] == frozenset(toolkit.__all__)
    for module in ("os", "sys", "random", "time", "uuid", "secrets", "subprocess", "importlib"):
        assert module not in ALLOWED_IMPORTS
    for name in ("print", "open", "eval", "exec", "getattr", "type", "__import__", "Exception", "globals"):
        assert name not in ALLOWED_BUILTINS


def test_report_model_round_trips() -> None:
    report = check_policy("import os\n", "x.py")
    assert PolicyReport.model_validate_json(report.model_dump_json()) == report
    assert report.model_dump()["violations"][0] == {
        "file": "x.py",
        "line": 1,
        "rule": "plain_import",
        "reason": report.violations[0].reason,
    }


def test_public_api_is_pinned() -> None:
    assert sorted(policy.__all__) == [
        "ALLOWED_BUILTINS",
        "ALLOWED_IMPORTS",
        "POLICY_VERSION",
        "PolicyReport",
        "PolicyViolation",
        "check_policy",
    ]
    assert policy.POLICY_VERSION


def test_require_row_sql_is_checked_like_fetch_one():
    from scaleenv_mcp.domain.policy import check_policy

    ok = ("from scaleenv_mcp.toolkit import require_row\n\n"
          "def get_x(ctx, x_id: str) -> dict:\n"
          "    return require_row(ctx, 'SELECT * FROM xs WHERE x_id = ?', (x_id,), f'no x {x_id}')\n")
    bad = ok.replace("'SELECT * FROM xs WHERE x_id = ?'", "f'SELECT * FROM xs WHERE x_id = {x_id}'")
    assert check_policy(ok).ok
    assert [v.rule for v in check_policy(bad).violations] == ["sql_not_literal"]


def test_require_row_is_checked_under_an_alias_and_only_called_directly():
    """Issue #29: ``import require_row as rr`` passed the rule, which looked for the name only."""
    from scaleenv_mcp.domain.policy import check_policy

    head = "from scaleenv_mcp.toolkit import require_row as rr\n\n"
    aliased = head + ("def get_x(ctx, x_id: str) -> dict:\n"
                      "    return rr(ctx, 'SELECT * FROM xs WHERE x_id = ' + x_id, (), 'no x')\n")
    passed_on = head + ("def get_x(ctx, x_id: str, finder=rr) -> dict:\n"
                        "    return finder(ctx, 'SELECT * FROM xs WHERE x_id = ' + x_id, (), 'no x')\n")
    literal = head + ("def get_x(ctx, x_id: str) -> dict:\n"
                      "    return rr(ctx, 'SELECT * FROM xs WHERE x_id = ?', (x_id,), 'no x')\n")
    assert "sql_not_literal" in [v.rule for v in check_policy(aliased).violations]
    assert "sql_not_literal" in [v.rule for v in check_policy(passed_on).violations]
    assert check_policy(literal).ok
