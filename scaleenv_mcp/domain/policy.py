"""The static allow-list policy over a domain's ``tools.py``: parse it, never run it.

Tool code is written by an LLM and is untrusted. This module reports every construct
outside a small allow-list (syntax kinds, builtins, imports, attributes) so that careless
or casually hostile code is refused before ``tool_loader`` runs it. It must never import
or execute the checked source, and it allows rather than denies: what is not named here is
refused. In-process Python is not a security boundary against a determined author (docs/threat-model.md): this check, ``tool_loader``'s restricted builtins, the ``ctx`` facade and
the worker limits stop buggy code and casual escapes; use a container for more.

Idioms the rules push towards:

* SQL is a literal with ``?`` parameters, never built from strings. Optional filters:
  ``WHERE (? IS NULL OR status = ?)`` passing the value twice; IN lists:
  ``WHERE id IN (SELECT value FROM json_each(?))`` passing ``json.dumps(ids)``; text
  search: ``WHERE name LIKE '%' || ? || '%'``. A module constant holding a literal, or
  ``A if flag else B`` between literals, is also accepted.
* Time comes from ``ctx.now`` / ``ctx.today`` only: no ``datetime.now()``, no SQL
  ``'now'``, ``CURRENT_TIMESTAMP``, ``date()``; no randomness anywhere.
* No module-level mutable state: module assignments are immutable constants (tuples,
  frozensets, numbers, strings, ``Decimal``/``date`` values); defaults likewise.
* Errors are the toolkit classes; catching is limited to named exception classes, so tool
  code cannot swallow the harness's own errors (no bare ``except``, no ``Exception``, no
  ``return`` inside ``finally``).
"""

from __future__ import annotations

import ast
import builtins
import types
from collections.abc import Iterable

from pydantic import BaseModel, Field

from scaleenv_mcp import toolkit
from scaleenv_mcp.domain.sql_rules import SQL_RULES, WALL_CLOCK_STRING

__all__ = ["ALLOWED_BUILTINS", "ALLOWED_IMPORTS", "POLICY_VERSION", "PolicyReport", "PolicyViolation", "check_policy"]

POLICY_VERSION = "2"  # 2: require_row is checked under any alias, and only called directly

#: ``from module import name`` is allowed for exactly these pairs; ``import x`` never. Every
#: name is a function, class or constant with no non-underscore path to a module, a frame or
#: the process (``json.decoder`` would lead to ``sys``). ``__future__``/``typing`` are here
#: because generated code writes them; tests/unit/domain/test_policy.py pins the rest.
ALLOWED_IMPORTS: dict[str, frozenset[str]] = {
    "__future__": frozenset({"annotations"}),
    "scaleenv_mcp.toolkit": frozenset(toolkit.__all__),
    "json": frozenset({"loads", "dumps"}),
    "math": frozenset({"floor", "ceil", "isclose", "fsum", "sqrt", "inf", "isfinite", "prod"}),
    "re": frozenset({"fullmatch", "match", "search", "sub", "compile", "escape", "findall", "IGNORECASE"}),
    "datetime": frozenset({"date", "datetime", "timedelta"}),
    "decimal": frozenset({"Decimal", "ROUND_HALF_UP", "ROUND_HALF_EVEN", "InvalidOperation"}),
    "statistics": frozenset({"mean", "median"}),
    "typing": frozenset({"Any", "Optional"}),
}

#: Builtins tool code may name. No Exception/BaseException: a tool must not be able to
#: swallow the harness's errors (limits, timeouts) raised through its frames.
ALLOWED_BUILTINS: frozenset[str] = frozenset(
    "abs all any bool chr dict divmod enumerate filter float frozenset int isinstance len list "
    "map max min ord range reversed round set sorted str sum tuple zip None True False "
    "ValueError TypeError KeyError IndexError ZeroDivisionError ArithmeticError LookupError".split()
)

_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign, ast.AugAssign,
    ast.AnnAssign, ast.If, ast.For, ast.While, ast.Break, ast.Continue, ast.Pass, ast.Try,
    ast.ExceptHandler, ast.Raise, ast.Assert, ast.Delete, ast.Expr, ast.ImportFrom, ast.alias,
    ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.keyword, ast.IfExp,
    ast.NamedExpr, ast.Lambda, ast.Dict, ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.SetComp,
    ast.DictComp, ast.GeneratorExp, ast.comprehension, ast.Constant, ast.JoinedStr,
    ast.FormattedValue, ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Starred,
    ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop,
    ast.withitem,  # only ever inside With, which is refused with its own rule
)
_REFUSED_NODES: dict[type[ast.AST], tuple[str, str]] = {
    ast.Import: ("plain_import", "plain `import x` is refused; use `from module import name` from the allow-list"),
    ast.ClassDef: ("class_definition", "class definitions are refused; tools are plain functions"),
    **dict.fromkeys((ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith),
                    ("async_code", "async code is refused; tools are synchronous")),
    **dict.fromkeys((ast.Yield, ast.YieldFrom), ("generator", "yield is refused: generators expose frames")),
    **dict.fromkeys((ast.Global, ast.Nonlocal), ("global_statement", "global/nonlocal is refused: tools keep "
                                                                     "no state outside their call")),
    ast.With: ("with_statement", "with is refused: tools have no resources to manage"),
    ast.Match: ("disallowed_syntax", "match is refused: class patterns read attributes by name"),
}
_FORBIDDEN_ATTRIBUTES = frozenset(
    "gi_frame gi_code gi_yieldfrom cr_frame cr_code cr_await ag_frame ag_code f_back f_globals "
    "f_locals f_builtins f_code tb_frame tb_next co_code func_globals func_code im_func format "
    "format_map mro set_authorizer setlimit set_progress_handler enable_load_extension "
    "load_extension create_function".split()
)
_WALL_CLOCK_ATTRIBUTES = frozenset({"now", "today", "utcnow", "fromtimestamp", "utcfromtimestamp", "astimezone"})
_CTX_CLOCK = frozenset({"now", "today"})  # ctx.now / ctx.today are the episode clock
_SQL_METHODS = frozenset({"execute", "fetch_all", "fetch_one", "executemany", "executescript"})
_IMMUTABLE_CONSTRUCTORS = frozenset({("builtins", "frozenset"), ("decimal", "Decimal")} | {
    ("datetime", name) for name in ("date", "datetime", "timedelta")})


class PolicyViolation(BaseModel):
    """One refused construct in a tools file."""

    file: str = Field(description="File the violation is in, as given to check_policy.")
    line: int = Field(description="1-based line of the refused construct.")
    rule: str = Field(description="Stable snake_case rule id, e.g. private_attribute or sql_not_literal.")
    reason: str = Field(description="Human sentence: what was refused and what to do instead.")


class PolicyReport(BaseModel):
    """Every violation found in one tools file (empty when the file passes)."""

    file: str = Field(description="File that was checked.")
    violations: list[PolicyViolation] = Field(description="All violations, ordered by line.")

    @property
    def ok(self) -> bool:
        """True when the file may be loaded."""
        return not self.violations


def check_policy(source: str, filename: str = "tools.py") -> PolicyReport:
    """Check tool source against the allow-list policy without executing it.

    Use it before loading any ``tools.py`` (``tool_loader`` does) and in the generator's repair loop,
    whose prompt can quote the reasons. All violations, not the first (a syntax error is one
    ``syntax_error`` at its line), in a report whose ``ok`` is True when nothing was refused."""
    return compile_checked(source, filename)[0]


def compile_checked(source: str, filename: str = "tools.py") -> tuple[PolicyReport, types.CodeType | None]:
    """``check_policy``, and the code compiled from the very tree it checked (None when refused): the
    loader runs what was checked, parsed and compiled once (validation loads tools.py once per mutant)."""
    try:
        tree = ast.parse(source, filename)
        code = compile(tree, filename, "exec", dont_inherit=True)  # compiler-only errors; nothing runs
    except SyntaxError as exc:
        return _report(filename, [(exc.lineno or 1, "syntax_error", f"syntax error: {exc.msg}")]), None
    except (ValueError, RecursionError, MemoryError) as exc:  # null bytes, absurd nesting
        return _report(filename, [(1, "syntax_error", f"source cannot be parsed or checked: {type(exc).__name__}")]), None
    report = check_tree(tree, filename)
    return report, None if report.violations else code


def check_tree(tree: ast.Module, filename: str = "tools.py") -> PolicyReport:
    """The policy over a parsed module (``tool_variants`` checks a changed function this way, in a
    module of its base's imports, constants and function names without the other bodies)."""
    checker = _Checker(tree)
    try:
        checker.visit(tree)
    except RecursionError:
        checker.found.append((1, "syntax_error", "source cannot be parsed or checked: RecursionError"))
    return _report(filename, checker.found)


def _report(filename: str, found: list[tuple[int, str, str]]) -> PolicyReport:
    violations = [PolicyViolation(file=filename, line=n, rule=r, reason=why) for n, r, why in sorted(set(found))]
    return PolicyReport(file=filename, violations=violations)


def _bound_names(nodes: Iterable[ast.AST]) -> set[str]:
    """Names bound by these statements, not looking inside nested functions or lambdas."""
    names: set[str] = set()
    stack: list[ast.AST] = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.ImportFrom, ast.Import)):
            names.update(a.asname or a.name.split(".")[0] for a in node.names)
        stack.extend(ast.iter_child_nodes(node))
    return names


def _is_ctx(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "ctx"


class _Checker(ast.NodeVisitor):
    """One pass over the tree collecting (line, rule, reason) triples."""

    def __init__(self, tree: ast.Module) -> None:
        self.found: list[tuple[int, str, str]] = []
        self.line = 1
        self.scopes: list[set[str]] = [_bound_names(tree.body)]
        self.imports: dict[str, tuple[str, str]] = {}  # local name -> (module, name)
        self.constants: dict[str, ast.expr] = {}  # module constant -> its value node
        self.docstrings: set[int] = set()
        self.sql_callees: set[int] = set()
        self.blocks: list[str] = []  # "loop" / "finally" within the current function
        for node in ast.walk(tree):
            body = node.body if isinstance(node, (ast.Module, ast.FunctionDef)) else None
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                self.docstrings.add(id(body[0].value))
            if isinstance(node, ast.ImportFrom):
                self.imports.update({a.asname or a.name: (node.module or "", a.name) for a in node.names})

    def add(self, node: ast.AST, rule: str, reason: str) -> None:
        self.found.append((getattr(node, "lineno", self.line), rule, reason))

    def visit(self, node: ast.AST) -> None:
        saved = self.line
        self.line = getattr(node, "lineno", self.line)
        if type(node) in _REFUSED_NODES:
            self.add(node, *_REFUSED_NODES[type(node)])
        elif not isinstance(node, _ALLOWED_NODES):
            self.add(node, "disallowed_syntax", f"{type(node).__name__} is not in the allowed syntax")
        if not isinstance(node, ast.Match):  # its patterns would only repeat the refusal
            super().visit(node)
        self.line = saved

    # -- bindings and names ------------------------------------------------------------
    def check_binding(self, node: ast.AST, name: str, module_level: bool = False) -> None:
        if name.startswith("__"):
            self.add(node, "dunder_name", f"name {name!r} is refused: dunder names reach interpreter internals")
        if name == "ctx" and not isinstance(node, ast.arg):
            self.add(node, "ctx_rebound", "the name ctx may only be a function parameter")
        if module_level and hasattr(builtins, name):
            self.add(node, "shadowed_builtin", f"module-level {name!r} shadows a builtin; pick another name")

    def resolve(self, node: ast.Name) -> None:
        name = node.id
        if any(name in scope for scope in self.scopes) or name in ALLOWED_BUILTINS:
            return
        if hasattr(builtins, name):
            self.add(node, "forbidden_builtin", f"builtin {name!r} is not allowed in tool code")
        elif name.startswith("__"):
            self.add(node, "dunder_name", f"name {name!r} is refused: dunder names reach interpreter internals")
        else:
            self.add(node, "unknown_name", f"unknown name {name!r}: not a parameter, local, import or module definition")

    def is_require_row(self, name: str) -> bool:
        """``require_row`` from the toolkit under any local name (``import require_row as rr`` too)."""
        return name == "require_row" or self.imports.get(name) == ("scaleenv_mcp.toolkit", "require_row")

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.resolve(node)
            if self.is_require_row(node.id) and id(node) not in self.sql_callees:
                self.add(node, "sql_not_literal", f"{node.id!r} (require_row) must be called directly so its SQL "
                         "can be checked")
        else:
            self.check_binding(node, node.id, module_level=len(self.scopes) == 1)

    def visit_arg(self, node: ast.arg) -> None:
        self.check_binding(node, node.arg)
        self.generic_visit(node)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.type is None:
            self.add(node, "bare_except", "bare except is refused: name the exception classes you expect")
        if node.name:
            self.check_binding(node, node.name)
        self.generic_visit(node)

    # -- module level ------------------------------------------------------------------
    def visit_Module(self, node: ast.Module) -> None:
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef):
                self.check_binding(stmt, stmt.name, module_level=True)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                self.check_constant(stmt)
            elif isinstance(stmt, ast.AugAssign):
                self.add(stmt, "module_state", "augmented assignment at module level is module state")
            elif not isinstance(stmt, (ast.ImportFrom, ast.Pass, *_REFUSED_NODES)) and not (
                isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
            ):
                self.add(stmt, "module_statement", "only imports, functions and constants may appear at module level")
        self.generic_visit(node)

    def check_constant(self, stmt: ast.Assign | ast.AnnAssign) -> None:
        pairs: list[tuple[ast.expr, ast.expr | None]] = []
        for target in stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]:
            if isinstance(target, ast.Tuple) and isinstance(stmt.value, ast.Tuple) and len(target.elts) == len(stmt.value.elts):
                pairs.extend(zip(target.elts, stmt.value.elts))  # A, B = 1, 2
            else:
                pairs.append((target, stmt.value))
        if not all(isinstance(t, ast.Name) and self.is_immutable(v) for t, v in pairs):
            self.add(stmt, "module_state", "module-level assignments must bind names to immutable constants "
                     "(str, number, bool, None, tuple, frozenset)")
            return
        self.constants.update({t.id: v for t, v in pairs if isinstance(t, ast.Name) and v is not None})

    def is_immutable(self, node: ast.expr | None) -> bool:
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Tuple):
            return all(self.is_immutable(e) for e in node.elts)
        if isinstance(node, ast.UnaryOp):
            return self.is_immutable(node.operand)
        if isinstance(node, ast.BinOp):
            return self.is_immutable(node.left) and self.is_immutable(node.right)
        if isinstance(node, ast.Name):
            return node.id in self.constants
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            origin = self.imports.get(name) or (("builtins", name) if name not in self.scopes[0] else ("", ""))
            values = node.args + [k.value for k in node.keywords]
            return origin in _IMMUTABLE_CONSTRUCTORS and all(
                self.is_immutable(v) or (isinstance(v, (ast.Set, ast.List, ast.Tuple)) and all(map(self.is_immutable, v.elts)))
                for v in values
            )
        return False

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        allowed = ALLOWED_IMPORTS.get(module) if node.level == 0 else None
        for alias in node.names:
            if allowed is None or alias.name not in allowed:
                where = "relative import" if node.level else f"from {module} import {alias.name}"
                self.add(node, "import_not_allowed", f"{where} is not in the import allow-list")
            self.check_binding(node, alias.asname or alias.name, module_level=len(self.scopes) == 1)

    # -- functions and control flow ----------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for decorator in node.decorator_list:
            self.add(decorator, "decorator", "decorators are refused; tools are plain functions")
        if len(self.scopes) > 1:
            self.check_binding(node, node.name)
        self.enter_function(node, node.args, _bound_names(node.body))

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self.enter_function(node, node.args, set())

    def enter_function(self, node: ast.FunctionDef | ast.Lambda, args: ast.arguments, body_names: set[str]) -> None:
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            if not self.is_immutable(default):
                self.add(default, "mutable_default", "default values must be immutable constants (use None)")
        params = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
        self.scopes.append({a.arg for a in params} | body_names)
        saved, self.blocks = self.blocks, []
        self.generic_visit(node)
        self.blocks = saved
        self.scopes.pop()

    def visit_loop(self, node: ast.For | ast.While) -> None:
        for part in [node.target, node.iter] if isinstance(node, ast.For) else [node.test]:
            self.visit(part)
        self.blocks.append("loop")
        for statement in node.body:
            self.visit(statement)
        self.blocks.pop()
        for statement in node.orelse:
            self.visit(statement)

    visit_For = visit_While = visit_loop

    def visit_Try(self, node: ast.Try) -> None:
        for child in [*node.body, *node.handlers, *node.orelse]:
            self.visit(child)
        self.blocks.append("finally")
        for child in node.finalbody:
            self.visit(child)
        self.blocks.pop()

    def visit_Return(self, node: ast.Return) -> None:
        if "finally" in self.blocks:
            self.add(node, "finally_control_flow", "return inside finally swallows exceptions, including the harness's")
        self.generic_visit(node)

    def visit_jump(self, node: ast.Break | ast.Continue) -> None:
        if self.blocks and self.blocks[-1] == "finally":
            self.add(node, "finally_control_flow", "break/continue inside finally swallows exceptions")

    visit_Break = visit_Continue = visit_jump

    def visit_comprehension(self, node: ast.comprehension) -> None:
        if node.is_async:
            self.add(node, "async_code", "async comprehensions are refused; tools are synchronous")
        self.generic_visit(node)

    # -- attributes, strings, SQL ------------------------------------------------------
    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr = node.attr
        # Every known escape from a value to type/frames/globals passes an underscore or one
        # of these names (test_policy.py::test_hostile_module_is_reported_and_refused).
        if attr.startswith("_"):
            self.add(node, "private_attribute", f"attribute {attr!r} is refused: underscore attributes reach internals")
        elif attr in _FORBIDDEN_ATTRIBUTES:
            self.add(node, "forbidden_attribute", f"attribute {attr!r} is refused: it leads to frames, code, "
                     "globals or attribute traversal")
        elif attr in _WALL_CLOCK_ATTRIBUTES and not (attr in _CTX_CLOCK and _is_ctx(node.value)):
            self.add(node, "wall_clock", f"{attr!r} reads the host clock or time zone; use ctx.now / ctx.today")
        if attr in _SQL_METHODS and id(node) not in self.sql_callees:
            self.add(node, "sql_not_literal", f"{attr!r} must be called directly so its SQL can be checked")
        if not isinstance(node.ctx, ast.Load):
            self.add(node, "attribute_write", "assigning or deleting attributes is refused; tools keep no state on objects")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        # getattr is not available, but a dunder string could still index a mapping that
        # some library fills from __dict__; refusing them costs tools nothing.
        if isinstance(node.value, (str, bytes)) and id(node) not in self.docstrings:
            text = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
            if "__" in text:
                self.add(node, "dunder_string", "string constants containing '__' are refused outside docstrings")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in _SQL_METHODS:
            self.sql_callees.add(id(func))
            self.check_sql(node)
        elif isinstance(func, ast.Name) and self.is_require_row(func.id):  # toolkit.require_row(ctx, sql, params, ...)
            self.sql_callees.add(id(func))
            self.check_sql(node, position=1)
        if isinstance(func, ast.Attribute) and func.attr in _CTX_CLOCK and _is_ctx(func.value):
            self.add(node, "wall_clock", "ctx.now / ctx.today are strings; calling one means ctx is a clock")
        self.generic_visit(node)

    def check_sql(self, call: ast.Call, position: int = 0) -> None:
        sql = call.args[position] if len(call.args) > position else next(
            (k.value for k in call.keywords if k.arg == "sql"), None)
        literals = self.sql_literals(sql)
        if literals is None:
            kind = type(sql).__name__ if sql is not None else "nothing"
            self.add(call, "sql_not_literal", f"SQL must be a string literal with ? parameters (or a module constant, "
                     f"or `A if c else B` of literals), not {kind}: no f-strings, +, %, format or join")
            return
        for node, text in literals:
            for rule, pattern, reason in SQL_RULES:
                if pattern.search(text):
                    self.add(node, rule, reason)
        params = call.args[position + 1] if len(call.args) > position + 1 else next(
            (k.value for k in call.keywords if k.arg == "params"), None)
        for inner in ast.walk(params) if params is not None else ():
            if isinstance(inner, ast.Constant) and isinstance(inner.value, str) and WALL_CLOCK_STRING.fullmatch(inner.value):
                self.add(inner, "wall_clock", f"SQL parameter {inner.value!r} reads the host clock or time zone; use ctx.now")

    def sql_literals(self, node: ast.expr | None) -> list[tuple[ast.expr, str]] | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [(node, node.value)]
        if isinstance(node, ast.Name) and not any(node.id in s for s in self.scopes[1:]):
            value = self.constants.get(node.id)
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return [(node, value.value)]
        if isinstance(node, ast.IfExp):
            body, orelse = self.sql_literals(node.body), self.sql_literals(node.orelse)
            return body + orelse if body is not None and orelse is not None else None
        return None
