"""In a checkout, ``scaleenv_mcp.generator``, ``.verifier`` and ``.clients`` are the folders beside
this package (the design keeps them at the top of the repository); a wheel moves them inside it.

One finder maps exactly those three names to their folders, so the project installs no generic
top-level import name (a ``clients`` of another distribution cannot collide) and the same import
works from a wheel, an editable install and a plain ``PYTHONPATH=checkout`` (the framework adapters'
own environments run our examples that way). Below the three packages, imports follow their
``__path__`` as usual. In a wheel the folders are inside the package and nothing is installed.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

PARTS = ("generator", "verifier", "clients")


class _CheckoutFinder(importlib.abc.MetaPathFinder):
    def __init__(self, folders: dict[str, Path]) -> None:
        self.folders = folders

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        folder = self.folders.get(fullname)
        if folder is None:
            return None
        return importlib.util.spec_from_file_location(fullname, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])


def map_parts() -> None:
    """Install the finder once, when this package sits in a checkout rather than in a wheel."""
    package = Path(__file__).resolve().parent
    root = package.parent
    folders = {f"scaleenv_mcp.{name}": root / name for name in PARTS
               if not (package / name).is_dir() and (root / name / "__init__.py").is_file()}
    if folders and not any(isinstance(finder, _CheckoutFinder) for finder in sys.meta_path):
        sys.meta_path.append(_CheckoutFinder(folders))
