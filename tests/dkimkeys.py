"""DKIM keys made in the test, and the DNS answer that publishes one (no DNS is asked)."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

PEM = serialization.Encoding.PEM
FORMATS = {"pkcs1": serialization.PrivateFormat.TraditionalOpenSSL, "pkcs8": serialization.PrivateFormat.PKCS8}


def make_key(path: Path, bits: int = 2048, form: str = "pkcs1") -> bytes:
    """Write a new RSA private key to `path` as `openssl genrsa` would; returns the TXT record
    that publishes its public half (`v=DKIM1; k=rsa; p=...`)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    path.write_bytes(key.private_bytes(PEM, FORMATS[form], serialization.NoEncryption()))
    public = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)


def make_ed25519_key(path: Path, form: str = "pem") -> bytes:
    """Write a new Ed25519 private key to `path`, as `openssl genpkey -algorithm ed25519` would
    (`form` "pem") or as dkimpy's `dknewkey --ktype ed25519` does (`form` "base64": the seed on
    one line); returns the TXT record that publishes its public half (`v=DKIM1; k=ed25519; p=...`,
    RFC 8463: the 32 bytes of the public key, not a SubjectPublicKeyInfo)."""
    key = ed25519.Ed25519PrivateKey.generate()
    raw = serialization.Encoding.Raw
    if form == "pem":
        path.write_bytes(key.private_bytes(PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    else:
        seed = key.private_bytes(raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
        path.write_bytes(base64.b64encode(seed) + b"\n")
    return b"v=DKIM1; k=ed25519; p=" + base64.b64encode(key.public_key().public_bytes(raw, serialization.PublicFormat.Raw))


def dns(records: dict[str, bytes], asked: list[str] | None = None) -> Callable[..., bytes | None]:
    """A `dnsfunc` for `dkim.verify`: the TXT record of each name (`sel._domainkey.dom.`)."""

    def lookup(name: bytes, timeout: float = 5) -> bytes | None:
        text = name.decode("ascii")
        if asked is not None:
            asked.append(text)
        return records.get(text)

    return lookup
