"""Deterministic generator of a realistic AI-cluster dump (workloads + operator-created children + pods + nodes).

Every framework has exactly one builder, in its own module under ``frameworks/``; a builder turns a ``W`` (name,
namespace, state and a small "shape" dict) into ``Built(workload, children, pods)`` the way that framework's
operator would: the same child kinds and names, ownerReferences with uid + ``controller: true``, the operator's
pod labels/annotations and the framework's own status fields/conditions/reasons (see
../shared/corpus/<framework>/FACTS.md and live/). Pod counts always follow the spec arithmetic of the shape (e.g.
JobSet Σ replicas × parallelism, Ray 1 + Σ replicas × numOfHosts, LWS replicas × size), minus what the operator
really removes in terminal states (a completed MPIJob's workers, a finished RayJob's cluster, a failed JobSet's
still-active Jobs).

Everything random comes from one ``random.Random(seed)``; timestamps are relative to a fixed ``BASE_TIME``.

Modules: ``core`` (context, ids, objects, conditions), ``pods`` (containers, pods, Services, templates),
``controllers`` (the built-in Job, Deployment and StatefulSet controllers operators reuse), ``registry``
(``@framework``), ``frameworks.*`` (one per framework), ``cluster`` (whole-cluster generation and the example),
``output`` (YAML/JSON). The command line is ``bench/gen_cluster.py``.
"""
