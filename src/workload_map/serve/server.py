"""The HTTP side of ``wmap serve`` on one port: ``/metrics``, ``/healthz``, ``/readyz``, the JSON API
(``/api/v1``, serve/api.py) with its event stream, and the dashboard (``/``, static files shipped in the
package, no CDN).

aiohttp's low-level server on an asyncio loop of its own thread (bench/bench_serve_http.py measured it
against uvicorn and the standard library's threading server): a connection costs no thread, so slow or
idle peers hold none. At most ``max_connections`` are open at once (more are answered 503 and closed at
accept); one that has not sent a whole request within ``idle_timeout`` seconds of connecting, or of its
last answer, is closed (a half-sent request, a forgotten keep-alive). The token is checked as soon as the
headers are read, before any answer is computed. The answers themselves (the exposition, the JSON API)
are computed on a small pool of threads, so a slow scrape never stalls the loop; the event stream is one
coroutine per subscriber, woken by one thread that follows the model's version. The exposition is
prometheus-client's (content negotiation for OpenMetrics included). Nothing served writes to the cluster.
With a token, every path but the probes and the static files needs ``Authorization: Bearer <token>`` (or
``?token=``, which EventSource needs).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import socket
import threading
import urllib.parse
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from typing import TYPE_CHECKING, Any

from aiohttp import web
from prometheus_client import CollectorRegistry, ProcessCollector
from prometheus_client.exposition import choose_encoder

from workload_map.serve import api
from workload_map.serve.fleet import Clusters
from workload_map.serve.metrics import FleetCollector

if TYPE_CHECKING:
    from workload_map.ports.live import LiveReader

MAX_CONNECTIONS = 256  # a scraper, probes and a few dashboard users (each: one event stream, a few fetches)
IDLE_TIMEOUT = 15.0  # seconds a connection may take to send a request, from its start or its last answer
WORKERS = 4  # threads computing answers: more would only queue on the GIL
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/app.css": ("app.css", "text/css; charset=utf-8"),
}
PROBES = ("/healthz", "/readyz")
SSE_KEEPALIVE_SECONDS = 15.0
NOT_FOUND_PAGE = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not found \xc2\xb7 workload-map</title><link rel="stylesheet" href="/static/app.css"></head>
<body><header><a href="/" class="brand">workload-map</a></header>
<main><div class="panel notfound" id="not-found" role="alert"><h1>Not found</h1>
<p>This server has no such page. The dashboard is at <a href="/">/</a>; the JSON API is described at
<a href="/api/v1/openapi.json">/api/v1/openapi.json</a>; metrics are at <a href="/metrics">/metrics</a>.</p>
</div></main></body></html>
"""
BUSY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\nRetry-After: 1\r\n\r\n"


class Service:
    """A LiveModel, or the models of a fleet (:class:`Clusters`), served over HTTP. The constructor binds
    (OSError if the port is taken); ``start()`` serves in a thread until ``stop()``. A lone model is served
    as cluster ``cluster``."""

    def __init__(
        self,
        model: LiveReader | Clusters,
        *,
        address: str = "127.0.0.1",
        port: int = 9400,
        token: str | None = None,
        cluster: str = "",
        max_connections: int = MAX_CONNECTIONS,
        idle_timeout: float = IDLE_TIMEOUT,
    ) -> None:
        self.clusters = model if isinstance(model, Clusters) else Clusters({cluster: model})
        self.token = token
        self.max_connections = max_connections
        self.idle_timeout = idle_timeout
        self.stopping = threading.Event()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(FleetCollector(self.clusters))
        # process_* (CPU seconds, resident memory, open file descriptors, start time) of this exporter
        ProcessCollector(registry=self.registry)
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        self.socket = socket.create_server((address, port), family=family, backlog=128)
        self.socket.setblocking(False)
        self._pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="wmap serve answer")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing: asyncio.Event | None = None
        self._changed: asyncio.Event | None = None  # replaced by a fresh one at every change: waiters keep theirs
        self._version = 0
        self._started = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self.socket.getsockname()[1])

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="wmap serve http", daemon=True)
        self._thread.start()
        self._started.wait()
        threading.Thread(target=self._follow_versions, name="wmap serve events", daemon=True).start()

    def stop(self) -> None:
        self.stopping.set()
        loop, closing = self._loop, self._closing
        if loop is not None and closing is not None and self._thread is not None:
            loop.call_soon_threadsafe(closing.set)
            self._thread.join(timeout=10)
        self.socket.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- the loop's thread
    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._serve())
        finally:
            self._started.set()  # never leave start() waiting on a loop that ended
            loop.close()

    async def _serve(self) -> None:
        loop = asyncio.get_running_loop()
        self._closing, self._changed = asyncio.Event(), asyncio.Event()
        self._version = self.clusters.version
        server = _CappedServer(
            self._handle,
            limit=self.max_connections,
            keepalive_timeout=self.idle_timeout,  # armed at connect too: it is also the header timeout
            access_log=None,  # scrapes every few seconds would flood stderr
        )
        listener = await loop.create_server(server, sock=self.socket)
        self._started.set()
        await self._closing.wait()
        listener.close()
        self._changed.set()  # event streams see _closing and end
        await server.shutdown(timeout=2.0)

    def _follow_versions(self) -> None:
        """One thread for every subscriber: waits for the model's next batch and wakes the event streams."""
        version = self.clusters.version
        while not self.stopping.is_set():
            if self.clusters.wait_for_version(version, 1.0):
                version = self.clusters.version
                loop = self._loop
                if loop is None or loop.is_closed():
                    return
                try:
                    loop.call_soon_threadsafe(self._publish, version)
                except RuntimeError:  # the loop closed meanwhile: serving ended
                    return

    def _publish(self, version: int) -> None:
        self._version = version
        changed, self._changed = self._changed, asyncio.Event()
        if changed is not None:
            changed.set()

    async def _handle(self, request: web.BaseRequest) -> web.StreamResponse:
        url = urllib.parse.urlsplit(request.raw_path)
        path, query = url.path, dict(urllib.parse.parse_qsl(url.query))
        # The probes and the dashboard's static files carry no cluster data; everything else needs the token,
        # checked before anything is computed.
        if path not in PROBES and path not in STATIC and not self._authorized(request, query):
            return _json(401, {"error": "unauthorized: send Authorization: Bearer <token>"})
        if request.method != "GET":
            return web.Response(status=405, text="only GET is served\n", headers={"Allow": "GET"})
        if path == "/metrics":
            body, content_type = await self._answer(self._exposition, request.headers.get("Accept", ""))
            return _response(200, body, content_type)
        if path == "/healthz":
            return _response(200, b"ok\n", "text/plain; charset=utf-8")
        if path == "/readyz":
            ready, reason = self.clusters.readiness()
            return _response(200 if ready else 503, f"{reason}\n".encode(), "text/plain; charset=utf-8")
        if path in STATIC:
            name, content_type = STATIC[path]
            return _response(200, _static(name), content_type)
        if path == "/api/v1/events":
            return await self._events(request)
        if path.startswith("/api/v1/"):
            code, document = await self._answer(self._api, path.removeprefix("/api/v1/"), query)
            return _json(code, document)
        if "text/html" in request.headers.get("Accept", ""):  # a browser: a page that leads back
            return _response(404, NOT_FOUND_PAGE, "text/html; charset=utf-8")
        return _response(404, b"not found: try /, /metrics, /api/v1/openapi.json\n", "text/plain; charset=utf-8")

    def _authorized(self, request: web.BaseRequest, query: dict[str, str]) -> bool:
        if self.token is None:
            return True
        header = request.headers.get("Authorization", "")
        given = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else query.get("token", "")
        return hmac.compare_digest(given.encode(), self.token.encode())

    async def _answer(self, compute: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._pool, compute, *args)

    def _exposition(self, accept: str) -> tuple[bytes, str]:
        encoder, content_type = choose_encoder(accept)
        return encoder(self.registry), content_type

    def _api(self, rest: str, query: dict[str, str]) -> tuple[int, Any]:
        clusters = self.clusters
        parts = [urllib.parse.unquote(p) for p in rest.split("/") if p]
        cluster = query.get("cluster") or None
        if parts == ["workloads"]:
            try:
                return 200, clusters.workloads(
                    cluster,
                    namespace=query.get("namespace") or None,
                    type_name=query.get("type") or None,
                    status=query.get("status") or None,
                    selector=query.get("selector") or None,
                )
            except ValueError as exc:
                return 400, {"error": str(exc)}
        if len(parts) == 4 and parts[0] == "workloads":
            found = clusters.workload(parts[1], parts[2], parts[3], cluster)
            return (200, found) if found is not None else (404, {"error": f"no workload {'/'.join(parts[1:])}"})
        if parts == ["status"]:
            return 200, clusters.status()
        if parts == ["fleet"]:
            return 200, clusters.summary()
        if parts == ["queues"]:
            return 200, clusters.queue_reports(cluster)
        if parts == ["definitions"] and clusters.models:
            served = clusters.models.get(cluster or "") or next(iter(clusters.models.values()))
            return 200, api.definitions(served)
        if parts == ["openapi.json"]:
            return 200, api.OPENAPI
        return 404, {"error": f"no API path /api/v1/{rest}"}

    async def _events(self, request: web.BaseRequest) -> web.StreamResponse:
        """Server-Sent Events: ``change`` after every applied batch, comments as keep-alives."""
        assert self._closing is not None
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        version = self._version
        try:
            await response.write(_change(version))
            while not self._closing.is_set():
                changed = self._changed
                assert changed is not None
                try:
                    async with asyncio.timeout(SSE_KEEPALIVE_SECONDS):  # no task per wait, as wait_for makes
                        await changed.wait()
                except TimeoutError:
                    await response.write(b": keep-alive\n\n")
                    continue
                if self._version > version:
                    version = self._version
                    await response.write(_change(version))
        except ConnectionError:
            pass  # the browser went away
        return response


class _CappedServer(web.Server):
    """aiohttp's low-level server with a cap on open connections: one past it is answered 503 and closed
    before anything of it is read."""

    def __init__(self, handler: Any, *, limit: int, **kwargs: Any) -> None:
        super().__init__(handler, **kwargs)
        self.limit = limit

    def connection_made(self, handler: Any, transport: asyncio.Transport) -> None:
        if len(self.connections) >= self.limit:
            transport.write(BUSY)
            transport.close()
            return
        super().connection_made(handler, transport)


def _change(version: int) -> bytes:
    return f"event: change\ndata: {json.dumps({'version': version})}\n\n".encode()


def _static(name: str) -> bytes:
    return (resources.files("workload_map.serve") / "static" / name).read_bytes()


def _json(code: int, document: Any) -> web.Response:
    return _response(code, json.dumps(document, separators=(",", ":")).encode(), "application/json")


def _response(code: int, body: bytes, content_type: str) -> web.Response:
    # aiohttp adds "; charset=..." itself only when given charset separately: pass the header verbatim
    return web.Response(
        status=code, body=body, headers={"Content-Type": content_type, "X-Content-Type-Options": "nosniff"}
    )
