"""The run-configs of bench/authoring_live.py: how to build and run one operator in the cluster lab.

One YAML file per operator, ``bench/authoring_live/<owner>+<name>.yaml`` (format in that folder's
README.md). ``load_config`` checks every field and names the file and the field of the first problem;
the cache layout (sources, binaries, captures) is here too, so the scorer finds the captures by the same
names the capture writes them under.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

CONFIGS = Path(__file__).resolve().parent / "authoring_live"
CACHE = Path(os.environ.get("WMAP_AUTHORING_LIVE_CACHE", "~/.cache/workload-map/authoring-live")).expanduser()
CAPTURES = CACHE / "captures"
PLACEHOLDERS = ("kubeconfig", "workdir", "certdir", "namespace", "webhookport")
_KEYS = (
    "repo",
    "commit",
    "package",
    "build_flags",
    "args",
    "env",
    "serviceaccount_namespace",
    "restart_per_sample",
    "crds",
    "before",
    "per_sample",
    "webhooks",
    "webhook_port",
    "kind",
    "samples",
    "record",
    "note",
)
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


class ConfigError(ValueError):
    """A run-config problem, located: ``file: field: why``."""

    def __init__(self, path: Path, where: str, why: str) -> None:
        self.path, self.where, self.why = path, where, why
        super().__init__(f"{path}: {where}: {why}" if where else f"{path}: {why}")


@dataclass(frozen=True)
class Kind:
    """``Kind.group`` (the root) or ``group/version/Kind`` (``record``): what is watched."""

    kind: str
    group: str
    version: str | None = None

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else str(self.version)


@dataclass(frozen=True)
class RunConfig:
    path: Path
    repo: str
    commit: str
    package: str
    kind: Kind
    crds: list[str]
    samples: list[str]
    build_flags: list[str] = field(default_factory=list)  # go build flags before -o (-tags=x, -mod=mod)
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    before: list[dict[str, Any]] = field(default_factory=list)
    per_sample: list[dict[str, Any]] = field(default_factory=list)  # created in each sample's namespace first
    serviceaccount_namespace: bool = False  # the in-cluster namespace file, for operators that read only it
    restart_per_sample: bool = False  # a fresh operator process for each sample
    webhooks: list[str] = field(default_factory=list)  # globs: webhook configurations, registered by URL
    webhook_port: int | None = None  # the port the operator serves webhooks on when not {webhookport}
    record: list[Kind] = field(default_factory=list)
    note: str = ""

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def key(self) -> str:
        return snapshot_key(self.repo, self.commit)


def snapshot_key(repo: str, commit: str) -> str:
    """``<owner>+<name>-<commit12>``: one build, its sources and its captures."""
    return f"{repo.replace('/', '+')}-{commit[:12]}"


def capture_dir(root: Path, repo: str, commit: str) -> Path:
    return root / snapshot_key(repo, commit)


def capture_file(directory: Path, sample_file: str, name: str) -> Path:
    """One sample object's recording: ``<sample-file-stem>-<name>.yaml``."""
    return directory / f"{Path(sample_file).stem}-{name}.yaml"


def captures_of(root: Path, repo: str, commit: str) -> list[Path]:
    """The recordings captured for a repository at a commit (none when it was never captured)."""
    directory = capture_dir(root, repo, commit)
    return sorted(directory.glob("*.yaml")) if directory.is_dir() else []


def fill(text: str, values: dict[str, str]) -> str:
    """``text`` with its ``{placeholder}`` s replaced (load_config has checked that every one is known)."""
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def load_config(path: Path) -> RunConfig:
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(path, "", f"cannot read it: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(path, "", "a run-config is a mapping (repo, commit, package, kind, crds, samples, ...)")
    unknown = sorted(str(k) for k in data if k not in _KEYS)
    if unknown:
        raise ConfigError(path, unknown[0], f"unknown field (known: {', '.join(_KEYS)})")
    for required in ("repo", "commit", "package", "kind", "crds", "samples"):
        if data.get(required) in (None, "", []):
            raise ConfigError(path, required, "is missing")
    repo = _text(path, data, "repo")
    if not _REPO.match(repo):
        raise ConfigError(path, "repo", f"{repo!r} is not owner/name")
    commit = _text(path, data, "commit")
    if not _COMMIT.match(commit):
        raise ConfigError(path, "commit", f"{commit!r} is not a full 40-hex commit")
    package = _text(path, data, "package")
    if not package.startswith("."):
        raise ConfigError(path, "package", f"{package!r}: give the main package relative to the root (./cmd)")
    kind_text = _text(path, data, "kind")
    kind, _, group = kind_text.partition(".")
    if not kind or not group:
        raise ConfigError(path, "kind", f"{kind_text!r} is not Kind.group (e.g. EtcdCluster.operator.etcd.io)")
    build_flags = _texts(path, data, "build_flags")
    for index, flag in enumerate(build_flags):
        if not flag.startswith("-") or flag.split("=")[0] in ("-o", "--o"):
            raise ConfigError(path, f"build_flags[{index}]", f"{flag!r}: a go build flag (-tags=x, -mod=mod), not -o")
    args = _texts(path, data, "args")
    env = data.get("env") or {}
    if not isinstance(env, dict):
        raise ConfigError(path, "env", "must be a mapping NAME: value")
    for name, value in env.items():
        if not isinstance(value, str):
            raise ConfigError(path, f"env.{name}", f"must be a string (quote it), not {type(value).__name__}")
    for where, text in [*((f"args[{i}]", a) for i, a in enumerate(args)), *((f"env.{k}", v) for k, v in env.items())]:
        for found in _PLACEHOLDER.findall(text):
            if found not in PLACEHOLDERS:
                raise ConfigError(path, where, f"unknown placeholder {{{found}}} (known: {', '.join(PLACEHOLDERS)})")
    return RunConfig(
        path=path,
        repo=repo,
        commit=commit,
        package=package,
        build_flags=build_flags,
        kind=Kind(kind, group),
        crds=_texts(path, data, "crds"),
        samples=_texts(path, data, "samples"),
        args=args,
        env={str(k): v for k, v in env.items()},
        before=_objects(path, "before", data.get("before")),
        per_sample=_objects(path, "per_sample", data.get("per_sample")),
        serviceaccount_namespace=_flag(path, data, "serviceaccount_namespace"),
        restart_per_sample=_flag(path, data, "restart_per_sample"),
        webhooks=_texts(path, data, "webhooks"),
        webhook_port=_port(path, data, "webhook_port"),
        record=[_record(path, f"record[{i}]", t) for i, t in enumerate(_texts(path, data, "record"))],
        note=str(data.get("note") or ""),
    )


def _text(path: Path, data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ConfigError(path, key, f"must be a string, not {type(value).__name__}")
    return value


def _texts(path: Path, data: dict[str, Any], key: str) -> list[str]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfigError(path, key, f"must be a list, not {type(value).__name__}")
    for index, item in enumerate(value):
        if not isinstance(item, str) or not item:
            raise ConfigError(path, f"{key}[{index}]", f"must be a non-empty string, not {item!r}")
    return list(value)


def _objects(path: Path, key: str, value: Any) -> list[dict[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfigError(path, key, f"must be a list of objects, not {type(value).__name__}")
    for index, obj in enumerate(value):
        where = f"{key}[{index}]"
        if not isinstance(obj, dict):
            raise ConfigError(path, where, "must be an object (apiVersion, kind, metadata.name)")
        for field_name in ("apiVersion", "kind"):
            if not isinstance(obj.get(field_name), str) or not obj[field_name]:
                raise ConfigError(path, f"{where}.{field_name}", "is missing")
        if not isinstance(obj.get("metadata"), dict) or not isinstance(obj["metadata"].get("name"), str):
            raise ConfigError(path, f"{where}.metadata.name", "is missing")
    return list(value)


def _port(path: Path, data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536):
        raise ConfigError(path, key, f"must be a port number, not {value!r}")
    return value


def _flag(path: Path, data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(path, key, f"must be true or false, not {value!r}")
    return value


def _record(path: Path, where: str, text: str) -> Kind:
    api_version, _, kind = text.rpartition("/")
    group, _, version = api_version.rpartition("/")
    if not kind or not version or not kind[:1].isupper():
        raise ConfigError(path, where, f"{text!r} is not group/version/Kind (e.g. apps.kruise.io/v1alpha1/CloneSet)")
    return Kind(kind, group, version)
