"""The adapters' HTTP client meets a host that is down or silent with a clear error, never a hang."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from scaleenv_mcp.clients.adapters.remote import HostUnreachableError, ScaleEnvRemote, task_prompt

pytestmark = pytest.mark.anyio


async def test_a_port_nobody_listens_on_is_named_at_once():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with ScaleEnvRemote(f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}", "t" * 40) as remote:
        with pytest.raises(HostUnreachableError, match=rf"no scaleenv host answers at http://127.0.0.1:{port}/domains"):
            await remote.domains()


async def test_a_host_that_accepts_but_never_answers_times_out(tmp_path: Path):
    token = tmp_path / "token"
    token.write_text("t" * 40 + "\n")
    with socket.socket() as silent:  # the kernel completes the handshake; nothing ever answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        async with ScaleEnvRemote(url, url, token_file=token, timeout=1.0, connect_timeout=1.0) as remote:
            started = time.monotonic()
            with pytest.raises(HostUnreachableError, match="did not answer in time"):
                await remote.tasks("smart_home")
    assert time.monotonic() - started < 10


def test_the_prompt_carries_the_opening_and_every_fact_the_user_would_give():
    prompt = task_prompt({"opening": "Set my alarm to away.", "known": {"email": "a@b.c"}, "withheld": {"pin": "1234"}})
    assert prompt == "Set my alarm to away.\nDetails you may need: email: a@b.c; pin: 1234."
    assert task_prompt({"opening": "Hi"}) == "Hi"
