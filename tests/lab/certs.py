"""Self-signed serving certificates for webhooks the lab's operators serve on 127.0.0.1."""

from __future__ import annotations

import datetime as dt
import ipaddress
import socket
import threading
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_lock = threading.Lock()
_handed_out: set[int] = set()


def write_serving_cert(directory: Path) -> tuple[Path, Path, bytes]:
    """tls.crt/tls.key for IP:127.0.0.1 and DNS:localhost in ``directory`` (made once, then reused).

    The certificate is its own CA (basicConstraints CA:TRUE), so its PEM is the caBundle the apiserver
    needs to call the webhook."""
    cert_file, key_file = directory / "tls.crt", directory / "tls.key"
    with _lock:
        if not (cert_file.is_file() and key_file.is_file()):
            directory.mkdir(parents=True, exist_ok=True)
            key = ec.generate_private_key(ec.SECP256R1())
            name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "workload-map lab webhook")])
            now = dt.datetime.now(dt.UTC)
            cert = (
                x509.CertificateBuilder()
                .subject_name(name)
                .issuer_name(name)
                .public_key(key.public_key())
                .serial_number(x509.random_serial_number())
                .not_valid_before(now - dt.timedelta(hours=1))
                .not_valid_after(now + dt.timedelta(days=30))
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .add_extension(
                    x509.SubjectAlternativeName(
                        [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
                    ),
                    critical=False,
                )
                .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .sign(key, hashes.SHA256())
            )
            key_file.write_bytes(
                key.private_bytes(
                    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
                )
            )
            key_file.chmod(0o600)
            cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_file, key_file, cert_file.read_bytes()


def free_port() -> int:
    """A port on 127.0.0.1 free now and never handed out before by this process (two operators started
    one after the other must not both be given a port the first has not bound yet)."""
    with _lock:
        while True:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.bind(("127.0.0.1", 0))
                port = int(s.getsockname()[1])
            if port not in _handed_out:
                _handed_out.add(port)
                return port
