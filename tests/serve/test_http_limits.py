"""`wmap serve`'s HTTP server under peers that misbehave: half-sent requests, idle keep-alives, clients that
vanish mid-stream, more connections than it serves, and an exposed address without a token.

A real `wmap serve --from-file` process (the built-in example) on a free loopback port, read with raw sockets.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "src" / "workload_map" / "examples" / "ai-cluster.yaml"
WMAP = (sys.executable, "-m", "workload_map.cli.main")
HALF_SENT = b"GET /api/v1/workloads HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"  # no blank line


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Serving:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, log: Path) -> None:
        self.proc, self.port, self.log = proc, port, log
        self.base = f"http://127.0.0.1:{port}"

    def get(self, path: str, timeout: float = 5) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.base + path, timeout=timeout) as answer:
                return int(answer.status), bytes(answer.read())
        except urllib.error.HTTPError as exc:
            return int(exc.code), bytes(exc.read())

    def connect(self, request: bytes = b"") -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        if request:
            sock.sendall(request)
        return sock


@contextlib.contextmanager
def serving(tmp_path: Path, *args: str) -> Iterator[Serving]:
    port = _free_port()
    log = tmp_path / f"serve-{port}.log"
    with log.open("w") as err:
        proc = subprocess.Popen(
            [*WMAP, "serve", "--from-file", str(EXAMPLE), "--port", str(port), *args],
            stdout=subprocess.DEVNULL,
            stderr=err,
            stdin=subprocess.DEVNULL,
        )
    serve = Serving(proc, port, log)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if serve.get("/readyz", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield serve
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset, as a client that crashed or lost its network does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def _closed_by_peer(sock: socket.socket, within: float) -> bool:
    """True when the server closes the connection within ``within`` seconds (whatever it sent first)."""
    sock.settimeout(within)
    deadline = time.monotonic() + within
    try:
        while time.monotonic() < deadline:
            if not sock.recv(65536):
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return False


def _read_until(sock: socket.socket, marker: bytes) -> bytes:
    got = b""
    while marker not in got:
        chunk = sock.recv(65536)
        assert chunk, got
        got += chunk
    return got


def test_half_sent_requests_neither_exhaust_it_nor_leave_tracebacks(tmp_path: Path) -> None:
    with serving(tmp_path, "--idle-timeout", "2") as serve:
        stalled = [serve.connect(HALF_SENT) for _ in range(100)]
        began = time.monotonic()
        for path in ("/readyz", "/metrics", "/api/v1/workloads"):  # served while the 100 hang
            assert serve.get(path)[0] == 200, path
        assert time.monotonic() - began < 10
        # every half-sent request is closed once the timeout passes, none is answered as if complete
        assert all(_closed_by_peer(sock, within=10) for sock in stalled)
        for sock in stalled:
            sock.close()
        # a whole request then silence on a kept-alive connection: closed after the timeout too
        idle = serve.connect(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert idle.recv(65536).startswith(b"HTTP/1.1 200")
        assert _closed_by_peer(idle, within=10)
        idle.close()
        # peers that vanish with a reset: mid-headers, and subscribed to the event stream
        for _ in range(100):
            _reset(serve.connect(HALF_SENT))
        streams = [serve.connect(b"GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") for _ in range(20)]
        for sock in streams:
            _read_until(sock, b"event: change")
            _reset(sock)
        assert serve.get("/healthz")[0] == 200
    log = serve.log.read_text()
    assert "Traceback" not in log and "Exception" not in log, log[-3000:]


def test_a_connection_past_the_cap_is_answered_503_and_closed(tmp_path: Path) -> None:
    with serving(tmp_path, "--max-connections", "8", "--idle-timeout", "30") as serve:
        held = [serve.connect(HALF_SENT) for _ in range(8)]
        time.sleep(0.5)  # all 8 accepted
        extra = serve.connect(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        extra.settimeout(5)
        assert extra.recv(65536).startswith(b"HTTP/1.1 503")
        assert _closed_by_peer(extra, within=5)
        extra.close()
        for sock in held:
            sock.close()
        deadline = time.monotonic() + 10
        while serve.get("/healthz")[0] != 200:  # the freed places serve again
            assert time.monotonic() < deadline
            time.sleep(0.1)


def _exposed(*args: str) -> subprocess.CompletedProcess[str]:
    """`wmap serve` on every interface for one second (only ever read through 127.0.0.1)."""
    exposed = ("--address", "0.0.0.0", "--port", "0", "--serve-timeout", "1")
    return subprocess.run(
        [*WMAP, "serve", "--from-file", str(EXAMPLE), *exposed, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "WMAP_SERVE_TOKEN"},
    )


def test_an_exposed_address_without_a_token_is_refused(tmp_path: Path) -> None:
    refused = _exposed()
    assert refused.returncode == 2, refused.stderr
    lines = refused.stderr.splitlines()
    assert lines[0] == (
        "error: refusing to serve without a token (--address 0.0.0.0): every peer that reaches this address "
        "could read the cluster's workloads"
    ), refused.stderr
    assert lines[1].startswith("hint: give --token-file") and "Serving" not in refused.stderr
    allowed = _exposed("--allow-unauthenticated")
    assert allowed.returncode == 0, allowed.stderr
    warnings = [line for line in allowed.stderr.splitlines() if line.startswith("Warning:")]
    assert warnings == [
        "Warning: serving 0.0.0.0 without a token (--allow-unauthenticated): whoever reaches the port reads the "
        "workloads"
    ], allowed.stderr
    token = tmp_path / "token"
    token.write_text("s3cret\n")
    guarded = _exposed("--token-file", str(token))
    assert guarded.returncode == 0 and "Warning:" not in guarded.stderr, guarded.stderr
