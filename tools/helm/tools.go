//go:build tools

// Package tools pins the helm command built by build.sh. Test-only: it is never
// compiled into anything shipped; `go mod tidy` records helm's dependency graph.
package tools

import (
	_ "helm.sh/helm/v3/cmd/helm"
)
