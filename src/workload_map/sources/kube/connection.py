"""One authenticated connection to a kube-apiserver, used through the client's raw path.

The official ``kubernetes`` client does the part that is hard to get right (kubeconfig merging,
client certificates, exec credential plugins, OIDC refresh, ``proxy-url``, in-cluster config); every
request then goes through its urllib3 pool as bytes decoded with orjson. The typed models are never
built: they are an order of magnitude slower on large pod lists.

The client is imported inside :func:`connect` only, so importing this module stays cheap.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import logging
import math
import os
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

import orjson

from workload_map.errors import WorkloadMapError
from workload_map.sources.kube.retry import (
    DEFAULT_REQUEST_TIMEOUT,
    CancelToken,
    Deadline,
    RetryPolicy,
    retry_after_seconds,
)

DEFAULT_CHUNK_SIZE = 500
IN_CLUSTER_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
JSON = "application/json"
MERGE_PATCH = "application/merge-patch+json"
# ClusterError.reason when neither a kubeconfig nor an in-cluster configuration exists: a surface that can
# read a dump instead says so in its hint (wmap's --from-file).
NO_CONFIGURATION = "NoConfiguration"


class ClusterError(WorkloadMapError):
    """A request failed; ``message`` is the whole user-facing line (``<what> (<where>): <why>``)."""

    def __init__(self, message: str, *, status: int = 0, reason: str = "", hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status
        self.reason = reason


class GoneError(ClusterError):
    """410 Gone: a continue token or watch resourceVersion is too old."""


class CancelledError(ClusterError):
    """The command was cancelled (another of its requests failed fatally): not itself an answer."""


# ClusterError.reason of a connection refused or dropped: the server may be restarting
RESTARTING = "ConnectionLost"
RESTART_GRACE = 30.0  # seconds a read waits for a server that answered before (--timeout replaces it)


class DeadlineError(ClusterError):
    """The command's overall deadline (``--timeout``) passed."""


@dataclass
class ConnectionOptions:
    """kubectl's connection flags, with the same names and meanings."""

    kubeconfig: str | None = None
    context: str | None = None
    cluster: str | None = None
    user: str | None = None
    namespace: str | None = None  # -n; None = the context's namespace (or "default")
    request_timeout: str | float | None = None  # None = DEFAULT_REQUEST_TIMEOUT; "0" = no timeout; "5s", 30
    chunk_size: int = DEFAULT_CHUNK_SIZE
    timeout: str | float | None = None  # the whole command (--timeout); None or "0" = no overall deadline


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)?")


def parse_timeout(value: str | float | None, flag: str = "--request-timeout") -> float | None:
    """kubectl's ``--request-timeout``: a bare number is seconds, units h/m/s/ms; 0 means none."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        return float(value) or None
    text = value.strip()
    total = 0.0
    pos = 0
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, None: 1.0}
    while pos < len(text):
        m = _DURATION.match(text, pos)
        if not m or m.end() == pos:
            raise WorkloadMapError(
                f"invalid {flag} {value!r}",
                hint='use a number of seconds or a duration such as "5s", "1m", "250ms" (0 = no timeout)',
            )
        if m.group(2) is None and len(text) != m.end():
            raise WorkloadMapError(f"invalid {flag} {value!r}")
        total += float(m.group(1)) * units[m.group(2)]
        pos = m.end()
    return total or None


class RequestCounter:
    """Requests by (verb, path without query): what a test asserts API economy with.

    Counts are aggregated per (verb, path); ``log`` keeps only the ``recent`` last requests, so a
    long-running process does not grow with every request it makes.
    """

    def __init__(self, recent: int = 1000) -> None:
        self._lock = threading.Lock()
        self.counts: Counter[tuple[str, str]] = Counter()
        self.log: deque[tuple[str, str, str]] = deque(maxlen=recent)  # verb, path, query
        self.retries = 0  # requests sent again after a 429/5xx (counted in ``counts`` too)

    def add(self, verb: str, path: str, query: str) -> None:
        with self._lock:
            self.counts[(verb, path)] += 1
            self.log.append((verb, path, query))

    def add_retry(self) -> None:
        with self._lock:
            self.retries += 1

    def total(self, verb: str | None = None) -> int:
        return sum(n for (v, _), n in self.counts.items() if verb is None or v == verb)

    def paths(self, verb: str = "LIST") -> list[str]:
        return sorted(p for (v, p) in self.counts if v == verb)

    def reset(self) -> None:
        with self._lock:
            self.counts.clear()
            self.log.clear()
            self.retries = 0


def _verb(method: str, path: str, query: Mapping[str, Any] | None) -> str:
    if method != "GET":
        return method
    if query and str(query.get("watch", "")).lower() in ("1", "true"):
        return "WATCH"
    # /api/v1/pods, /apis/g/v/namespaces/ns/kind: collection paths have an even number of segments
    # after the group/version prefix (kind or namespaces/ns/kind).
    parts = [p for p in path.split("/") if p]
    if parts[:1] == ["api"]:
        rest = parts[2:]
    elif parts[:1] == ["apis"]:
        rest = parts[3:]
    else:
        return "GET"
    if not rest:
        return "GET"  # discovery
    if rest[0] == "namespaces" and len(rest) >= 3:
        rest = rest[2:]
    return "LIST" if len(rest) == 1 else "GET"


@dataclass
class Connection:
    """An authenticated client: ``request`` returns decoded JSON, errors become ClusterError."""

    api_client: Any
    server: str
    namespace: str  # the default namespace: -n, else the context's, else "default"
    namespace_explicit: bool = False  # -n was given
    timeout: float | None = None
    chunk_size: int = DEFAULT_CHUNK_SIZE
    context: str | None = None
    user: str | None = None
    counter: RequestCounter = field(default_factory=RequestCounter)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    deadline: Deadline = field(default_factory=Deadline)
    cancel: CancelToken = field(default_factory=CancelToken)
    # Seconds a read waits for a server that answered before and now refuses or drops connections (it is
    # restarting); --timeout replaces it. 0 for long-running users, whose own loops back off and report.
    restart_grace: float = RESTART_GRACE
    _answered: bool = field(default=False, repr=False)  # a request of this connection got an answer
    # Loads the kubeconfig user's credentials again (an exec plugin runs again, a tokenFile is read again):
    # on 401, as client-go does, since a credential can be revoked or expire before it says it does.
    reauthenticate: Callable[[], None] | None = field(default=None, repr=False)
    _auth_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- raw requests
    def _headers(self, method: str, path: str, accept: str, content_type: str | None) -> dict[str, str]:
        api = self.api_client
        headers: dict[str, str] = {"Accept": accept, "User-Agent": "wmap (workload-map)"}
        if content_type:
            headers["Content-Type"] = content_type
        # Applies the bearer token; an exec plugin / OIDC token is refreshed here when expired.
        api.update_params_for_auth(headers, [], ["BearerToken"], path, method, None)
        return headers

    def open(
        self,
        method: str,
        path: str,
        query: Mapping[str, Any] | None = None,
        *,
        body: Any = None,
        accept: str = JSON,
        content_type: str | None = None,
        timeout: float | bool | None = True,
        what: str | None = None,
    ) -> Any:
        """Send one request and return the open urllib3 response (status already checked).

        429 (and 5xx with Retry-After, for reads) is sent again after the policy's delay, while the
        command's deadline allows; the default timeout is bounded by that deadline too. A cancelled
        command raises CancelledError before sending anything more.
        """
        clean = {k: v for k, v in (query or {}).items() if v is not None and v != ""}
        attempt = 0
        refreshed = False
        while True:
            attempt += 1
            sent = self._credentials()
            if self.cancel.cancelled:
                raise CancelledError(f"cancelled ({what or path}): {self.cancel.reason or 'the command failed'}")
            if timeout is True and self.deadline.expired():
                raise self._deadline_error(what or path)
            status, headers, payload, response = self._send(
                method, path, clean, body=body, accept=accept, content_type=content_type, timeout=timeout
            )
            if response is not None:
                return response
            if status == 401 and not refreshed and self._refresh_credentials(sent):
                refreshed = True  # once per request: new credentials that are rejected too are the answer
                continue
            retry_after = retry_after_seconds(headers)
            if attempt < self.retry.attempts and self.retry.retryable(method, status, retry_after):
                wait = self.retry.delay(attempt, retry_after)
                if timeout is True and not self.deadline.allows(wait):
                    after = f" (Retry-After {retry_after:g}s)" if retry_after is not None else ""
                    raise self._deadline_error(what or path, f"the server kept answering {status}{after}")
                self.counter.add_retry()
                self.cancel.sleep(wait)  # cancelled while waiting: the next turn raises CancelledError
                continue
            raise self._http_error(method, path, clean, status=status, payload=payload, what=what)

    def _credentials(self) -> object:
        configuration = self.api_client.configuration
        return (configuration.api_key.get("BearerToken"), configuration.cert_file)

    def _refresh_credentials(self, sent: object) -> bool:
        """After a 401: whether the request may be sent again with other credentials (loaded now, or
        already by another thread since this one was sent)."""
        if self.reauthenticate is None:
            return False
        with self._auth_lock:
            if self._credentials() == sent:
                try:
                    self.reauthenticate()
                except Exception:  # a failing plugin: the 401 stays the answer
                    return False
            return self._credentials() != sent

    def _send(
        self,
        method: str,
        path: str,
        clean: Mapping[str, Any],
        *,
        body: Any,
        accept: str,
        content_type: str | None,
        timeout: float | bool | None,
    ) -> tuple[int, Mapping[str, str], bytes, Any]:
        """One try: (status, headers, payload, None) on an HTTP error, (status, headers, b"", response) on success."""
        import urllib3

        qs = urlencode(clean)
        url = self.server + path + (f"?{qs}" if qs else "")
        self.counter.add(_verb(method, path, clean), path, qs)
        headers = self._headers(method, path, accept, content_type)
        data = orjson.dumps(body) if body is not None and not isinstance(body, (bytes, str)) else body
        seconds = self.timeout if timeout is True else (timeout or None)
        bounded = False  # whether the command's deadline, not the request timeout, limits this try
        if timeout is True:
            limit = self.deadline.bound(seconds)
            bounded = limit is not None and (seconds is None or limit < seconds)
            seconds = limit
        urllib_timeout = urllib3.Timeout(total=seconds) if seconds else urllib3.Timeout(connect=30.0, read=None)
        try:
            response = self.api_client.rest_client.pool_manager.request(
                method,
                url,
                body=data,
                headers=headers,
                timeout=urllib_timeout,
                preload_content=False,
                retries=urllib3.Retry(total=1, connect=1, read=0, redirect=0, status=0, raise_on_status=False),
            )
        except Exception as exc:  # urllib3 errors: connection refused, TLS, timeouts
            if self.cancel.cancelled:
                raise CancelledError(f"cancelled ({path}): {self.cancel.reason or 'the command failed'}") from None
            if bounded and self.deadline.expired():
                raise self._deadline_error(path) from None
            raise self._transport_error(exc, seconds) from None
        if 200 <= response.status <= 299:
            return response.status, response.headers, b"", response
        try:
            payload = response.data
        except Exception:
            payload = b""
        finally:
            response.release_conn()
        return response.status, response.headers, payload, None

    def watch_window(self, seconds: int, what: str) -> int:
        """The server-side timeout of one watch request: ``seconds``, cut to what the command's deadline
        (``--timeout``) leaves, so that the server ends the stream by then; DeadlineError once it passed.
        (An open stream makes no request, so nothing else would notice the deadline.)"""
        remaining = self.deadline.remaining()
        if remaining is None:
            return seconds
        if remaining <= 0:
            raise self._deadline_error(what)
        return max(1, min(seconds, math.ceil(remaining)))

    def _deadline_error(self, what: str, why: str = "") -> DeadlineError:
        seconds = self.deadline.seconds or 0.0
        return DeadlineError(
            f"timed out ({self.server}): the command did not finish within {seconds:g}s (--timeout) "
            f"while reading {what}" + (f": {why}" if why else ""),
            status=0,
            reason="Timeout",
            hint="the API server is slow, throttling or not answering: retry later or raise --timeout",
        )

    def request(
        self,
        method: str,
        path: str,
        query: Mapping[str, Any] | None = None,
        *,
        body: Any = None,
        accept: str = JSON,
        content_type: str | None = None,
        what: str | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Send one request and decode its JSON answer. ``timeout``: this request's own limit in seconds
        instead of --request-timeout and --timeout (a Lease renewal must end before the lease does)."""
        attempt = 0
        lost: float | None = None  # when the connection was first lost
        while True:
            attempt += 1
            try:
                raw = self._read(
                    method,
                    path,
                    query,
                    body=body,
                    accept=accept,
                    content_type=content_type,
                    what=what,
                    timeout=True if timeout is None else timeout,
                )
                break
            except ClusterError as exc:
                # A server that answered this command before and now refuses or drops connections is
                # restarting (or a load balancer moves us): a read is tried again, until --timeout when it
                # is given, else for restart_grace seconds. A server never reached, or timing out, fails at once.
                if not (exc.reason == RESTARTING and method == "GET" and self._answered and self.restart_grace):
                    raise
                lost = time.monotonic() if lost is None else lost
                wait = self.retry.delay(attempt, None)
                grace = self.deadline.seconds is not None or time.monotonic() + wait - lost < self.restart_grace
                if not (grace and self.deadline.allows(wait)):
                    raise
                self.counter.add_retry()
                self.cancel.sleep(wait)
                if self.cancel.cancelled:
                    raise CancelledError(
                        f"cancelled ({what or path}): {self.cancel.reason or 'the command failed'}"
                    ) from None
        try:
            return orjson.loads(raw) if raw else None
        except orjson.JSONDecodeError:
            raise ClusterError(
                f"invalid response ({self.server}{path}): not JSON ({len(raw)} bytes)", status=200
            ) from None

    def _read(self, method: str, path: str, query: Mapping[str, Any] | None, **kwargs: Any) -> bytes:
        response = self.open(method, path, query, **kwargs)
        try:
            raw: bytes = response.data
        except Exception as exc:
            raise self._transport_error(exc) from None
        finally:
            response.release_conn()
        self._answered = True
        return raw

    def get(self, path: str, query: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        return self.request("GET", path, query, **kwargs)

    def stream_lines(
        self, path: str, query: Mapping[str, Any], timeout: float | None, opened: list[Any] | None = None
    ) -> Iterator[bytes]:
        """Newline-delimited JSON of a watch; ends when the server closes the stream.

        The open response is appended to ``opened`` so another thread can close it to stop the watch.
        """
        response = self.open("GET", path, query, timeout=timeout or False)
        if opened is not None:
            opened.append(response)
        buffer = b""
        try:
            for chunk in response.stream(64 * 1024, decode_content=True):
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        yield line
            if buffer.strip():
                yield buffer
        except Exception as exc:
            if isinstance(exc, ClusterError):
                raise
            import urllib3

            if isinstance(exc, (urllib3.exceptions.ReadTimeoutError, urllib3.exceptions.ProtocolError)):
                return  # the watch timed out or the server went away: the caller relists
            raise self._transport_error(exc) from None
        finally:
            response.release_conn()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.api_client.close()

    # -- errors
    def _transport_error(self, exc: BaseException, seconds: float | None = None) -> ClusterError:
        text = str(exc)
        reason = getattr(exc, "reason", None)
        if reason is not None:
            text = str(reason)
        low = text.lower()
        reason = ""
        if "refused" in low:
            why, reason = "connection refused", RESTARTING
        elif "timed out" in low or "timeout" in low:
            why = "request timed out" + (f" after {seconds:g}s (--request-timeout)" if seconds else "")
        elif "certificate" in low or "ssl" in low:
            why = "TLS error: " + _short(text)
        elif "name or service not known" in low or "nodename nor servname" in low or "resolve" in low:
            why = "host not found"
        elif "remote end closed" in low or "connection aborted" in low or "reset by peer" in low:
            why, reason = "the server closed the connection", RESTARTING
        elif "proxy" in low:
            why = "proxy error: " + _short(text)
        else:
            why = _short(text) or type(exc).__name__
        return ClusterError(
            f"cluster unreachable ({self.server}): {why}",
            reason=reason,
            hint="check --kubeconfig/--context, or that the API server is running",
        )

    def _http_error(
        self, method: str, path: str, query: Mapping[str, Any], *, status: int, payload: bytes, what: str | None
    ) -> ClusterError:
        message = ""
        reason = ""
        try:
            doc = orjson.loads(payload) if payload else {}
            if isinstance(doc, dict):
                message = str(doc.get("message") or "")
                reason = str(doc.get("reason") or "")
        except orjson.JSONDecodeError:
            message = payload[:200].decode(errors="replace").strip()
        subject = what or path
        if status == 401:
            return ClusterError(
                "Unauthorized: the token was rejected"
                + (f" ({self.server})" if self.server else "")
                + ": the credentials are invalid or expired",
                status=status,
                reason="Unauthorized",
                hint="log in again or refresh the credentials of the kubeconfig user",
            )
        if status == 403 and message and not re.search(r'User "[^"]*" cannot', message):
            # Not RBAC: an admission webhook or policy denied the request, and its message is the answer
            # (kubectl prints it as is); reporting it as a permission problem would send the user to RBAC.
            return ClusterError(f"Forbidden ({subject}): {message}", status=status, reason="Forbidden")
        if status == 403:
            verb = {"LIST": "list", "WATCH": "watch", "GET": "get", "PATCH": "patch"}.get(
                _verb(method, path, query), method.lower()
            )
            ns = _namespace_in(path)
            scope = f" in namespace {ns}" if ns else " at the cluster scope"
            m = re.search(r'User "([^"]*)"', message)
            user = f"user {m.group(1)!r}" if m else "user"
            return ClusterError(f"Forbidden: {user} cannot {verb} {subject}{scope}", status=status, reason="Forbidden")
        if status == 410:
            return GoneError(
                f"Gone ({subject}): {message or 'the resource version is too old'}", status=status, reason="Expired"
            )
        if status == 404:
            return ClusterError(f"NotFound ({subject}): {message or 'not found'}", status=status, reason="NotFound")
        text = message or reason or f"HTTP {status}"
        return ClusterError(f"{reason or 'request failed'} ({method} {path}): {text}", status=status, reason=reason)


def _short(text: str) -> str:
    # urllib3 wraps errors in "HTTPSConnectionPool(host=..., port=...): Max retries exceeded ... (Caused by X(...))"
    m = re.search(r"Caused by \w+\((.*)\)\)?$", text)
    if m:
        text = m.group(1)
    text = re.sub(r"<urllib3[^>]*>:\s*", "", text)
    return text.strip(" '\"()")[:200]


def _namespace_in(path: str) -> str | None:
    parts = [p for p in path.split("/") if p]
    if "namespaces" in parts:
        i = parts.index("namespaces")
        if i + 1 < len(parts) and i + 2 < len(parts):
            return parts[i + 1]
    return None


def resource_path(group: str, version: str, plural: str, namespace: str | None = None, name: str | None = None) -> str:
    base = f"/apis/{group}/{version}" if group else f"/api/{version}"
    if namespace:
        base += f"/namespaces/{quote(namespace, safe='')}"
    base += f"/{plural}"
    if name:
        base += f"/{quote(name, safe='')}"
    return base


# --------------------------------------------------------------------------- kubeconfig


def _kubeconfig_paths(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    env = os.environ.get("KUBECONFIG")
    if env:
        return env
    default = os.path.expanduser("~/.kube/config")
    return default if os.path.exists(default) else None


class _CaptureLog(logging.Handler):
    """The client's exec-plugin loader logs its failures instead of raising them; keep them."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def connect(options: ConnectionOptions | None = None) -> Connection:
    """A Connection from kubeconfig (``--kubeconfig``, ``$KUBECONFIG``, ``~/.kube/config``) or in-cluster config."""
    options = options or ConnectionOptions()
    from kubernetes import client as k8s_client
    from kubernetes.config.config_exception import ConfigException

    # No flag means a default, not forever: a frozen API server must end a command (kubectl has none).
    timeout = DEFAULT_REQUEST_TIMEOUT if options.request_timeout is None else parse_timeout(options.request_timeout)
    overall = parse_timeout(options.timeout, "--timeout")
    configuration = k8s_client.Configuration()
    paths = _kubeconfig_paths(options.kubeconfig)
    context_name: str | None = None
    user_name: str | None = None
    reauthenticate: Callable[[], None] | None = None
    default_ns: str | None
    if paths is None:
        if os.environ.get("KUBERNETES_SERVICE_HOST") and os.environ.get("KUBERNETES_SERVICE_PORT"):
            from kubernetes.config import incluster_config

            try:
                incluster_config.load_incluster_config(  # type: ignore[no-untyped-call]
                    client_configuration=configuration
                )
            except ConfigException as exc:
                raise ClusterError(f"invalid in-cluster configuration: {exc}") from None
            default_ns = _read(IN_CLUSTER_NAMESPACE_FILE) or "default"
            user_name = "serviceaccount"
        else:
            raise ClusterError(
                "no cluster configured: no kubeconfig found ($KUBECONFIG unset, ~/.kube/config missing) "
                "and not running in a cluster",
                hint="pass --kubeconfig PATH (or set $KUBECONFIG)",
                reason=NO_CONFIGURATION,
            )
    else:
        if options.kubeconfig and not os.path.exists(os.path.expanduser(options.kubeconfig)):
            raise ClusterError(f"cannot read kubeconfig ({options.kubeconfig}): no such file")
        default_ns, context_name, user_name, reauthenticate = _load_kubeconfig(paths, options, configuration)
    configuration.retries = 1
    api_client = k8s_client.ApiClient(configuration)
    namespace = options.namespace or default_ns or "default"
    return Connection(
        api_client=api_client,
        server=configuration.host.rstrip("/"),
        namespace=namespace,
        namespace_explicit=bool(options.namespace),
        timeout=timeout,
        chunk_size=DEFAULT_CHUNK_SIZE if options.chunk_size is None else options.chunk_size,  # 0: no paging
        context=context_name,
        user=user_name,
        deadline=Deadline(overall),
        reauthenticate=reauthenticate,
    )


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip() or None
    except OSError:
        return None


def _load_kubeconfig(
    paths: str, options: ConnectionOptions, configuration: Any
) -> tuple[str | None, str, str, Callable[[], None]]:
    from kubernetes.config import kube_config
    from kubernetes.config.config_exception import ConfigException

    source = paths
    try:
        merger = kube_config.KubeConfigMerger(paths)  # type: ignore[no-untyped-call]
        if merger.config is None:
            raise ClusterError(f"invalid kubeconfig ({source}): no configuration found")
        loader = kube_config.KubeConfigLoader(  # type: ignore[no-untyped-call]
            config_dict=merger.config, config_base_path=None
        )
        context_name = options.context or loader._config.safe_get("current-context")  # type: ignore[no-untyped-call]
        if not context_name:
            raise ClusterError(
                f"no context ({source}): the kubeconfig has no current-context",
                hint="pass --context NAME",
            )
        try:
            loader.set_active_context(context_name)  # type: ignore[no-untyped-call]
        except (ConfigException, KeyError, TypeError) as exc:
            raise ClusterError(f"context {context_name!r} not found ({source}): {exc}") from None
        current: Any = loader._current_context  # set by set_active_context
        context = current["context"]
        user_name = options.user or context.safe_get("user") or ""
        if options.cluster:
            try:
                loader._cluster = loader._config["clusters"].get_with_name(options.cluster)["cluster"]
            except (ConfigException, KeyError, TypeError):
                raise ClusterError(f"cluster {options.cluster!r} not found ({source})") from None
        if options.user:
            try:
                loader._user = loader._config["users"].get_with_name(options.user)["user"]
            except (ConfigException, KeyError, TypeError):
                raise ClusterError(f"user {options.user!r} not found ({source})") from None
        capture = _CaptureLog()
        root = logging.getLogger()
        root.addHandler(capture)
        try:
            loader.load_and_set(configuration)  # type: ignore[no-untyped-call]
        finally:
            root.removeHandler(capture)
        user = loader._user
        if (
            user is not None
            and "exec" in user
            and not (getattr(loader, "token", None) or getattr(loader, "cert_file", None))
        ):
            why = capture.messages[-1] if capture.messages else "the plugin returned no credentials"
            command = user["exec"].safe_get("command") if hasattr(user["exec"], "safe_get") else "?"
            raise ClusterError(
                f"exec credential plugin failed ({command}): {_short(why.splitlines()[0] if why else why)}",
                hint="run the plugin command by hand to see its error",
            )
        # the credential's own expiry, not the client's (which counts 5 minutes early and so would refuse a
        # plugin's short-lived tokens; its refresh hook runs the plugin again when they near the end)
        expired = "expiry" in loader.__dict__ and loader.expiry <= _dt.datetime.now(_dt.UTC)
        if expired:
            raise ClusterError(
                f"Unauthorized: the token was rejected ({user_name}): the exec credential expired at "
                f"{loader.expiry.isoformat()}",
                hint="log in again or refresh the credentials of the kubeconfig user",
            )
        namespace = context.safe_get("namespace")

        def reauthenticate() -> None:
            loader._load_authentication()  # type: ignore[no-untyped-call]
            loader._set_config(configuration)  # type: ignore[no-untyped-call]

        return (str(namespace) if namespace else None), str(context_name), str(user_name), reauthenticate
    except ClusterError:
        raise
    except ConfigException as exc:
        raise ClusterError(f"invalid kubeconfig ({source}): {exc}") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ClusterError(f"invalid kubeconfig ({source}): {type(exc).__name__}: {exc}") from None


def kubeconfig_contexts(kubeconfig: str | None = None) -> list[str]:
    """The context names of the kubeconfig (``--kubeconfig``, ``$KUBECONFIG`` merged, ``~/.kube/config``), in
    file order: what ``--all-contexts`` reads."""
    from kubernetes.config import kube_config
    from kubernetes.config.config_exception import ConfigException

    paths = _kubeconfig_paths(kubeconfig)
    if paths is None:
        raise ClusterError(
            "no kubeconfig found ($KUBECONFIG unset, ~/.kube/config missing)", hint="pass --kubeconfig PATH"
        )
    if kubeconfig and not os.path.exists(os.path.expanduser(kubeconfig)):
        raise ClusterError(f"cannot read kubeconfig ({kubeconfig}): no such file")
    try:
        merger = kube_config.KubeConfigMerger(paths)  # type: ignore[no-untyped-call]
        config: Any = merger.config
        contexts = (config.safe_get("contexts") if config is not None else None) or []
        names = [str(c.safe_get("name")) for c in contexts if hasattr(c, "safe_get") and c.safe_get("name")]
    except (ConfigException, OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ClusterError(f"invalid kubeconfig ({paths}): {exc}") from None
    return list(dict.fromkeys(names))
