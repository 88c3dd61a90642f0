"""The webhook server's bounds, over real TLS sockets: TLS 1.2+, body size, silent peers, connection count."""

from __future__ import annotations

import datetime as dt
import json
import socket
import ssl
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from tests.operator.support import eventually

from workload_map.cmdline.cluster_options import cluster_options_of
from workload_map.jq import LIMITS, JqLimitError
from workload_map.jq._isolated import MODE_ALL, run_isolated, shutdown
from workload_map.operator import certs, main, server


@pytest.fixture
def webhook(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[server.WebhookServer, ssl.SSLContext]]:
    monkeypatch.setattr(server, "IO_TIMEOUT", 2.0)
    monkeypatch.setattr(server, "MAX_CONNECTIONS", 2)
    ca, ca_key = certs.generate_ca()
    cert, key = certs.issue_serving(ca, ca_key, ["127.0.0.1"], validity=dt.timedelta(days=1))
    srv = server.WebhookServer("127.0.0.1", 0, {"/echo": lambda review: {"got": review}})
    srv.load(cert, key)
    srv.start()
    with tempfile.NamedTemporaryFile(suffix=".pem") as f:
        Path(f.name).write_bytes(ca)
        client = ssl.create_default_context(cafile=f.name)
    try:
        yield srv, client
    finally:
        srv.stop()


def _tls(srv: server.WebhookServer, ctx: ssl.SSLContext) -> ssl.SSLSocket:
    raw = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
    return ctx.wrap_socket(raw, server_hostname="127.0.0.1")


def _post(sock: ssl.SSLSocket, body: bytes, length: int | None = None) -> bytes:
    head = f"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body) if length is None else length}\r\n\r\n"
    sock.sendall(head.encode() + body)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_answers_a_review(webhook: tuple[server.WebhookServer, ssl.SSLContext]) -> None:
    srv, ctx = webhook
    with _tls(srv, ctx) as sock:
        reply = _post(sock, json.dumps({"uid": "1"}).encode())
        assert reply.startswith(b"HTTP/1.1 200")
        assert sock.version() in ("TLSv1.2", "TLSv1.3")


@pytest.mark.filterwarnings("ignore:ssl.TLSVersion.TLSv1_1 is deprecated:DeprecationWarning")
def test_tls_below_1_2_is_refused(webhook: tuple[server.WebhookServer, ssl.SSLContext]) -> None:
    srv, ctx = webhook
    assert srv.context.minimum_version == ssl.TLSVersion.TLSv1_2
    ctx.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED
    ctx.maximum_version = ssl.TLSVersion.TLSv1_1
    ctx.set_ciphers("ALL:@SECLEVEL=0")
    with pytest.raises((ssl.SSLError, ConnectionResetError)):
        _tls(srv, ctx).close()


def test_too_large_body_is_413_unread(webhook: tuple[server.WebhookServer, ssl.SSLContext]) -> None:
    srv, ctx = webhook
    with _tls(srv, ctx) as sock:
        # Announce more than the bound and send nothing of it: the answer comes without reading the body.
        reply = _post(sock, b"", length=server.MAX_BODY + 1)
        assert reply.startswith(b"HTTP/1.1 413"), reply
    with _tls(srv, ctx) as sock:
        assert _post(sock, b"", length=0).startswith(b"HTTP/1.1 400")


def test_a_silent_peer_is_disconnected(webhook: tuple[server.WebhookServer, ssl.SSLContext]) -> None:
    srv, ctx = webhook
    with _tls(srv, ctx) as sock:
        sock.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")  # then nothing
        sock.settimeout(10)
        data = b""
        while True:  # the server gives up on the body and closes; it never waits for the other 99 bytes
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        assert b"HTTP/1.1 200" not in data


def test_connections_beyond_the_bound_are_closed(webhook: tuple[server.WebhookServer, ssl.SSLContext]) -> None:
    srv, ctx = webhook
    held: list[Any] = []
    # Two connections that completed the handshake hold both slots (the server waits on their request line).
    for _ in range(2):
        held.append(_tls(srv, ctx))
    try:
        raw = socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        with pytest.raises((ssl.SSLError, ConnectionResetError, BrokenPipeError, OSError)):
            ctx.wrap_socket(raw, server_hostname="127.0.0.1").sendall(b"GET / HTTP/1.1\r\n\r\n")
    finally:
        for sock in held:
            sock.close()

    # The slots come back: a new client is served.
    def served() -> bool:
        try:
            with _tls(srv, ctx) as sock:
                return _post(sock, b"{}").startswith(b"HTTP/1.1 200")
        except (ssl.SSLError, OSError):
            return False

    assert eventually(served, timeout=10, what="a slot free again")


def test_operator_jq_budgets_come_from_its_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LIMITS, "timeout_seconds", LIMITS.timeout_seconds)
    monkeypatch.setattr(LIMITS, "worker_memory_bytes", LIMITS.worker_memory_bytes)
    ctx = main.command.make_context("wmap-operator", ["--jq-timeout-seconds=0.2", "--jq-memory-mb=128"])
    with ctx:
        config = main._config(ctx, {**ctx.params, "connection": cluster_options_of(ctx.params)})
    assert isinstance(ctx, click.Context)
    main.apply_jq_limits(config)
    assert LIMITS.timeout_seconds == 0.2 and LIMITS.worker_memory_bytes == 128 * 1024 * 1024
    shutdown()  # the next worker starts with the new cap
    try:
        # A busy loop the sandbox admits (bounded, but far beyond the budget) ends at the time limit.
        with pytest.raises(JqLimitError, match=r"0\.2 s time limit"):
            run_isolated("reduce limit(100000000; repeat(1)) as $x (0; . + $x)", None, MODE_ALL)
    finally:
        shutdown()
