"""`wmap serve`'s HTTP server: /metrics scrape latency and event-stream fan-out, the candidates in one run.

The same model (a generated cluster read from a dump: ``LiveModel.from_snapshot``, what ``serve --from-file``
serves) behind each server, in a child process of its own (its threads and RSS are its own):
- ``threading``: the standard library's ThreadingHTTPServer, the server of ``wmap serve`` up to
  ``--baseline-ref`` (its serve/server.py read from git, imported as it was);
- ``aiohttp``: serve/server.py now;
- ``uvicorn``: the same answers as an ASGI app under uvicorn (h11), built here with the same shape as
  serve/server.py (answers computed on 4 threads, one thread following the model's version for all
  subscribers), with uvicorn's own limits (limit_concurrency, timeout_keep_alive).
Figures per server: sequential scrapes of /metrics (p50/p99), 4 concurrent scrapers, the same while 100
half-sent requests hang, and fan-out: S subscribers of /api/v1/events, the model's version bumped, the time
until each subscriber has the `change` event (p50/p99/max over subscribers and rounds), with the server's
threads and RSS while they listen. Every client is on loopback.

    python bench/bench_serve_http.py                          # 1,000 workloads, 100 and 1000 subscribers
    python bench/bench_serve_http.py --workloads 100 --subscribers 50 --scrapes 10
Child mode (internal): `child KIND WORKLOADS BASELINE_REF`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import REPO_ROOT, Figure, dump_path

SERVERS = ("threading", "aiohttp", "uvicorn")
BASELINE_REF = "d34252e"  # the last commit whose wmap serve ran on ThreadingHTTPServer
HALF_SENT = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _proc_status(pid: int) -> dict[str, float]:
    out = {"threads": 0.0, "rss_mb": 0.0}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            out["threads"] = float(line.split()[1])
        elif line.startswith("VmRSS:"):
            out["rss_mb"] = int(line.split()[1]) / 1024
    return out


# ----------------------------------------------------------------------------------------------- the server child
def _model(workloads: int) -> Any:
    import workload_map as wm

    return wm.open_dump(str(dump_path(workloads)), namespace=None).to_model()


def _bump(model: Any) -> None:
    with model._changed:
        model.version += 1
        model._changed.notify_all()


def _threading_service(model: Any, ref: str) -> tuple[Any, int]:
    import importlib.util
    import tempfile

    source = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "show", f"{ref}:src/workload_map/serve/server.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "threading_server.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("threading_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    service = module.Service(model, port=0)
    service.start()
    return service, int(service.port)


def _aiohttp_service(model: Any) -> tuple[Any, int]:
    from workload_map.serve.server import Service

    service = Service(model, port=0, max_connections=2048)  # the fan-out runs open 1,000 streams
    service.start()
    return service, service.port


def _uvicorn_service(model: Any) -> tuple[Any, int]:
    import uvicorn
    from prometheus_client import CollectorRegistry
    from prometheus_client.exposition import choose_encoder

    from workload_map.serve.fleet import Clusters
    from workload_map.serve.metrics import FleetCollector

    clusters = Clusters({"": model})
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FleetCollector(clusters))
    pool = ThreadPoolExecutor(max_workers=4)
    state: dict[str, Any] = {"loop": None, "changed": None, "version": clusters.version}

    def publish(version: int) -> None:
        state["version"] = version
        changed, state["changed"] = state["changed"], asyncio.Event()
        changed.set()

    def follow() -> None:
        version = clusters.version
        while True:
            if clusters.wait_for_version(version, 1.0):
                version = clusters.version
                state["loop"].call_soon_threadsafe(publish, version)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        if state["loop"] is None:
            state["loop"], state["changed"] = asyncio.get_running_loop(), asyncio.Event()
            threading.Thread(target=follow, daemon=True).start()
        if scope["path"] == "/api/v1/events":
            headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            version = state["version"]
            await send({"type": "http.response.body", "body": _change(version), "more_body": True})
            while True:
                changed = state["changed"]
                try:
                    await asyncio.wait_for(changed.wait(), 15.0)
                except TimeoutError:
                    await send({"type": "http.response.body", "body": b": keep-alive\n\n", "more_body": True})
                    continue
                if state["version"] > version:
                    version = state["version"]
                    await send({"type": "http.response.body", "body": _change(version), "more_body": True})
        accept = dict(scope["headers"]).get(b"accept", b"").decode()

        def exposition() -> tuple[bytes, str]:
            encoder, content_type = choose_encoder(accept)
            return encoder(registry), content_type

        body, content_type = await asyncio.get_running_loop().run_in_executor(pool, exposition)
        headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    sock = socket.create_server(("127.0.0.1", 0))
    config = uvicorn.Config(
        app, http="h11", lifespan="off", log_level="warning", limit_concurrency=2048, timeout_keep_alive=15
    )
    server = uvicorn.Server(config)
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, int(sock.getsockname()[1])


def _change(version: int) -> bytes:
    return f"event: change\ndata: {json.dumps({'version': version})}\n\n".encode()


def child(kind: str, workloads: int, ref: str) -> None:
    model = _model(workloads)
    if kind == "threading":
        _service, port = _threading_service(model, ref)
    elif kind == "aiohttp":
        _service, port = _aiohttp_service(model)
    else:
        _service, port = _uvicorn_service(model)
    print(json.dumps({"port": port, "workloads": len(model.workloads())}), flush=True)
    for line in sys.stdin:  # the parent's commands: bump (answers the monotonic time of the bump), quit
        if line.strip() == "bump":
            at = time.monotonic()
            _bump(model)
            print(json.dumps({"bumped": at}), flush=True)
        elif line.strip() == "quit":
            break
    os._exit(0)  # the servers' threads are daemons; nothing to flush


# ----------------------------------------------------------------------------------------------- the clients
def _scrape(port: int) -> float:
    began = time.perf_counter()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=60) as answer:
        answer.read()
    return time.perf_counter() - began


def _scrapes(port: int, count: int, concurrency: int) -> list[float]:
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(pool.map(lambda _: _scrape(port), range(count)))


async def _subscribe(port: int, received: list[float], settled: asyncio.Future[bool]) -> None:
    """One event stream: the monotonic time of every `change` after the first (which comes at once).
    ``settled`` is True once the first event came, False when the connection failed first."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
    except OSError:
        settled.set_result(False)
        return
    try:
        writer.write(b"GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        await writer.drain()
        while True:
            line = await reader.readline()
            if not line:
                break
            if line.startswith(b"event: change"):
                if settled.done():
                    received.append(time.monotonic())
                else:
                    settled.set_result(True)
    except OSError:
        pass
    finally:
        if not settled.done():
            settled.set_result(False)
        writer.close()


def _fan_out(proc: subprocess.Popen[str], port: int, subscribers: int, rounds: int) -> dict[str, Any]:
    """``subscribers`` event streams; ``rounds`` bumps one second apart; seconds from bump to each delivery."""
    result: dict[str, Any] = {}

    async def run() -> None:
        loop = asyncio.get_running_loop()
        received: list[list[float]] = [[] for _ in range(subscribers)]
        settled = [loop.create_future() for _ in range(subscribers)]
        began = time.monotonic()
        tasks = []
        for mine, done in zip(received, settled, strict=True):
            tasks.append(asyncio.create_task(_subscribe(port, mine, done)))
            await asyncio.sleep(0)  # not all in one accept burst
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*settled), 120)
        connected = sum(1 for f in settled if f.done() and f.result())
        result["subscribed"] = connected
        result["subscribe_seconds"] = time.monotonic() - began
        result["server"] = _proc_status(proc.pid)
        bumps = []
        for _ in range(rounds):
            await asyncio.sleep(1.0)
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write("bump\n")
            proc.stdin.flush()
            bumps.append(json.loads(await asyncio.to_thread(proc.stdout.readline))["bumped"])
        await asyncio.sleep(3.0)
        delays = []
        for times in received:
            delays += [t - b for t, b in zip(times, bumps, strict=False)]
        result.update(
            delivered=len(delays),
            missing=subscribers * rounds - len(delays),
            p50=_pct(delays, 0.5) if delays else None,
            p99=_pct(delays, 0.99) if delays else None,
            max=max(delays) if delays else None,
        )
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(run())
    return result


def measure(kind: str, workloads: int, ref: str, subscribers: list[int], scrapes: int) -> dict[str, Any]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "child", kind, str(workloads), ref],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        started = json.loads(proc.stdout.readline())
        port = started["port"]
        out: dict[str, Any] = {"kind": kind, "workloads": started["workloads"]}
        _scrapes(port, 3, 1)  # warm: the first scrape plans every gang
        seq = _scrapes(port, scrapes, 1)
        par = _scrapes(port, scrapes, 4)
        out["scrape"] = {"p50": _pct(seq, 0.5), "p99": _pct(seq, 0.99), "bytes": len(_body(port))}
        out["scrape_4"] = {"p50": _pct(par, 0.5), "p99": _pct(par, 0.99)}
        stalled = [socket.create_connection(("127.0.0.1", port)) for _ in range(100)]
        for sock in stalled:
            sock.sendall(HALF_SENT)
        time.sleep(0.5)
        held = _scrapes(port, scrapes, 1)
        out["scrape_half_sent_100"] = {"p50": _pct(held, 0.5), "p99": _pct(held, 0.99), **_proc_status(proc.pid)}
        out["half_sent_closed_by_server_within_20s"] = _closed_within(stalled, 20.0)
        for sock in stalled:
            sock.close()
        out["idle"] = _proc_status(proc.pid)
        out["fan_out"] = {str(n): _fan_out(proc, port, n, rounds=5) for n in subscribers}
        print(f"  {kind}: {json.dumps(out)}", file=sys.stderr, flush=True)
        return out
    finally:
        if proc.stdin is not None:
            try:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
            except BrokenPipeError:
                pass
        proc.wait(timeout=30)


def _closed_within(socks: list[socket.socket], seconds: float) -> int:
    """How many of ``socks`` the server closed within ``seconds`` (a header timeout at work)."""
    import selectors

    deadline = time.monotonic() + seconds
    selector = selectors.DefaultSelector()
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    closed = 0
    while closed < len(socks) and (left := deadline - time.monotonic()) > 0:
        for key, _ in selector.select(left):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                data = sock.recv(65536)
            except ConnectionError:
                data = b""
            if not data:
                selector.unregister(sock)
                closed += 1
    selector.close()
    return closed


def _body(port: int) -> bytes:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=60) as answer:
        return bytes(answer.read())


def figures(results: list[dict[str, Any]]) -> list[Figure]:
    base = next((r for r in results if r["kind"] == "threading"), None)
    if base is None:  # --servers without the baseline: the raw results only
        return []
    out = []
    for r in results:
        if r["kind"] == "threading":
            continue
        b = base
        out.append(
            Figure(
                "serve-http",
                f"/metrics scrape p50, {r['kind']} ({r['workloads']} workloads, {r['scrape']['bytes'] // 1024} KiB)",
                r["scrape"]["p50"],
                "s",
                baseline=b["scrape"]["p50"],
                baseline_name="ThreadingHTTPServer, same run",
                note=f"p99 {r['scrape']['p99']:.3f} s (threading {b['scrape']['p99']:.3f}); 4 scrapers p50 "
                f"{r['scrape_4']['p50']:.3f} s (threading {b['scrape_4']['p50']:.3f}); with 100 half-sent requests "
                f"p50 {r['scrape_half_sent_100']['p50']:.3f} s, {r['scrape_half_sent_100']['threads']:.0f} threads "
                f"(threading {b['scrape_half_sent_100']['p50']:.3f} s, {b['scrape_half_sent_100']['threads']:.0f}); "
                f"of them closed by the server within 20 s: {r['half_sent_closed_by_server_within_20s']} "
                f"(threading {b['half_sent_closed_by_server_within_20s']})",
            )
        )
        for n, fan in r["fan_out"].items():
            bf = b["fan_out"][n]
            out.append(
                Figure(
                    "serve-http",
                    f"event stream fan-out to {n} subscribers p99, {r['kind']}",
                    fan["p99"],
                    "s",
                    baseline=bf["p99"],
                    baseline_name="ThreadingHTTPServer, same run",
                    note=f"p50 {fan['p50']:.4f} max {fan['max']:.4f} s, missing {fan['missing']}, subscribed "
                    f"{fan['subscribed']} in {fan['subscribe_seconds']:.1f} s; server "
                    f"{fan['server']['threads']:.0f} threads {fan['server']['rss_mb']:.0f} MB (threading: p50 "
                    f"{bf['p50'] or 0:.4f} max {bf['max'] or 0:.4f} s, missing {bf['missing']}, subscribed "
                    f"{bf['subscribed']} in "
                    f"{bf['subscribe_seconds']:.1f} s, {bf['server']['threads']:.0f} threads "
                    f"{bf['server']['rss_mb']:.0f} MB)",
                )
            )
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["child"]:
        child(argv[1], int(argv[2]), argv[3])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", type=int, default=1000)
    ap.add_argument("--subscribers", default="100,1000", help="event-stream subscribers, one run each")
    ap.add_argument("--scrapes", type=int, default=30, help="scrapes per figure")
    ap.add_argument(
        "--servers", default=",".join(SERVERS), help="uvicorn is measured only when installed (pip install uvicorn)"
    )
    ap.add_argument("--baseline-ref", default=BASELINE_REF, help="the commit whose ThreadingHTTPServer is measured")
    args = ap.parse_args(argv)
    from run import table

    dump_path(args.workloads)  # generated once, before any server child reads it
    subscribers = [int(n) for n in args.subscribers.split(",")]
    servers = [s for s in args.servers.split(",") if s != "uvicorn" or importlib.util.find_spec("uvicorn")]
    results = [measure(kind, args.workloads, args.baseline_ref, subscribers, args.scrapes) for kind in servers]
    found = figures(results)
    print(table(found))
    out = Path(__file__).resolve().parent / "results" / time.strftime("serve-http-%Y%m%dT%H%M%SZ.json", time.gmtime())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"figures": [f.to_json() for f in found], "results": results}, indent=1))
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
