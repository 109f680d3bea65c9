"""The garbage collector of a process that serves episodes for hours (#25).

CPython's collector is set for scripts: a young collection every 700 net allocations, and a full
one whenever a quarter of the old generation is new. A serving process holds about 135,000
objects from its imports and start-up that never die, and every full collection walked all of
them again; under load (64 concurrent episodes over HTTP) the collector took about a quarter of
the serving process's CPU, most of it in full collections (measured with ``gc.callbacks``,
docs/performance.md). Two settings, applied once the host is up:

- ``gc.freeze()`` moves what start-up made into a generation no collection scans. Those objects
  are modules, classes, schemas and the app: they live as long as the process.
- A young threshold of 10,000 instead of 700: a request's objects mostly die before the next
  young collection instead of being promoted while still in flight, so fewer reach the old
  generation and fewer full collections follow. Cyclic garbage waits a little longer: at most
  that many objects' worth, a few megabytes.

Only for processes that are ours (``scaleenv serve``, a Ray host actor): a Python program that
embeds ``Host`` keeps its own collector settings.
"""

from __future__ import annotations

import gc

__all__ = ["YOUNG_THRESHOLD", "settle_heap"]

YOUNG_THRESHOLD = 10_000


def settle_heap() -> None:
    """Freeze what start-up made and raise the young threshold; call once the host serves."""
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
