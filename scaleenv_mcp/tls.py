"""One TLS context per process for the HTTP clients this project builds.

httpx (and httpx2, under the MCP SDK) build a new ``ssl.SSLContext`` for every client and load the
CA bundle into it: 35-60 ms of CPU each time, even for a client that only ever speaks plain HTTP to
loopback. A full test run built about a thousand of them (38 s of CPU, issue #26), and an eval paid
it once per episode. httpx recommends building the context once and passing it as ``verify``; the
context is the one httpx would build itself (certifi's bundle, or ``SSL_CERT_FILE`` /
``SSL_CERT_DIR``), so certificate checking is unchanged.
"""

from __future__ import annotations

import functools
import ssl

import httpx

__all__ = ["shared_ssl_context"]


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """httpx's default context, built on first use and shared by every client of this process."""
    return httpx.create_ssl_context()
