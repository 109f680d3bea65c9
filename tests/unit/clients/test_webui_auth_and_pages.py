"""The web view's parts without a host: login keys and sessions, the CSRF rule, pagination, the
diff as tables, finding run folders, and the tables' diagram escaping what it draws."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from starlette.requests import Request

from scaleenv_mcp.clients.webui.auth import COOKIE, UiAuth
from scaleenv_mcp.clients.webui.diff_view import diff_tables
from scaleenv_mcp.clients.webui.er_diagram import render_er_svg
from scaleenv_mcp.clients.webui.render import paginate
from scaleenv_mcp.clients.webui.runs import find_runs
from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.state.diff import RowChange, StateDiff, TableDiff

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _request(method: str = "GET", cookie: str | None = None, origin: str | None = None,
             authorization: str | None = None) -> Request:
    headers = [(b"host", b"127.0.0.1:8766")]
    if cookie:
        headers.append((b"cookie", f"{COOKIE}={cookie}".encode()))
    if origin:
        headers.append((b"origin", origin.encode()))
    if authorization:
        headers.append((b"authorization", authorization.encode()))
    return Request({"type": "http", "method": method, "path": "/ui/", "headers": headers, "scheme": "http",
                    "server": ("127.0.0.1", 8766), "query_string": b""})


def test_a_login_key_opens_one_session_once_and_expires():
    auth = UiAuth("t" * 40)
    key = auth.mint_login_key()
    session = auth.login(key)
    assert session is not None and auth.login(key) is None
    assert auth.session(_request(cookie=session.id)) is session
    assert auth.session(_request(cookie="forged")) is None
    stale = auth.mint_login_key()
    auth.keys[stale] = time.time() - 1
    assert auth.login(stale) is None
    session.expires = time.time() - 1
    assert auth.session(_request(cookie=session.id)) is None


def test_a_change_needs_the_bearer_or_the_session_csrf_token_from_the_same_origin():
    auth = UiAuth("t" * 40)
    session = auth.login(auth.mint_login_key())
    assert session is not None
    same = "http://127.0.0.1:8766"
    assert auth.may_change(_request("POST", session.id, same), session.csrf)
    assert not auth.may_change(_request("POST", session.id, same), "wrong")
    assert not auth.may_change(_request("POST", session.id, same), None)
    assert not auth.may_change(_request("POST", session.id, "http://127.0.0.1:9999"), session.csrf)
    assert not auth.may_change(_request("POST", None, same), session.csrf)  # a CSRF token alone is no session
    assert auth.may_change(_request("POST", authorization=f"Bearer {'t' * 40}"), None)
    assert not auth.may_change(_request("POST", authorization="Bearer nope"), None)


def test_pages_clamp_and_count():
    items = list(range(120))
    assert paginate(items, None).items == list(range(50))
    last = paginate(items, "9")
    assert last.number == 3 and last.items == list(range(100, 120)) and (last.first, last.last) == (101, 120)
    assert paginate(items, "x").number == 1 and paginate([], "2").total == 0


def test_a_diff_becomes_tables_with_changed_cells_before_and_after():
    diff = StateDiff(tables={"loans": TableDiff(added=[{"loan_id": "LN-1", "note": "<b>"}],
                                                changed=[RowChange(key={"loan_id": "LN-0"}, before={"note": "a"},
                                                                   after={"note": "b"})])})
    (table,) = diff_tables(diff)
    assert table.columns == ["loan_id", "note"] and (table.added, table.changed) == (1, 1)
    changed = next(r for r in table.rows if r.kind == "changed")
    assert changed.cells[0].value == "LN-0" and not changed.cells[0].changed
    assert (changed.cells[1].before, changed.cells[1].value, changed.cells[1].changed) == ("a", "b", True)


def test_run_folders_are_found_at_the_root_or_below_and_a_missing_root_is_said(tmp_path: Path):
    shutil.copytree(FIXTURES / "web_run", tmp_path / "a")
    shutil.copytree(FIXTURES / "web_run", tmp_path / "group" / "b")
    (tmp_path / "not-a-run").mkdir()
    found, problems = find_runs([tmp_path, tmp_path / "missing"])
    assert sorted(f.name for f in found) == ["a", "group/b"]
    assert problems == [f"results folder {tmp_path / 'missing'} does not exist (or is not a folder)"]
    single, _ = find_runs([tmp_path / "a"])
    assert [f.name for f in single] == ["a"]


def test_the_tables_diagram_draws_every_table_and_reference_escaped():
    manifest = DomainManifest.model_validate_json((FIXTURES / "domains" / "tiny_library" / "domain.json").read_text())
    svg = render_er_svg(manifest)
    for table in manifest.tables:
        assert f'data-table="{table.name}"' in svg
    assert svg.count("marker-end=") == sum(len(t.foreign_keys) for t in manifest.tables) == 2
    first = manifest.tables[0]
    bad = first.model_copy(update={"columns": [first.columns[0].model_copy(update={"name": "<script>"}),
                                               *first.columns[1:]]})
    hostile = manifest.model_copy(update={"tables": [bad, *manifest.tables[1:]]})
    assert "<script>" not in render_er_svg(hostile) and "&lt;script&gt;" in render_er_svg(hostile)
