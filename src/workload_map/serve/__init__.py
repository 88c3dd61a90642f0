"""``wmap serve``: a live model of the cluster exported for Prometheus (docs/metrics.md)."""
