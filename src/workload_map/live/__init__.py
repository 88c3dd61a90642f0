"""A live model of a cluster: one LIST + WATCH per resource, workloads re-resolved as events arrive.

``LiveModel`` (``workload_map.live.model``) keeps every covered workload resolved while the cluster
changes; ``wmap serve`` exports it (``workload_map.serve``). Objects are held projected
(``workload_map.live.projection``): pods, the bulk of a cluster, keep only what resolution reads.
"""
