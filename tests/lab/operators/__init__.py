"""The contract between the lab (tests/lab/lab.py) and the operator launchers beside this module.

Each ``tests/lab/operators/<name>.py`` exports ``NAME`` (the binary's name in the lab's bin dir, as
``tools/lab/build.sh NAME`` builds it), ``VERSION`` (the operator release it is built from) and
``launch(ctx: OperatorContext) -> OperatorLaunch``. ``launch`` only describes the process: it writes what
the operator needs into ``ctx.work_dir`` (config files; certificates come from ``ctx.serving_cert()``) and
returns the command line, the CRDs and objects to apply first and the webhooks to register. The lab does the
rest: applies ``crds`` and waits until they are Established, applies ``before``, starts ``argv`` with ``env``
(its log kept in the lab's work dir), waits until ``ready_port`` accepts TLS on 127.0.0.1, then applies
``webhooks`` (their ``clientConfig.url`` points at ``https://127.0.0.1:PORT/...`` with ``caBundle`` set).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..certs import free_port, write_serving_cert

__all__ = ["OperatorContext", "OperatorLaunch", "ServingCert"]


@dataclass(frozen=True)
class ServingCert:
    """A self-signed serving certificate for 127.0.0.1 (subjectAltName IP:127.0.0.1)."""

    cert_file: Path
    key_file: Path
    dir: Path  # holds tls.crt and tls.key (the layout controller-runtime's webhook server reads)
    ca_bundle: bytes  # PEM the apiserver trusts cert_file with: the webhooks' clientConfig.caBundle


@dataclass(frozen=True)
class OperatorContext:
    """What the lab gives a launcher: where the cluster is, where the binaries are, a scratch dir."""

    kubeconfig: Path
    bin_dir: Path
    work_dir: Path  # this operator's scratch dir (config files, certificates)

    def serving_cert(self) -> ServingCert:
        """The certificate for 127.0.0.1 in ``work_dir/certs`` (made on the first call, the same afterwards)."""
        directory = self.work_dir / "certs"
        cert_file, key_file, ca_bundle = write_serving_cert(directory)
        return ServingCert(cert_file=cert_file, key_file=key_file, dir=directory, ca_bundle=ca_bundle)

    def free_port(self) -> int:
        """A port on 127.0.0.1 nothing listens on now, handed out only once in this test session."""
        return free_port()


@dataclass
class OperatorLaunch:
    """How to run one operator against the lab's cluster."""

    argv: list[str]
    env: dict[str, str]
    crds: list[Path]  # CRD YAML files (read in place), applied before start; the lab waits until Established
    before: list[dict[str, Any]]  # other objects applied before start (namespaces, config maps, ...)
    webhooks: list[dict[str, Any]]  # Mutating/ValidatingWebhookConfigurations by URL with caBundle set
    ready_port: int | None  # the port whose TLS handshake says the operator serves; webhooks applied after it
