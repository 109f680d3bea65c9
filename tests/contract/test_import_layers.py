"""Import layers, package by package, over every package of the repo (the CLI and bench/ included).

Three rules, each checked on the real tree and shown failing on a synthetic change:
- the package graph has no cycle (a package is a folder: ``scaleenv_mcp.state``,
  ``scaleenv_mcp.generator.synthesis``...; a module at the root of a layer is a unit of its own);
- imports between the layers point down only, with no exemption: core (``scaleenv_mcp`` but its
  CLI and its three parts) < ``scaleenv_mcp.verifier`` < ``.generator`` < ``.clients`` < bench < the
  CLI, which reaches every layer, lazily, inside its commands;
- the three parts are imported by their namespaced names only: ``generator``, ``verifier`` and
  ``clients`` are folders of the checkout, never import names (a wheel installs them inside
  ``scaleenv_mcp``; scaleenv_mcp/_checkout.py maps them in a checkout);
- nothing above the core reaches into the host's internals: no import of
  ``scaleenv_mcp.episodes.registry`` or ``scaleenv_mcp.workers.pool``, no ``.registry`` or
  ``.pool`` attribute; episodes are driven through ``Host``'s public methods. The import half
  is also a ruff rule (TID251 in pyproject.toml), checked here on the same synthetic file.
Every import counts, lazy ones too: a lazy import still ties the packages together.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx

REPO = Path(__file__).resolve().parents[2]
FOLDERS = {"scaleenv_mcp": "scaleenv_mcp", "verifier": "scaleenv_mcp.verifier", "generator": "scaleenv_mcp.generator",
           "clients": "scaleenv_mcp.clients", "bench": "bench"}  # folder of the checkout -> its import name
PACKAGES = ("scaleenv_mcp", "bench")  # the top-level import names
PARTS = ("scaleenv_mcp.verifier", "scaleenv_mcp.generator", "scaleenv_mcp.clients")
LAYERS = {"core": 0, "verifier": 1, "generator": 2, "clients": 3, "bench": 4, "cli": 5}
BARE = ("generator", "verifier", "clients")
INTERNAL_MODULES = ("scaleenv_mcp.episodes.registry", "scaleenv_mcp.workers.pool")
INTERNAL_ATTRIBUTES = ("registry", "pool")
# The one module allowed the worker pool: the isolation-floor baseline of `scaleenv bench` is the bare
# MCP server plus our worker processes and none of the host, so it measures the pool itself (#25).
POOL_BASELINE = "bench.bare_servers"


def _sources() -> dict[str, str]:
    """Dotted module name -> source, for every module of the project's packages."""
    found = {}
    for folder, name in FOLDERS.items():
        for path in (REPO / folder).rglob("*.py"):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            found[".".join([name, *(parts[:-1] if parts[-1] == "__init__" else parts)])] = path.read_text()
    return found


def _is_package(module: str, sources: dict[str, str]) -> bool:
    return any(name.startswith(module + ".") for name in sources)


def _layer(unit: str) -> str:
    if unit == "scaleenv_mcp.cli" or unit.startswith("scaleenv_mcp.cli."):
        return "cli"
    for part in PARTS:
        if unit == part or unit.startswith(part + "."):
            return part.rsplit(".", 1)[1]
    top = unit.split(".")[0]
    return "core" if top == "scaleenv_mcp" else top


def _imported(module: str, source: str, sources: dict[str, str]) -> set[str]:
    """The project modules ``module`` imports (``from X import name`` is ``X.name`` when that is a module)."""
    found = set()
    package = module if _is_package(module, sources) else module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in sources else base)
    return {name for name in found if name.split(".")[0] in PACKAGES}


def _module_unit(module: str, sources: dict[str, str]) -> str:
    if module == "scaleenv_mcp.__main__":
        return "scaleenv_mcp.cli"
    if _is_package(module, sources):
        return module
    parent = module.rsplit(".", 1)[0] if "." in module else module
    if parent in FOLDERS.values():  # a root module (errors.py, console.py, generator/tasks.py...) is a unit of its own
        return module
    return parent


def package_graph(sources: dict[str, str]) -> nx.DiGraph:
    graph = nx.DiGraph()
    for module, source in sources.items():
        here = _module_unit(module, sources)
        graph.add_node(here)
        for target in _imported(module, source, sources):
            there = _module_unit(target, sources) if target in sources else _module_unit(target.rsplit(".", 1)[0], sources)
            if there != here:
                graph.add_edge(here, there, via=f"{module} -> {target}")
    return graph


def package_cycles(sources: dict[str, str]) -> list[list[str]]:
    graph = package_graph(sources)
    return [sorted(component) for component in nx.strongly_connected_components(graph) if len(component) > 1]


def upward_imports(sources: dict[str, str]) -> list[str]:
    graph = package_graph(sources)
    return sorted(data["via"] for a, b, data in graph.edges(data=True) if LAYERS[_layer(b)] > LAYERS[_layer(a)])


def reach_ins(sources: dict[str, str]) -> list[str]:
    found = []
    for module, source in sources.items():
        if _layer(_module_unit(module, sources)) == "core":
            continue
        for name in _imported(module, source, sources):
            if name.startswith(INTERNAL_MODULES) and (module, name) != (POOL_BASELINE, "scaleenv_mcp.workers.pool"):
                found.append(f"{module} imports {name}")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Attribute) and node.attr in INTERNAL_ATTRIBUTES:
                found.append(f"{module}:{node.lineno} uses .{node.attr}")
    return sorted(found)


def bare_imports(sources: dict[str, str]) -> list[str]:
    """Imports of a checkout folder by its bare name: a second copy of the module under another name."""
    found = []
    for module, source in sources.items():
        for node in ast.walk(ast.parse(source)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{module}:{node.lineno} imports {n}" for n in names if n.split(".")[0] in BARE]
    return sorted(found)


def _test_sources() -> dict[str, str]:
    return {".".join(p.relative_to(REPO).with_suffix("").parts): p.read_text() for p in (REPO / "tests").rglob("*.py")
            if "node_modules" not in p.parts}


# -- the real tree -----------------------------------------------------------------------------
def test_the_three_parts_are_imported_by_their_namespaced_names_only():
    assert bare_imports({**_sources(), **_test_sources()}) == []
def test_no_package_cycles():
    assert package_cycles(_sources()) == []


def test_imports_point_down_only():
    assert upward_imports(_sources()) == []


def test_nothing_above_the_core_reaches_into_the_host():
    assert reach_ins(_sources()) == []


# -- each rule fails on a synthetic change -------------------------------------------------------
REACH_IN = "async def replay(host):\n    await host.registry.call('e', 'get_book', {})\n"
IMPORT_REACH_IN = "from scaleenv_mcp.episodes.registry import EpisodeRegistry\n"


def test_a_registry_reach_in_is_caught():
    sources = _sources()
    sources["scaleenv_mcp.generator.synthesis.probe"] = REACH_IN
    sources["bench.probe"] = IMPORT_REACH_IN
    sources["scaleenv_mcp.cli.probe"] = "def run(host):\n    return host.pool.size\n"
    assert reach_ins(sources) == ["bench.probe imports scaleenv_mcp.episodes.registry",
                                  "scaleenv_mcp.cli.probe:2 uses .pool", "scaleenv_mcp.generator.synthesis.probe:2 uses .registry"]


def test_a_new_package_cycle_is_caught():
    sources = _sources()
    sources["scaleenv_mcp.state.probe"] = "from scaleenv_mcp.domain.manifest import DomainManifest\n"
    assert ["scaleenv_mcp.domain", "scaleenv_mcp.state"] in [
        [u for u in cycle if u in ("scaleenv_mcp.domain", "scaleenv_mcp.state")] for cycle in package_cycles(sources)]


def test_a_bare_import_of_a_part_is_caught():
    sources = {"scaleenv_mcp.clients.probe": "def f():\n    from generator.tasks import synthesize_tasks\n",
               "bench.probe": "import clients.webui\n"}
    assert bare_imports(sources) == ["bench.probe:1 imports clients.webui", "scaleenv_mcp.clients.probe:2 imports generator.tasks"]


def test_a_lazy_upward_import_is_caught():
    sources = _sources()
    sources["scaleenv_mcp.verifier.probe"] = "def f():\n    from scaleenv_mcp.generator.tasks import synthesize_tasks\n"
    sources["scaleenv_mcp.clients.probe"] = ("def f():\n    from scaleenv_mcp.console import fail\n"
                                             "    from scaleenv_mcp.cli import app\n")
    assert upward_imports(sources) == ["scaleenv_mcp.clients.probe -> scaleenv_mcp.cli.app",
                                       "scaleenv_mcp.verifier.probe -> scaleenv_mcp.generator.tasks"]


def test_ruff_bans_importing_the_registry_outside_the_core():
    def ruff(filename: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "TID251",
                               "--stdin-filename", filename, "-"], input=IMPORT_REACH_IN, capture_output=True,
                              text=True, cwd=REPO)

    for outside in ("generator/synthesis/probe.py", "bench/probe.py", "scaleenv_mcp/cli/probe.py", "scaleenv_mcp/probe.py"):
        caught = ruff(outside)
        assert caught.returncode == 1 and "TID251" in caught.stdout, outside + caught.stdout + caught.stderr
    assert ruff("scaleenv_mcp/host/probe.py").returncode == 0  # the core itself may
