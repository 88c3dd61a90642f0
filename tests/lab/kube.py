"""A small REST client for the lab: what tests and the lab do to the cluster, as users and controllers do it.

The lab talks to the apiserver directly (urllib, the admin token) rather than through kubectl, so a
scenario's steps cost one request each on a loaded machine; ``Watch`` is the list-then-watch loop of
client-go's reflector, so tests see every state the objects pass through instead of sampling them.
"""

from __future__ import annotations

import json
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Obj = dict[str, Any]


class ApiError(RuntimeError):
    def __init__(self, method: str, path: str, status: int, body: str) -> None:
        self.status = status
        try:
            message = json.loads(body).get("message", body)
        except ValueError:
            message = body
        super().__init__(f"{method} {path}: HTTP {status}: {message}")


@dataclass(frozen=True)
class Resource:
    """Where a kind is served: ``/api/v1`` or ``/apis/GROUP/VERSION``, its plural, whether namespaced."""

    api_version: str
    kind: str
    plural: str
    namespaced: bool

    def path(self, namespace: str | None = None, name: str | None = None, subresource: str | None = None) -> str:
        base = "/api/v1" if self.api_version == "v1" else f"/apis/{self.api_version}"
        parts = [base]
        if self.namespaced and namespace:
            parts.append(f"namespaces/{namespace}")
        parts.append(self.plural)
        if name:
            parts.append(name)
        if subresource:
            parts.append(subresource)
        return "/".join(parts)


class Kube:
    def __init__(self, server: str, token: str, context: ssl.SSLContext) -> None:
        self.server = server
        self._token = token
        self._context = context
        self._resources: dict[tuple[str, str], Resource] = {}
        self._lock = threading.Lock()

    # ----------------------------------------------------------------- discovery

    def resource(self, api_version: str, kind: str) -> Resource:
        """The served resource of a kind (discovery, cached; asked again for a kind not seen yet, as a CRD
        just established is served a moment later)."""
        key = (api_version, kind)
        with self._lock:
            if key in self._resources:
                return self._resources[key]
        base = "/api/v1" if api_version == "v1" else f"/apis/{api_version}"
        for item in self.request("GET", base)["resources"]:
            if "/" not in item["name"]:
                found = Resource(api_version, item["kind"], item["name"], bool(item["namespaced"]))
                with self._lock:
                    self._resources[(api_version, item["kind"])] = found
        with self._lock:
            if key not in self._resources:
                raise ApiError("GET", base, 404, f"kind {kind} is not served by {api_version}")
            return self._resources[key]

    def path_of(self, obj: Obj) -> str:
        meta = obj.get("metadata") or {}
        return self.resource(obj["apiVersion"], obj["kind"]).path(meta.get("namespace"), meta.get("name"))

    # ------------------------------------------------------------------ requests

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        content_type: str = "application/json",
        params: dict[str, str] | None = None,
        timeout: float = 60.0,
    ) -> Obj:
        url = self.server + path + ("?" + urllib.parse.urlencode(params) if params else "")
        data = None
        if body is not None:
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self._token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(req, context=self._context, timeout=timeout) as resp:
                payload = resp.read()
        except urllib.error.HTTPError as exc:
            raise ApiError(method, path, exc.code, exc.read().decode(errors="replace")) from None
        return json.loads(payload) if payload else {}

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> Obj:
        return self.request("GET", self.resource(api_version, kind).path(namespace, name))

    def list(
        self, api_version: str, kind: str, namespace: str | None = None, *, label_selector: str | None = None
    ) -> list[Obj]:
        params = {"labelSelector": label_selector} if label_selector else None
        items: list[Obj] = self.request("GET", self.resource(api_version, kind).path(namespace), params=params)["items"]
        for item in items:  # list items come without them
            item.setdefault("apiVersion", api_version)
            item.setdefault("kind", kind)
        return items

    def create(self, obj: Obj) -> Obj:
        meta = obj.get("metadata") or {}
        path = self.resource(obj["apiVersion"], obj["kind"]).path(meta.get("namespace"))
        return self.request("POST", path, obj)

    def apply(self, obj: Obj, *, manager: str = "lab") -> Obj:
        """Server-side apply (force), as ``kubectl apply --server-side --force-conflicts`` does."""
        return self.request(
            "PATCH",
            self.path_of(obj),
            obj,
            content_type="application/apply-patch+yaml",
            params={"fieldManager": manager, "force": "true"},
        )

    def patch(
        self,
        api_version: str,
        kind: str,
        name: str,
        patch: Obj,
        *,
        namespace: str | None = None,
        subresource: str | None = None,
    ) -> Obj:
        path = self.resource(api_version, kind).path(namespace, name, subresource)
        return self.request("PATCH", path, patch, content_type="application/merge-patch+json")

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None, **options: Any) -> Obj:
        path = self.resource(api_version, kind).path(namespace, name)
        body = {"apiVersion": "v1", "kind": "DeleteOptions", **options} if options else None
        try:
            return self.request("DELETE", path, body)
        except ApiError as exc:
            if exc.status == 404:
                return {}
            raise

    # --------------------------------------------------------------------- watch

    def watch_events(
        self, path: str, resource_version: str, *, timeout_s: int, params: dict[str, str]
    ) -> Iterator[Obj]:
        """The watch events of one watch request (it ends after ``timeout_s`` or when the server ends it)."""
        query = {
            **params,
            "watch": "1",
            "resourceVersion": resource_version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": str(max(1, timeout_s)),
        }
        url = self.server + path + "?" + urllib.parse.urlencode(query)
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {self._token}"})
        try:
            with urllib.request.urlopen(req, context=self._context, timeout=timeout_s + 30) as resp:
                for line in resp:
                    if line.strip():
                        yield json.loads(line)
        except urllib.error.HTTPError as exc:
            raise ApiError("WATCH", path, exc.code, exc.read().decode(errors="replace")) from None


class Gone(Exception):
    """The watch's resourceVersion is too old (410): list again."""


class Watch:
    """The objects of one kind (in a namespace, by label selector), kept up to date from a watch.

    ``run(on_change, until)`` lists, then watches from the list's resourceVersion, calling ``on_change``
    with each event (type, object) and stopping when ``until()`` says so; a watch the server ends is
    reopened from the last resourceVersion seen, a 410 lists again (reported as events that bring the
    state in line, as a reflector's replace does)."""

    def __init__(
        self,
        kube: Kube,
        api_version: str,
        kind: str,
        namespace: str | None = None,
        *,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> None:
        self.kube = kube
        self.api_version = api_version
        self.kind = kind
        self.namespace = namespace
        self.params: dict[str, str] = {}
        if label_selector:
            self.params["labelSelector"] = label_selector
        if field_selector:
            self.params["fieldSelector"] = field_selector
        self.objects: dict[str, Obj] = {}  # by uid
        self.resource_version = ""

    @property
    def path(self) -> str:
        return self.kube.resource(self.api_version, self.kind).path(self.namespace)

    def relist(self) -> list[tuple[str, Obj]]:
        """List again; the changes against the state so far as events."""
        listing = self.kube.request("GET", self.path, params=self.params or None)
        self.resource_version = listing["metadata"]["resourceVersion"]
        fresh: dict[str, Obj] = {}
        for item in listing["items"]:
            item.setdefault("apiVersion", self.api_version)
            item.setdefault("kind", self.kind)
            fresh[item["metadata"]["uid"]] = item
        changes: list[tuple[str, Obj]] = []
        for uid, obj in fresh.items():
            old = self.objects.get(uid)
            if old is None:
                changes.append(("ADDED", obj))
            elif old["metadata"].get("resourceVersion") != obj["metadata"].get("resourceVersion"):
                changes.append(("MODIFIED", obj))
        changes.extend(("DELETED", old) for uid, old in self.objects.items() if uid not in fresh)
        self.objects = fresh
        return changes

    def apply(self, event_type: str, obj: Obj) -> None:
        obj.setdefault("apiVersion", self.api_version)
        obj.setdefault("kind", self.kind)
        uid = obj["metadata"]["uid"]
        if event_type == "DELETED":
            self.objects.pop(uid, None)
        else:
            self.objects[uid] = obj

    def events(self, deadline: float, stop: Callable[[], bool] = lambda: False) -> Iterator[tuple[str, Obj]]:
        """Events until ``deadline`` (monotonic) or ``stop()``; the first ones are the initial list's."""
        yield from self.relist()
        yield from self.follow(deadline, stop)

    def follow(self, deadline: float, stop: Callable[[], bool] = lambda: False) -> Iterator[tuple[str, Obj]]:
        """Events after the last list or event seen, until ``deadline`` (monotonic) or ``stop()``."""
        while not stop() and time.monotonic() < deadline:
            remaining = int(min(deadline - time.monotonic(), 60)) + 1
            try:
                for event in self.kube.watch_events(
                    self.path, self.resource_version, timeout_s=remaining, params=self.params
                ):
                    kind = event.get("type")
                    obj = event.get("object") or {}
                    if kind == "ERROR":
                        if obj.get("code") == 410:
                            raise Gone
                        raise ApiError("WATCH", self.path, int(obj.get("code") or 500), json.dumps(obj))
                    self.resource_version = obj.get("metadata", {}).get("resourceVersion", self.resource_version)
                    if kind == "BOOKMARK":
                        continue
                    self.apply(str(kind), obj)
                    yield str(kind), obj
                    if stop() or time.monotonic() >= deadline:
                        return
            except Gone:
                yield from self.relist()
            except ApiError as exc:
                if exc.status != 410:
                    raise
                yield from self.relist()
            except (TimeoutError, OSError):
                if time.monotonic() >= deadline:
                    return
                time.sleep(0.2)
