"""Test infrastructure: a real etcd + kube-apiserver started from built binaries."""

from .apiserver import TestCluster, TestClusterError

__all__ = ["TestCluster", "TestClusterError"]
