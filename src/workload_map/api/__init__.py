"""The implementation of the public library API; its names are re-exported by ``workload_map``.

Nothing here is imported by a lower layer. Callers use ``import workload_map`` (docs/library.md); the
module layout below that is private and may change between minor versions.
"""
