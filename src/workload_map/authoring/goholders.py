"""Methods of a type that holds the kind as a field (``--api-source``, gochildren.py).

An operator often keeps the object it reconciles in a builder or deployer struct (``type podBuilder struct {
*Common }`` with ``Common`` holding ``Cluster *api.Kind``), made from a ``client.Object`` by a type
assertion behind an interface, and calls its methods through that interface. The calls cannot be followed
from the reconcile loop, and the methods neither take nor name the kind: their receiver holds it. Such a
method is one more start of the search for the workloads the kind makes.
"""

from __future__ import annotations

from workload_map.authoring.gofuncs import GoFunc
from workload_map.authoring.goread import GoType, bare_type
from workload_map.authoring.gosource import _Linker

# Embedded structs followed this deep (a builder embedding a common builder embedding the holder).
MAX_EMBEDDING_DEPTH = 3


def _struct_holds(linker: _Linker, declared: GoType, kind: GoType, depth: int) -> bool:
    """Whether the struct ``declared`` has a named field of the kind, or embeds a struct that has."""
    if declared.underlying != "struct" or declared is kind or depth > MAX_EMBEDDING_DEPTH:
        return False
    for go_field in declared.fields:
        inner = go_field.type_expr.lstrip("*")
        if go_field.names:
            if bare_type(inner)[1] == kind.name and linker.resolve(inner, declared.file) is kind:
                return True
            continue
        embedded = linker.resolve(inner, declared.file)
        if embedded is not None and _struct_holds(linker, embedded, kind, depth + 1):
            return True
    return False


def receiver_holds_kind(linker: _Linker, function: GoFunc, kind: GoType) -> bool:
    """A method whose receiver type is a struct of the repository holding the kind (``func (b *podBuilder)
    generate(item *api.ItemSpec)`` with ``podBuilder`` embedding a struct with ``Cluster *api.Kind``)."""
    if not function.receiver:
        return False
    declared = linker.resolve(function.receiver, function.file)
    return declared is not None and _struct_holds(linker, declared, kind, 0)
