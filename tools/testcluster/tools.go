//go:build tools

// Package tools pins the commands built by build.sh (kube-apiserver, kubectl, etcd) and by
// tools/lab/build.sh (kube-controller-manager, kube-scheduler: same module graph, so the
// Kubernetes libraries compile once for all five). It is never compiled into
// anything shipped: the build tag keeps it out of every normal build, while
// `go mod tidy` still records the dependencies of the imported commands.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
