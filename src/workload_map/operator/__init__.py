"""The workload-map operator: reconciles Karta definitions and serves their admission webhooks.

Catalog installation (``wmap catalog install|diff``) is a cluster operation the CLI shares:
:mod:`workload_map.api.catalog_install`; the ``run.ai/karta-*`` index labels are part of the Karta object
contract: :mod:`workload_map.crd.labels`.

Modules:
  * :mod:`.reconcile` — pure status computation (conditions ``Validated``, ``CRDExists``, ``Ready``, events);
  * :mod:`.controller` — watches, work queue, status writes, events;
  * :mod:`.admission` — the validating and mutating webhook logic (pure functions);
  * :mod:`.server` — the TLS admission server and ``/healthz``, ``/readyz``; :mod:`.certs` — self-managed CA
    and serving certificates;
  * :mod:`.leader` — Lease-based leader election;
  * :mod:`.main` — ``python -m workload_map.operator``.
"""
