"""TLS for the service: the server's certificate and key, the clients' trusted roots.

A client speaks TLS unless told ``plaintext``: it trusts the CA file it is given, else the
system's roots (the bundle OpenSSL is configured with), so a server with a certificate from
a public CA needs nothing on the client's side.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import grpc  # imported where a channel or credentials are made: ClientTls alone is light


@dataclass(frozen=True)
class ClientTls:
    ca: Path | None = None  # trusted roots; None: the system's
    plaintext: bool = False  # no TLS at all: only for a server on loopback or a trusted net


def _read(path: Path, what: str) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ValueError(f"cannot read the {what} {path}: {e.strerror or e}") from None
    if b"-----BEGIN " not in data:
        raise ValueError(f"the {what} {path} is not PEM")
    return data


def server_credentials(cert: Path, key: Path) -> grpc.ServerCredentials:
    import grpc

    return grpc.ssl_server_credentials([(_read(key, "TLS key"), _read(cert, "TLS certificate"))])


def system_roots() -> bytes | None:
    """The system's CA bundle, or None (gRPC's own) when there is none."""
    cafile = ssl.get_default_verify_paths().cafile
    if cafile and Path(cafile).is_file():
        return Path(cafile).read_bytes()
    return None


def client_channel(address: str, tls: ClientTls) -> grpc.Channel:
    import grpc

    if tls.plaintext:
        return grpc.insecure_channel(address)
    roots = _read(tls.ca, "TLS CA file") if tls.ca else system_roots()
    return grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=roots))
