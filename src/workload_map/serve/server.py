"""The HTTP side of ``wmap serve``: ``/metrics``, ``/healthz`` and ``/readyz`` on one port.

The standard library's threading HTTP server is enough for a scrape every few seconds and probes; the
exposition itself is prometheus-client's (content negotiation for OpenMetrics included).
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

from workload_map.serve.metrics import ModelCollector

if TYPE_CHECKING:
    from workload_map.live.model import LiveModel


class Service:
    """A LiveModel served over HTTP. ``start()`` binds (an error if the port is taken) and serves in a thread."""

    def __init__(self, model: LiveModel, *, address: str = "127.0.0.1", port: int = 9400) -> None:
        self.model = model
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(ModelCollector(model))
        self.server = ThreadingHTTPServer((address, port), _handler(self))
        self.server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def start(self) -> None:
        self._thread = threading.Thread(target=self.server.serve_forever, name="wmap serve http", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _handler(service: Service) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/metrics":
                encoder, content_type = choose_encoder(self.headers.get("Accept", ""))
                self._send(200, encoder(service.registry), content_type)
            elif path == "/healthz":
                self._send(200, b"ok\n", "text/plain; charset=utf-8")
            elif path == "/readyz":
                ready = service.model.ready
                self._send(200 if ready else 503, b"ready\n" if ready else b"syncing\n", "text/plain; charset=utf-8")
            else:
                self._send(404, b"not found: try /metrics, /healthz or /readyz\n", "text/plain; charset=utf-8")

        def _send(self, code: int, body: bytes, content_type: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return  # scrapes every few seconds would flood stderr

    return Handler
