"""Drafting a definition (``wmap definitions new``): from a CRD file, sample files, or a live cluster."""

from __future__ import annotations

import pathlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Unpack

from workload_map.api.cluster_drafts import read_kind
from workload_map.api.clusters import connect, with_shortcuts
from workload_map.api.definitions import read_documents
from workload_map.authoring import Sample, draft
from workload_map.authoring.transitions import Moment, owned_pods
from workload_map.base.objects import key_of
from workload_map.errors import Location, WorkloadMapError
from workload_map.sources.recording import load_recording

if TYPE_CHECKING:
    from workload_map.api.clusters import ClusterFields, ClusterOptions
    from workload_map.authoring import Draft, Sample
    from workload_map.authoring.transitions import Moment
    from workload_map.sources.kube import Connection


def _crd_from(path: str, sample_kinds: set[tuple[str, str]]) -> dict[str, Any]:
    crds = [
        d
        for d in read_documents([path])
        if isinstance(d.data, dict) and d.data.get("kind") == "CustomResourceDefinition"
    ]
    if not crds:
        raise WorkloadMapError("no CustomResourceDefinition found", Location(path), hint="give the CRD's YAML")
    if len(crds) > 1:
        wanted = [d for d in crds if ((d.data.get("spec") or {}).get("group"), _kind(d.data)) in sample_kinds]
        if len(wanted) != 1:
            kinds = ", ".join(sorted(_kind(d.data) for d in crds))
            raise WorkloadMapError(
                f"the file holds {len(crds)} CRDs ({kinds})",
                Location(path),
                hint="give a file with one CRD, or samples of exactly one of these kinds",
            )
        crds = wanted
    data: dict[str, Any] = crds[0].data
    return data


def _api_folder(path: str | None) -> pathlib.Path | None:
    if path is None:
        return None
    if not pathlib.Path(path).is_dir():
        raise WorkloadMapError("not a folder", Location(path), hint="give a checkout of the operator's Go source")
    return pathlib.Path(path)


def _kind(crd: dict[str, Any]) -> str:
    return str(((crd.get("spec") or {}).get("names") or {}).get("kind") or "?")


def _samples(paths: Sequence[str]) -> list[Sample]:
    return [Sample(d.data, str(d.location)) for d in read_documents(paths) if isinstance(d.data, dict)]


def _recorded(paths: Sequence[str], versions: Sequence[Sequence[dict[str, Any]]]) -> tuple[list[Sample], list[Moment]]:
    """Samples and moments from recordings (``wmap record`` files) and from sequences of one object's
    versions: every version of the recorded object and the last seen version of every other object are
    samples; each state is a moment (the object then, the pods it owned then)."""

    samples: list[Sample] = []
    moments: list[Moment] = []
    for run, path in enumerate(paths):
        recording = load_recording(path)
        latest: dict[Any, dict[str, Any]] = {}
        for index, snapshot in recording.states():
            objects = list(snapshot)
            root = next((o for o in objects if key_of(o) == recording.workload.key), None)
            at = recording.events[index - 1].at if index else recording.recorded.started
            pods = tuple(owned_pods(objects, root)) if root else ()
            moments.append(Moment(index, at, root, pods, run, tuple(objects), path))
            if root is not None and (index == 0 or recording.events[index - 1].object is root):
                samples.append(Sample(root, f"{path}: after {index} event(s)"))
            latest.update((key_of(o), o) for o in objects)
        samples += [Sample(o, f"{path}: last seen") for k, o in latest.items() if k != recording.workload.key]
    for run, sequence in enumerate(versions, start=len(paths)):
        for index, version in enumerate(sequence):
            moments.append(Moment(index, f"version {index}", version, (), run))
            samples.append(Sample(version, f"<versions {run - len(paths)}>#{index}"))
    return samples, moments


def draft_definition(
    crd: str | dict[str, Any] | None = None,
    samples: Sequence[str] = (),
    *,
    version: str | None = None,
    objects: Sequence[dict[str, Any]] = (),
    recordings: Sequence[str] = (),
    versions: Sequence[Sequence[dict[str, Any]]] = (),
    api_source: str | None = None,
) -> Draft:
    """A draft Karta for a kind, from its CRD (a file path or the CRD object) and/or sample files (root
    objects, and the pods and intermediate owners they own) or sample ``objects``. ``recordings`` (files
    ``wmap record`` writes) and ``versions`` (sequences of one object's versions, oldest first) add the
    statuses the object went through: each phase and condition seen is mapped from the moments it held,
    with that evidence. The draft's ``text`` is commented YAML: every guess with its evidence and
    confidence, every gap a ``TODO(wmap)`` that ``validate_definitions`` reports. ``api_source`` (a folder
    of the operator's Go source) adds the status values its API types declare; what it cannot read is in
    the draft's ``warnings``. Raises WorkloadMapError on unreadable input."""
    from workload_map.catalog import builtin_definitions  # noqa: PLC0415 (the catalog loads only when definitions are needed)

    recorded, moments = _recorded(recordings, versions)
    given = [*_samples(samples), *(Sample(o, "<object>") for o in objects), *recorded]
    sample_kinds = {(str(s.obj.get("apiVersion", "")).rpartition("/")[0], str(s.obj.get("kind"))) for s in given}
    sources = []
    crd_object: dict[str, Any] | None
    if isinstance(crd, str):
        crd_object = _crd_from(crd, sample_kinds)
        sources.append(crd)
    else:
        crd_object = crd
        if crd is not None:
            sources.append(f"the CRD {(crd.get('metadata') or {}).get('name')}")
    sources += [*samples, *recordings]
    if crd_object is None and not given:
        raise WorkloadMapError(
            "nothing to draft from",
            hint="give a CRD (--crd FILE), samples (--sample FILE) or a recording (--from-recording FILE)",
        )
    try:
        return draft(
            crd_object,
            given,
            version=version,
            catalog=builtin_definitions(strict=False),
            sources=sources,
            moments=moments,
            api_source=_api_folder(api_source),
        )
    except ValueError as exc:
        where = Location(crd) if isinstance(crd, str) else Location(samples[0] if samples else "")
        raise WorkloadMapError("cannot draft a definition", where, detail=str(exc)) from None


def draft_from_cluster(
    kind: str,
    options: ClusterOptions | None = None,
    /,
    *,
    limit: int = 20,
    samples: Sequence[str] = (),
    connection: Connection | None = None,
    api_source: str | None = None,
    **shortcuts: Unpack[ClusterFields],
) -> Draft:
    """A draft Karta for ``kind`` (``Kind.group``) read from the live cluster ``options`` (or the keyword
    shortcuts, as :func:`open_cluster`) reach: its CRD and, when instances exist (up to ``limit``, in the
    options' namespace or the context's, or all namespaces), the pods whose ownerReferences lead up to them
    and the owners on the way; ``samples`` files add to them. ``connection`` reuses an open connection;
    ``api_source`` as :func:`draft_definition`."""
    from workload_map.catalog import builtin_definitions  # noqa: PLC0415 (the catalog loads only when definitions are needed)

    options = with_shortcuts(options, shortcuts)
    if connection is None:
        connection = connect(options)
    namespace, all_namespaces = options.namespace, options.all_namespaces
    scope = None if all_namespaces else (namespace or connection.namespace)
    crd, objects = read_kind(connection, kind, namespace=scope, limit=limit)
    where = f"the cluster {connection.server}" + ("" if scope is None else f" (namespace {scope})")
    given = [Sample(o, f"{where}: {o.get('kind')}/{(o.get('metadata') or {}).get('name')}") for o in objects]
    given += _samples(samples)
    sources = [f"the CRD {(crd.get('metadata') or {}).get('name')} in {where}", *samples]
    try:
        return draft(
            crd, given, catalog=builtin_definitions(strict=False), sources=sources, api_source=_api_folder(api_source)
        )
    except ValueError as exc:
        raise WorkloadMapError("cannot draft a definition", Location(kind), detail=str(exc)) from None
