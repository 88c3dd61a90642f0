"""The test cluster under pytest-xdist: a port found free may be taken before kube-apiserver binds it."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from tests.cluster import apiserver
from tests.cluster.apiserver import TestCluster


def test_an_apiserver_port_taken_meanwhile_is_replaced_by_another(
    testcluster_bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = int(taken.getsockname()[1])
        start_etcd, free_port = TestCluster._start_etcd, apiserver._free_port
        handed: list[int] = []

        def etcd_then_the_busy_port(cluster: TestCluster) -> None:
            start_etcd(cluster)
            handed.append(busy)  # the apiserver's first port is the one another process took meanwhile

        def port() -> int:
            return handed.pop() if handed else free_port()

        monkeypatch.setattr(TestCluster, "_start_etcd", etcd_then_the_busy_port)
        monkeypatch.setattr(apiserver, "_free_port", port)
        with TestCluster(testcluster_bin_dir) as cluster:
            assert cluster.apiserver_port != busy
            assert cluster.kubectl("get", "namespace", "default").returncode == 0
            assert "address already in use" in cluster.apiserver_log.read_text()
