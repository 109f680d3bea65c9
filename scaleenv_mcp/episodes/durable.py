"""Durable snapshots: episodes and snapshots of a registry written as files, and episodes made from them.

The file format is ``episode_file.py``'s; the SQLite image of an imported file is validated in the
worker that will hold it before the episode exists (``EpisodeRegistry.create(restored=...)`` and
``state.image_check``). Every refusal is an ``EpisodeFileError`` and creates nothing.
"""

from __future__ import annotations

from scaleenv_mcp.episodes.episode import Episode, EpisodeOrigin
from scaleenv_mcp.episodes.episode_file import pack_episode_file, read_episode_file
from scaleenv_mcp.episodes.registry import EpisodeRegistry
from scaleenv_mcp.errors import DomainVersionError, EpisodeFileError

__all__ = ["export_episode", "export_snapshot", "import_episode"]


async def export_episode(registry: EpisodeRegistry, episode_id: str) -> bytes:
    """The episode as a file: its state as a snapshot holds it, its trace and call count."""
    episode = registry.get(episode_id)
    data = await registry.state_bytes(episode_id)
    return pack_episode_file("episode", episode.domain.slug, episode.domain.bundle.content_hash, episode.task_id,
                             episode.calls, data, list(episode.trace))


def export_snapshot(registry: EpisodeRegistry, snapshot_id: str) -> bytes:
    """A snapshot as a file (no trace: a snapshot keeps none)."""
    snapshot = registry.stored_snapshot(snapshot_id)
    return pack_episode_file("snapshot", snapshot.domain, snapshot.domain_hash, snapshot.task_id, 0, snapshot.data, [])


async def import_episode(registry: EpisodeRegistry, data: bytes, allow_other_version: bool = False,
                         origin: EpisodeOrigin = EpisodeOrigin.harness) -> Episode:
    """A new episode from an exported file. Refused, with nothing created, when the file is not one of
    this format version, is corrupted, names a domain or task not served here, was made by another
    version of the domain package (unless ``allow_other_version``), or its SQLite image fails validation.

    Raises:
        EpisodeFileError (DomainVersionError for the package hash), CapacityError.
    """
    limit = registry.settings.max_db_mb * 1024 * 1024
    restored = read_episode_file(data, max_state_bytes=limit, max_trace_bytes=limit)
    meta = restored.meta
    runtime = registry.domains.get(meta.domain)
    if runtime is None:
        raise EpisodeFileError(f"episode file is of domain {meta.domain!r}, not served here "
                               f"(served: {', '.join(sorted(registry.domains))})")
    if meta.domain_hash != runtime.bundle.content_hash and not allow_other_version:
        raise DomainVersionError(
            f"episode file was made by another version of {meta.domain!r}: its package hash is {meta.domain_hash}, "
            f"this host serves {runtime.bundle.content_hash}; import with allow_other_version (--force) to "
            "try it anyway (its SQLite image must still match this version's schema)")
    settings = registry.settings
    if meta.calls > settings.max_calls or meta.trace_records > settings.max_trace:
        raise EpisodeFileError(f"episode file holds {meta.calls} calls and {meta.trace_records} trace records, over "
                               f"this host's limits ({settings.max_calls} calls, {settings.max_trace} records)")
    if meta.task_id is not None and meta.task_id not in runtime.package.tasks:
        raise EpisodeFileError(f"episode file is of task {meta.task_id!r}, which domain {meta.domain!r} "
                               "does not have here")
    return await registry.create(meta.domain, meta.task_id, origin, restored=restored)
