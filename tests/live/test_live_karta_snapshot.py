"""Cluster Karta objects, the snapshot file round trip, update (merge patch) and watch."""

from __future__ import annotations

import copy
import secrets
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from live_data import admin, create, create_namespace, deployment_scenario, ensure_crds, jobset_scenario, live_options
from tests.cluster.apiserver import TestCluster

from workload_map.api.cluster_update import patch_workload
from workload_map.api.definitions import read_documents, split_dump
from workload_map.api.snapshot_export import with_capacity, write_snapshot
from workload_map.base.snapshot import Snapshot, key_of
from workload_map.catalog import builtin_definitions
from workload_map.resolve.workloads import WorkloadIndex
from workload_map.resolve.writes import set_suspended
from workload_map.sources.kube import ClusterError, live_source
from workload_map.sources.kube.watch import watch_snapshots
from workload_map.tree.build import tree_of, trees_of

pytestmark = pytest.mark.live

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILTIN_DEPLOYMENT = REPO_ROOT / "src" / "workload_map" / "catalog" / "definitions" / "apps-deployment-v1.yaml"


@pytest.fixture(scope="module")
def kartas(test_cluster: TestCluster) -> Any:
    ensure_crds(test_cluster, "kartas.run.ai", "jobsets.jobset.x-k8s.io")
    conn = admin(test_cluster)
    ns = create_namespace(conn, f"karta-{secrets.token_hex(3)}")
    jobset_scenario(conn, ns)
    deployment_scenario(conn, ns)
    override = yaml.safe_load(BUILTIN_DEPLOYMENT.read_text())
    override["metadata"] = {"name": f"cluster-deployment-{secrets.token_hex(2)}"}
    create(conn, override, "kartas", None)
    broken = copy.deepcopy(override)
    broken["metadata"] = {"name": f"broken-{secrets.token_hex(2)}"}
    # Admitted by the CRD (it cannot parse jq), rejected by wmap's validator.
    root_name = broken["spec"]["structureDefinition"]["rootComponent"]["name"]
    broken["spec"]["structureDefinition"]["childComponents"] = [
        {
            "name": "orphan",
            "ownerRef": root_name,
            "podSelector": {"componentTypeSelector": {"keyPath": '.metadata.labels["x" | ((('}},
        }
    ]
    broken["spec"]["structureDefinition"]["rootComponent"]["kind"] = {
        "group": "example.com",
        "version": "v1",
        "kind": "Thing",
    }
    create(conn, broken, "kartas", None)
    yield {"ns": ns, "override": override["metadata"]["name"], "broken": broken["metadata"]["name"]}
    # Cluster-scoped: leave no definition behind for other modules.
    for name in (override["metadata"]["name"], broken["metadata"]["name"]):
        conn.request("DELETE", f"/apis/run.ai/v1alpha1/kartas/{name}")
    conn.close()


def test_cluster_karta_overrides_builtin(test_cluster: TestCluster, kartas: dict[str, str]) -> None:
    source = live_source(live_options(test_cluster, namespace=kartas["ns"]))
    view = source.index()
    (deployment,) = view.workloads(view.registry.resolve_type("deploy"), kartas["ns"])
    definition, _ = view.registry.for_object(deployment)
    assert definition is not None and definition.origin == "cluster" and definition.name == kartas["override"]
    broken = [w for w in source.warnings if kartas["broken"] in w]
    assert len(broken) == 1 and broken[0].startswith(f"ignoring cluster definition Karta {kartas['broken']!r}: ")
    assert not any("not installed" in w for w in source.warnings)
    assert tree_of(view, deployment).counts.desired == 3
    source.connection.close()


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_snapshot_round_trip(test_cluster: TestCluster, kartas: dict[str, str], tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"snap{suffix}"
    written = live_source(live_options(test_cluster, all_namespaces=True))
    objects, _ = with_capacity(written)
    count = write_snapshot(path, objects, written.karta_objects, written.snapshot.coverage)
    written.connection.close()
    assert count > 0
    live = live_source(live_options(test_cluster, all_namespaces=True))
    view = live.index()
    objects, definitions, warnings = split_dump(read_documents([str(path)]))
    # Every Karta object is saved as the cluster has it; the dump reader decides what to use: the broken one
    # is left out with a warning naming it, as the live read leaves it out (it never replaces a built-in).
    assert kartas["override"] in {d.name for d in definitions}
    assert kartas["broken"] not in {d.name for d in definitions}
    assert any(kartas["broken"] in w for w in warnings), warnings
    assert kartas["broken"] in path.read_text()

    dumped = WorkloadIndex(Snapshot(objects), [*builtin_definitions(strict=False), *definitions])

    def tree_json(tree: Any) -> Any:
        doc = tree.to_json()
        doc["definition"].pop("source", None)  # "cluster:karta/x" live, "<file>, items[1]" from the dump
        return doc

    live_trees = {str(key_of(t.workload)): tree_json(t) for t in trees_of(view, view.workloads())[0]}
    dump_trees = {str(key_of(t.workload)): tree_json(t) for t in trees_of(dumped, dumped.workloads())[0]}
    assert live_trees == dump_trees
    live.connection.close()


def test_update_merge_patch_and_server_dry_run(test_cluster: TestCluster, kartas: dict[str, str]) -> None:
    source = live_source(live_options(test_cluster, namespace=kartas["ns"]))
    view = source.index()
    (jobset,) = view.find(view.registry.resolve_type("jobsets"), "paralleljobs", kartas["ns"])
    definition, _ = view.registry.for_object(jobset)
    assert definition is not None
    result = set_suspended(definition.karta, jobset, True)
    assert result.patch == {"spec": {"suspend": True}}
    conn = source.connection
    dry = patch_workload(conn, source.discovery, jobset, result.patch, dry_run="server")
    assert dry["spec"]["suspend"] is True
    stored = conn.get(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{kartas['ns']}/jobsets/paralleljobs")
    assert not stored["spec"].get("suspend")
    patched = patch_workload(conn, source.discovery, jobset, result.patch)
    assert patched["spec"]["suspend"] is True
    assert (
        "PATCH",
        f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{kartas['ns']}/jobsets/paralleljobs",
    ) in conn.counter.counts
    # The old resourceVersion is now stale: a second patch from the same read is a Conflict.

    with pytest.raises(ClusterError, match="Conflict"):
        patch_workload(conn, source.discovery, jobset, {"spec": {"suspend": False}})
    conn.close()


def test_watch_sees_changes(test_cluster: TestCluster, kartas: dict[str, str]) -> None:
    source = live_source(live_options(test_cluster, namespace=kartas["ns"]))
    conn = source.connection
    setup = admin(test_cluster)
    events = watch_snapshots(conn, source.lists, max_events=1, timeout=30)
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "watched", "namespace": kartas["ns"]},
        "spec": {"containers": [{"name": "main", "image": "busybox"}]},
    }

    threading.Timer(1.0, lambda: create(setup, pod, "pods", kartas["ns"])).start()
    got = list(events)
    assert got and got[-1].type == "ADDED" and got[-1].object["metadata"]["name"] == "watched"
    assert any(p["metadata"]["name"] == "watched" for p in got[-1].snapshot.pods)
    watches = [q for verb, _, q in conn.counter.log if verb == "WATCH"]
    assert watches and all("allowWatchBookmarks=true" in q and "resourceVersion=" in q for q in watches)
    conn.close()
    setup.close()
