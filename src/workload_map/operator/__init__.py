"""The workload-map operator: reconciles Karta definitions and serves their admission webhooks.

Modules:
  * :mod:`.catalog_sync` — ``catalog install`` / ``catalog diff`` (server-side apply of the built-in catalog);
  * :mod:`.labels` — the ``run.ai/karta-*`` index labels;
  * :mod:`.reconcile` — pure status computation (conditions ``Validated``, ``CRDExists``, ``Ready``, events);
  * :mod:`.controller` — watches, work queue, status writes, events;
  * :mod:`.admission` — the validating and mutating webhook logic (pure functions);
  * :mod:`.webhook` — the TLS admission server; :mod:`.certs` — self-managed CA and serving certificates;
  * :mod:`.leader` — Lease-based leader election; :mod:`.health` — ``/healthz`` and ``/readyz``;
  * :mod:`.main` — ``python -m workload_map.operator``.
"""
