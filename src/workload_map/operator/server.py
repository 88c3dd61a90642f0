"""HTTP servers: the TLS admission webhook server and the plain health server (``/healthz``, ``/readyz``).

Both are ``ThreadingHTTPServer``s on their own threads. The webhook server's certificate can be replaced
while it runs (rotation): new TLS handshakes use the new chain.
"""

from __future__ import annotations

import json
import logging
import os
import ssl
import sys
import tempfile
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

log = logging.getLogger("workload_map.operator.server")

Handler = Callable[[dict[str, Any]], dict[str, Any]]
# An AdmissionReview of the largest object etcd stores (1.5 MiB by default) is far below this.
MAX_BODY = 8 * 1024 * 1024
# Seconds a connection may stay silent (TLS handshake, headers, body): a peer trickling bytes loses its
# thread after this long. The API server sends a whole review at once and waits at most its webhook
# timeoutSeconds (10 s in the chart) for the answer.
IO_TIMEOUT = 10.0
# Connections served at once; more are closed at accept, so a flood of peers cannot exhaust threads.
MAX_CONNECTIONS = 64


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            log.warning("too many connections: closing one", extra={"peer": str(client_address[0])})
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A failed TLS handshake or a reset peer: one JSON log line, not a traceback on stderr.

        exc = sys.exc_info()[1]
        log.info("connection failed", extra={"peer": str(client_address[0]), "error": repr(exc)})

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


def _handler_class(routes: dict[str, Handler] | None, probes: dict[str, Callable[[], tuple[bool, str]]] | None) -> type:
    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        timeout = IO_TIMEOUT  # socket timeout of every read and write of the connection

        def log_message(self, format: str, *args: Any) -> None:
            log.debug("http", extra={"request": format % args})

        def _send(self, code: int, body: bytes, ctype: str = "application/json") -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            probe = (probes or {}).get(path)
            if probe is None:
                self._send(404, b"not found\n", "text/plain")
                return
            ok, detail = probe()
            self._send(200 if ok else 503, (detail or ("ok" if ok else "not ready")).encode() + b"\n", "text/plain")

        def do_POST(self) -> None:
            path = self.path.split("?", 1)[0]
            route = (routes or {}).get(path)
            if route is None:
                self._send(404, b'{"error":"no such webhook"}')
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = 0
            if length > MAX_BODY:
                # Refused unread; the connection is closed so the unread body is never parsed as a request.
                self.close_connection = True
                self._send(413, b'{"error":"request body too large"}')
                return
            if length <= 0:
                self.close_connection = True
                self._send(400, b'{"error":"bad request body"}')
                return
            try:
                request = json.loads(self.rfile.read(length))
                result = route(request)
            except Exception as exc:
                log.exception("webhook failed", extra={"path": path})
                self._send(500, json.dumps({"error": str(exc)}).encode())
                return
            self._send(200, json.dumps(result).encode())

    return H


class _Serving:
    """Binds in the constructor (a busy port fails there, before anything else starts), serves after start()."""

    httpd: _Server
    thread_name: str

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None

    @property
    def serving(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name=self.thread_name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._thread is not None:  # shutdown() waits for serve_forever, which never ran otherwise
            self.httpd.shutdown()
        self.httpd.server_close()


class HealthServer(_Serving):
    thread_name = "health"

    def __init__(self, host: str, port: int, probes: dict[str, Callable[[], tuple[bool, str]]]) -> None:
        super().__init__()
        self.httpd = _Server((host, port), _handler_class(None, probes))
        self.port = self.httpd.server_address[1]


class WebhookServer(_Serving):
    thread_name = "webhooks"

    def __init__(self, host: str, port: int, routes: dict[str, Handler]) -> None:
        super().__init__()
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.minimum_version = ssl.TLSVersion.TLSv1_2
        self.httpd = _Server((host, port), _handler_class(routes, None), bind_and_activate=True)
        self.port = self.httpd.server_address[1]
        self.loaded = False
        self._orig_get_request = self.httpd.get_request
        self.httpd.get_request = self._get_request  # type: ignore[method-assign]

    def _get_request(self) -> tuple[Any, Any]:
        sock, addr = self._orig_get_request()
        # The handshake happens in the handler thread (do_handshake_on_connect), not in the accept loop.
        return self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def load(self, cert_pem: bytes, key_pem: bytes) -> None:
        """(Re)load the serving certificate; connections opened afterwards use it."""
        fd, path = tempfile.mkstemp(prefix="wmap-tls-", suffix=".pem")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(cert_pem + b"\n" + key_pem)
            self.context.load_cert_chain(path)
        finally:
            os.unlink(path)
        self.loaded = True

    def load_files(self, cert_file: str, key_file: str) -> None:
        self.context.load_cert_chain(cert_file, key_file)
        self.loaded = True
