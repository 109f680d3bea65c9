"""Find domain packages by scanning folders: the shipped ones, then any the user adds.

A domain is a folder with a ``domain.json``; nothing is registered by hand. In a wheel the
shipped domains live in ``scaleenv_mcp/shipped_domains``; in a checkout, in ``domains/``.
"""

from __future__ import annotations

import os
from pathlib import Path

from scaleenv_mcp.errors import UsageError

__all__ = ["default_domain_dirs", "find_domains", "is_installed", "resolve_domain_path"]

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def default_domain_dirs() -> list[Path]:
    """``SCALEENV_DOMAINS_DIR`` (os.pathsep-separated) if set, else the shipped domains."""
    env = os.environ.get("SCALEENV_DOMAINS_DIR")
    if env:
        return [Path(p) for p in env.split(os.pathsep) if p]
    shipped = _PACKAGE_DIR / "shipped_domains"
    if shipped.is_dir():
        return [shipped]
    checkout = _PACKAGE_DIR.parent / "domains"
    return [checkout] if checkout.is_dir() else []


def find_domains(dirs: list[Path] | None = None) -> dict[str, Path]:
    """Slug -> package folder for every folder holding a domain.json (first directory wins)."""
    found: dict[str, Path] = {}
    for base in dirs if dirs is not None else default_domain_dirs():
        if (base / "domain.json").is_file():
            found.setdefault(base.name, base.resolve())
            continue
        if not base.is_dir():
            continue
        for child in sorted(base.iterdir()):
            if (child / "domain.json").is_file():
                found.setdefault(child.name, child.resolve())
    return found


def resolve_domain_path(name: str, dirs: list[Path] | None = None) -> Path:
    """A slug of an installed domain, or a path to a domain folder."""
    candidate = Path(name)
    if (candidate / "domain.json").is_file():
        return candidate.resolve()
    found = find_domains(dirs)
    if name in found:
        return found[name]
    known = ", ".join(sorted(found)) or "none"
    raise UsageError(f"unknown domain {name!r} (installed: {known}; or give a path to a domain folder)")


def is_installed(path: Path) -> bool:
    """True for a folder inside an installed package (site-packages, or the wheel's shipped
    domains): commands that write derived files must not write there, only from a checkout."""
    import site
    import sysconfig

    roots = {Path(p).resolve() for p in [*site.getsitepackages(), site.getusersitepackages(),
                                          sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]}
    roots.add(_PACKAGE_DIR / "shipped_domains")
    resolved = path.resolve()
    return any(resolved.is_relative_to(root) for root in roots)
