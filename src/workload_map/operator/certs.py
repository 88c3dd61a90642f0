"""Self-managed webhook TLS: a CA and a serving certificate, kept in a Secret, rotated before expiry.

Every replica serves the certificate stored in the Secret, so all replicas present the same chain and the
``caBundle`` of the webhook configurations is the CA (plus the previous CA while a CA rotation is under way).
"""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from workload_map.ports.kube import ClusterError, Connection

log = logging.getLogger("workload_map.operator.certs")

CA_VALIDITY = dt.timedelta(days=3650)
SERVING_VALIDITY = dt.timedelta(days=365)
ROTATE_BEFORE = dt.timedelta(days=30)


@dataclass(frozen=True)
class CertBundle:
    ca_pem: bytes
    ca_key_pem: bytes
    cert_pem: bytes
    key_pem: bytes
    previous_ca_pem: bytes = b""

    @property
    def ca_bundle(self) -> bytes:
        """What the API server must trust: the CA, and the previous CA while it may still sign live certs."""
        return self.ca_pem + (self.previous_ca_pem if self.previous_ca_pem else b"")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _key_pem(key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization  # noqa: PLC0415 (cryptography only when certificates are made)

    return bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )


def generate_ca(
    common_name: str = "workload-map webhook CA", validity: dt.timedelta = CA_VALIDITY
) -> tuple[bytes, bytes]:
    from cryptography import x509  # noqa: PLC0415 (cryptography only when certificates are made)
    from cryptography.hazmat.primitives import hashes, serialization  # noqa: PLC0415 (cryptography only when certificates are made)
    from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415 (cryptography only when certificates are made)
    from cryptography.x509.oid import NameOID  # noqa: PLC0415 (cryptography only when certificates are made)

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + validity)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM), _key_pem(key)


def issue_serving(
    ca_pem: bytes, ca_key_pem: bytes, hosts: Sequence[str], validity: dt.timedelta = SERVING_VALIDITY
) -> tuple[bytes, bytes]:
    """A serving certificate for ``hosts`` (DNS names and IP addresses) signed by the CA."""
    from cryptography import x509  # noqa: PLC0415 (cryptography only when certificates are made)
    from cryptography.hazmat.primitives import hashes, serialization  # noqa: PLC0415 (cryptography only when certificates are made)
    from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415 (cryptography only when certificates are made)
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID  # noqa: PLC0415 (cryptography only when certificates are made)

    ca = x509.load_pem_x509_certificate(ca_pem)
    ca_key = serialization.load_pem_private_key(ca_key_pem, password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    sans: list[x509.GeneralName] = []
    for host in hosts:
        try:
            sans.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            sans.append(x509.DNSName(host))
    now = _now()
    not_after = min(now + validity, ca.not_valid_after_utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0] if hosts else "workload-map")]))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .sign(ca_key, hashes.SHA256())  # type: ignore[arg-type]
    )
    return cert.public_bytes(serialization.Encoding.PEM), _key_pem(key)


def not_after(pem: bytes) -> dt.datetime:
    from cryptography import x509  # noqa: PLC0415 (cryptography only when certificates are made)

    return x509.load_pem_x509_certificate(pem).not_valid_after_utc


def hosts_of(pem: bytes) -> set[str]:
    from cryptography import x509  # noqa: PLC0415 (cryptography only when certificates are made)

    cert = x509.load_pem_x509_certificate(pem)
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return set()
    return {str(v) for v in san.get_values_for_type(x509.DNSName)} | {
        str(v) for v in san.get_values_for_type(x509.IPAddress)
    }


def needs_rotation(pem: bytes, before: dt.timedelta = ROTATE_BEFORE) -> bool:
    return not_after(pem) - _now() < before


def service_hosts(service: str, namespace: str, extra: Sequence[str] = ()) -> list[str]:
    return [f"{service}.{namespace}.svc", f"{service}.{namespace}.svc.cluster.local", f"{service}.{namespace}", *extra]


class SecretCertStore:
    """The bundle in Secret ``name`` (keys ca.crt, ca.key, tls.crt, tls.key, prev-ca.crt)."""

    def __init__(  # noqa: PLR0917 - where the Secret is, then what it certifies
        self,
        connection: Connection,
        namespace: str,
        name: str,
        hosts: Sequence[str],
        rotate_before: dt.timedelta = ROTATE_BEFORE,
        serving_validity: dt.timedelta = SERVING_VALIDITY,
    ) -> None:
        self.connection = connection
        self.namespace = namespace
        self.name = name
        self.hosts = list(hosts)
        self.rotate_before = rotate_before
        self.serving_validity = serving_validity

    @property
    def path(self) -> str:
        return f"/api/v1/namespaces/{self.namespace}/secrets/{self.name}"

    def _read(self) -> tuple[CertBundle | None, dict[str, Any] | None]:
        try:
            secret = self.connection.request("GET", self.path, what=f"secret {self.namespace}/{self.name}")
        except ClusterError as exc:
            if exc.status == 404:
                return None, None
            raise
        data = secret.get("data") or {}
        try:
            ca, ca_key, cert, key = (base64.b64decode(data[k]) for k in ("ca.crt", "ca.key", "tls.crt", "tls.key"))
            bundle = CertBundle(ca, ca_key, cert, key, previous_ca_pem=base64.b64decode(data.get("prev-ca.crt", "")))
        except (KeyError, ValueError):
            return None, secret
        return bundle, secret

    def _encode(self, bundle: CertBundle) -> dict[str, str]:
        out = {
            "ca.crt": bundle.ca_pem,
            "ca.key": bundle.ca_key_pem,
            "tls.crt": bundle.cert_pem,
            "tls.key": bundle.key_pem,
        }
        if bundle.previous_ca_pem:
            out["prev-ca.crt"] = bundle.previous_ca_pem
        return {k: base64.b64encode(v).decode() for k, v in out.items()}

    def _fresh(self, bundle: CertBundle | None) -> CertBundle:
        """A bundle valid for long enough: reuse, reissue the serving cert, or rotate the CA."""
        if bundle is None:
            ca, ca_key = generate_ca()
            cert, key = issue_serving(ca, ca_key, self.hosts, self.serving_validity)
            return CertBundle(ca, ca_key, cert, key)
        ca, ca_key, previous = bundle.ca_pem, bundle.ca_key_pem, bundle.previous_ca_pem
        if needs_rotation(ca, self.rotate_before + self.serving_validity):
            # The old CA stays in the bundle so certificates it signed keep working during the switch.
            previous = ca
            ca, ca_key = generate_ca()
        elif previous and not_after(previous) < _now():
            previous = b""
        cert, key = bundle.cert_pem, bundle.key_pem
        if ca != bundle.ca_pem or needs_rotation(cert, self.rotate_before) or not set(self.hosts) <= hosts_of(cert):
            cert, key = issue_serving(ca, ca_key, self.hosts, self.serving_validity)
        return CertBundle(ca, ca_key, cert, key, previous)

    def ensure(self) -> tuple[CertBundle, bool]:
        """The current bundle, created or rotated when needed; ``changed`` tells whether it was written."""
        for _ in range(5):
            current, secret = self._read()
            fresh = self._fresh(current)
            if current == fresh:
                return fresh, False
            body: dict[str, Any] = {
                "apiVersion": "v1",
                "kind": "Secret",
                "type": "Opaque",
                "metadata": {
                    "name": self.name,
                    "namespace": self.namespace,
                    "labels": {"app.kubernetes.io/name": "workload-map"},
                },
                "data": self._encode(fresh),
            }
            try:
                if secret is None:
                    self.connection.request("POST", f"/api/v1/namespaces/{self.namespace}/secrets", body=body)
                else:
                    # The chart creates the Secret empty (so the operator needs no create on Secrets): keep
                    # its labels and annotations, Helm's ownership metadata among them, or the next
                    # `helm upgrade` refuses to adopt it.
                    existing = secret.get("metadata") or {}
                    body["metadata"]["labels"] = {**(existing.get("labels") or {}), **body["metadata"]["labels"]}
                    if existing.get("annotations"):
                        body["metadata"]["annotations"] = dict(existing["annotations"])
                    body["metadata"]["resourceVersion"] = existing["resourceVersion"]
                    self.connection.request("PUT", self.path, body=body)
            except ClusterError as exc:
                if exc.status in (409,):
                    continue  # another replica wrote it first: read theirs
                raise
            log.info(
                "webhook certificate written",
                extra={"secret": self.name, "expires": not_after(fresh.cert_pem).isoformat()},
            )
            return fresh, True
        raise ClusterError(f"could not write secret {self.namespace}/{self.name}: too many conflicts")


def patch_ca_bundle(
    connection: Connection, ca_bundle: bytes, validating: str | None, mutating: str | None
) -> list[str]:
    """Set ``caBundle`` on every webhook of the named configurations (only where it differs)."""
    patched = []
    encoded = base64.b64encode(ca_bundle).decode()
    for kind, name in (("validatingwebhookconfigurations", validating), ("mutatingwebhookconfigurations", mutating)):
        if not name:
            continue
        path = f"/apis/admissionregistration.k8s.io/v1/{kind}/{name}"
        try:
            config = connection.request("GET", path, what=f"{kind}/{name}")
        except ClusterError as exc:
            if exc.status == 404:
                log.warning("webhook configuration not found", extra={"kind": kind, "configuration": name})
                continue
            raise
        ops = []
        for index, hook in enumerate(config.get("webhooks") or []):
            if (hook.get("clientConfig") or {}).get("caBundle") != encoded:
                ops.append({"op": "add", "path": f"/webhooks/{index}/clientConfig/caBundle", "value": encoded})
        if ops:
            ops.insert(
                0, {"op": "test", "path": "/metadata/resourceVersion", "value": config["metadata"]["resourceVersion"]}
            )
            connection.request("PATCH", path, body=ops, content_type="application/json-patch+json")
            patched.append(f"{kind}/{name}")
    return patched
