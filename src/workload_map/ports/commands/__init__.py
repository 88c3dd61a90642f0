"""Port: the back-ends of the commands that act on a cluster or write a file (``wmap catalog``, ``wmap
snapshot``, ``wmap record``, ``wmap auth``), the RBAC a reader needs (the operator's too), and reading
definition files as the public API reads them (shell completion)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workload_map.ports import lazy_exports

if TYPE_CHECKING:
    from workload_map.api.catalog_install import diff as diff, install as install, select as select
    from workload_map.api.definitions import (
        builtin_with_warnings as builtin_with_warnings,
        definition_files as definition_files,
        read_documents as read_documents,
        split_dump as split_dump,
    )
    from workload_map.api.snapshot_export import (
        snapshot_document as snapshot_document,
        with_capacity as with_capacity,
        write_snapshot as write_snapshot,
    )
    from workload_map.sources.kube.access import (
        READ as READ,
        cli_manifests as cli_manifests,
        cli_rules as cli_rules,
        operator_read_rules as operator_read_rules,
        plural as plural,
        serve_rules as serve_rules,
    )
    from workload_map.sources.kube.reads import operator_read_kinds as operator_read_kinds
    from workload_map.sources.kube.record import (
        RecordEnd as RecordEnd,
        Recorder as Recorder,
        StatusChange as StatusChange,
    )

_EXPORTS: dict[str, tuple[str, ...]] = {
    # `wmap catalog install|diff`: the built-in definitions as Karta objects on a cluster
    "workload_map.api.catalog_install": ("diff", "install", "select"),
    "workload_map.api.definitions": ("builtin_with_warnings", "definition_files", "read_documents", "split_dump"),
    # `wmap snapshot`: a live read as one dump file
    "workload_map.api.snapshot_export": ("snapshot_document", "with_capacity", "write_snapshot"),
    # the verbs and kinds a reader needs: `wmap auth` and the operator's chart
    "workload_map.sources.kube.access": (
        "READ",
        "cli_manifests",
        "cli_rules",
        "operator_read_rules",
        "plural",
        "serve_rules",
    ),
    # the kinds the operator reads: what its chart's RBAC grants
    "workload_map.sources.kube.reads": ("operator_read_kinds",),
    # `wmap record`: one workload's transitions as a recording
    "workload_map.sources.kube.record": ("RecordEnd", "Recorder", "StatusChange"),
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
