"""The HTTP side of ``wmap serve`` on one port: ``/metrics``, ``/healthz``, ``/readyz``, the JSON API
(``/api/v1``, serve/api.py) with its event stream, and the dashboard (``/``, static files shipped in the
package, no CDN).

The standard library's threading HTTP server is enough for scrapes, probes and a few dashboard users; the
exposition itself is prometheus-client's (content negotiation for OpenMetrics included). Nothing served
writes to the cluster. With a token, every path but the probes and the static files needs
``Authorization: Bearer <token>`` (or ``?token=``, which EventSource needs).
"""

from __future__ import annotations

import hmac
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

from workload_map.serve import api
from workload_map.serve.fleet import Clusters
from workload_map.serve.metrics import FleetCollector

if TYPE_CHECKING:
    from workload_map.live.model import LiveModel


class Service:
    """A LiveModel, or the models of a fleet (:class:`Clusters`), served over HTTP. ``start()`` binds (an
    error if the port is taken) and serves in a thread. A lone model is served as cluster ``cluster``."""

    def __init__(
        self,
        model: LiveModel | Clusters,
        *,
        address: str = "127.0.0.1",
        port: int = 9400,
        token: str | None = None,
        cluster: str = "",
    ) -> None:
        self.clusters = model if isinstance(model, Clusters) else Clusters({cluster: model})
        self.token = token
        self.stopping = threading.Event()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(FleetCollector(self.clusters))
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
        self.stopping.set()
        if self._thread is not None:  # shutdown() waits for serve_forever, which a service never started lacks
            self.server.shutdown()
        self.server.server_close()


STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/app.css": ("app.css", "text/css; charset=utf-8"),
}
PROBES = ("/healthz", "/readyz")
SSE_KEEPALIVE_SECONDS = 15.0


def _static(name: str) -> bytes:
    return (resources.files("workload_map.serve") / "static" / name).read_bytes()


def _handler(service: Service) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urllib.parse.urlsplit(self.path)
            path, query = url.path, dict(urllib.parse.parse_qsl(url.query))
            # The probes and the dashboard's static files carry no cluster data; everything else needs the token.
            if path not in PROBES and path not in STATIC and not self._authorized(query):
                self._json(401, {"error": "unauthorized: send Authorization: Bearer <token>"})
                return
            if path == "/metrics":
                encoder, content_type = choose_encoder(self.headers.get("Accept", ""))
                self._send(200, encoder(service.registry), content_type)
            elif path == "/healthz":
                self._send(200, b"ok\n", "text/plain; charset=utf-8")
            elif path == "/readyz":
                ready, reason = service.clusters.readiness()
                self._send(200 if ready else 503, f"{reason}\n".encode(), "text/plain; charset=utf-8")
            elif path in STATIC:
                name, content_type = STATIC[path]
                self._send(200, _static(name), content_type)
            elif path.startswith("/api/v1/"):
                self._api(path.removeprefix("/api/v1/"), query)
            else:
                self._send(404, b"not found: try /, /metrics, /api/v1/openapi.json\n", "text/plain; charset=utf-8")

        def _authorized(self, query: dict[str, str]) -> bool:
            if service.token is None:
                return True
            header = self.headers.get("Authorization", "")
            given = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else query.get("token", "")
            return hmac.compare_digest(given.encode(), service.token.encode())

        def _api(self, rest: str, query: dict[str, str]) -> None:
            clusters = service.clusters
            parts = [urllib.parse.unquote(p) for p in rest.split("/") if p]
            cluster = query.get("cluster") or None
            if parts == ["workloads"]:
                try:
                    answer = clusters.workloads(
                        cluster,
                        namespace=query.get("namespace") or None,
                        type_name=query.get("type") or None,
                        status=query.get("status") or None,
                        selector=query.get("selector") or None,
                    )
                except ValueError as exc:
                    self._json(400, {"error": str(exc)})
                    return
                self._json(200, answer)
            elif len(parts) == 4 and parts[0] == "workloads":
                found = clusters.workload(parts[1], parts[2], parts[3], cluster)
                if found is None:
                    self._json(404, {"error": f"no workload {'/'.join(parts[1:])}"})
                else:
                    self._json(200, found)
            elif parts == ["status"]:
                self._json(200, clusters.status())
            elif parts == ["fleet"]:
                self._json(200, clusters.summary())
            elif parts == ["definitions"] and clusters.models:
                served = clusters.models.get(cluster or "") or next(iter(clusters.models.values()))
                self._json(200, api.definitions(served))
            elif parts == ["openapi.json"]:
                self._json(200, api.OPENAPI)
            elif parts == ["events"]:
                self._events()
            else:
                self._json(404, {"error": f"no API path /api/v1/{rest}"})

        def _events(self) -> None:
            """Server-Sent Events: ``change`` after every applied batch, comments as keep-alives."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            version = service.clusters.version
            try:
                self.wfile.write(f"event: change\ndata: {json.dumps({'version': version})}\n\n".encode())
                self.wfile.flush()
                while not service.stopping.is_set():
                    if service.clusters.wait_for_version(version, SSE_KEEPALIVE_SECONDS):
                        version = service.clusters.version
                        self.wfile.write(f"event: change\ndata: {json.dumps({'version': version})}\n\n".encode())
                    else:
                        self.wfile.write(b": keep-alive\n\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return  # the browser went away

        def _json(self, code: int, document: Any) -> None:
            self._send(code, json.dumps(document, separators=(",", ":")).encode(), "application/json")

        def _send(self, code: int, body: bytes, content_type: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return  # scrapes every few seconds would flood stderr

    return Handler
