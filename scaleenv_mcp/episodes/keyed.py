"""Keyed episodes: one episode per client-chosen key, for clients that open a session per call.

``/mcp/{domain}/s/{key}`` (host/http.py) gives the first request with a new key a fresh episode
and every later request with that key, on any MCP session of either protocol era, the same one.
langchain-mcp-adapters' default ``get_tools()``, verifiers' reconnecting toolsets and NeMo Gym's
forwarding toolset all open a new session per call; on ``/mcp/{domain}`` each would get a fresh,
empty episode, silently.

A keyed episode ends when it is unused for ``key_idle_timeout`` seconds or is closed (a DELETE on
its URL without a session, or the control API). Its key is then remembered (up to
``max_ended_keys``, oldest forgotten first) so that using it again is a clear
``EpisodeExpiredError``, never a fresh episode that looks like the old one lost its state.
This module must not touch MCP or HTTP: it maps keys to episode ids.
"""

from __future__ import annotations

import asyncio
import re
from collections import OrderedDict

from scaleenv_mcp.episodes.registry import Episode, EpisodeOrigin, EpisodeRegistry
from scaleenv_mcp.errors import EpisodeExpiredError, EpisodeNotFoundError, UsageError
from scaleenv_mcp.settings import HostSettings

__all__ = ["KEY_PATTERN", "KeyedEpisodes"]

KEY_PATTERN = re.compile(r"[A-Za-z0-9._~-]{1,128}")
Key = tuple[str, str]  # (domain, key)


class KeyedEpisodes:
    """(domain, key) -> live episode id, and the keys whose episode ended, with why."""

    def __init__(self, registry: EpisodeRegistry, settings: HostSettings) -> None:
        self.registry = registry
        self.settings = settings
        self.live: dict[Key, str] = {}
        self.of_episode: dict[str, Key] = {}
        self.ended: OrderedDict[Key, str] = OrderedDict()
        self.creating: dict[Key, asyncio.Future[str]] = {}
        registry.on_close.append(self._closed)

    async def resolve(self, domain: str, key: str, task_id: str | None = None) -> str:
        """The episode of ``key``, created on its first use (from ``task_id``'s start state if given).

        Raises:
            UsageError: a malformed key, or a task other than the one the key's episode was made from.
            EpisodeExpiredError: the key's episode expired or was closed.
            CapacityError: a new key past the interactive episode cap.
        """
        if not KEY_PATTERN.fullmatch(key):
            raise UsageError("a key is 1 to 128 characters of letters, digits and . _ ~ -")
        where = (domain, key)
        if where in self.ended:
            raise EpisodeExpiredError(self.ended[where])
        episode_id = self.live.get(where)
        if episode_id is None:
            return await self._create(where, task_id)
        episode = self.registry.episodes.get(episode_id)
        if episode is not None and self.registry.is_idle(episode):
            await self.registry.close(episode_id, "expired")  # the reaper had not come by yet
        if where in self.ended:
            raise EpisodeExpiredError(self.ended[where])
        episode = self.registry.get(episode_id)
        if task_id is not None and task_id != episode.task_id:
            raise UsageError(f"key {key!r} already has an episode of task {episode.task_id or '(the seed)'}; "
                             f"use another key for task {task_id}")
        return episode_id

    async def _create(self, where: Key, task_id: str | None) -> str:
        pending = self.creating.get(where)
        if pending is not None:  # concurrent first uses of one key share one episode
            return await asyncio.shield(pending)
        future: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.creating[where] = future
        try:
            episode = await self.registry.create(where[0], task_id, EpisodeOrigin.interactive,
                                                 idle_timeout=self.settings.key_idle_timeout)
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: concurrent waiters re-raise it
            raise
        finally:
            del self.creating[where]
        self.live[where] = episode.id
        self.of_episode[episode.id] = where
        future.set_result(episode.id)
        return episode.id

    def lookup(self, domain: str, key: str) -> str:
        """The live episode of ``key``, without creating one (the control API's ``GET /keys/...``).

        Raises:
            EpisodeExpiredError: it expired or was closed. EpisodeNotFoundError: the key was never used.
        """
        where = (domain, key)
        if where in self.ended:
            raise EpisodeExpiredError(self.ended[where])
        if where not in self.live:
            raise EpisodeNotFoundError(f"key {key!r} has no episode on {domain}")
        return self.live[where]

    async def close(self, domain: str, key: str) -> None:
        """End the key's episode now; the key then answers ``episode_expired``.

        Raises:
            EpisodeExpiredError: it had ended already. UsageError: the key was never used.
        """
        where = (domain, key)
        if where in self.ended:
            raise EpisodeExpiredError(self.ended[where])
        if where not in self.live:
            raise UsageError(f"key {key!r} has no episode on {domain}")
        await self.registry.close(self.live[where], "closed")

    def _closed(self, episode: Episode, reason: str) -> None:
        where = self.of_episode.pop(episode.id, None)
        if where is None:
            return
        del self.live[where]
        why = (f"expired after {self.settings.key_idle_timeout:g} s unused" if reason == "expired"
               else "was lost with its worker" if reason == "lost" else "was closed")
        self.ended[where] = (f"the episode of key {where[1]!r} on {where[0]} {why}; its state is gone. Use a new key "
                             "for a fresh episode")
        while len(self.ended) > self.settings.max_ended_keys:
            self.ended.popitem(last=False)
