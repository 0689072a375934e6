"""DKIM signatures (RFC 6376) on our outgoing mails, for operators who send directly.

A mail relayed by a provider is signed by the provider; one that leaves by our own MTA is
not, and without a signature of the From domain it fails DMARC at the big mailbox providers.
The signature is made once, on the final bytes of a mail (see `pbem.letters.post`), so every retry
sends the very bytes that were signed. Relaxed/relaxed canonicalisation: what survives a relay
that refolds headers or trims line ends.

The algorithm follows from the key: an RSA key signs rsa-sha256 (what every verifier checks),
an Ed25519 key ed25519-sha256 (RFC 8463: short keys and signatures, not yet checked by every
verifier, so RFC 8463 advises signing with both; a `DkimSigner` with a `second` one does).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from pathlib import Path

#: The headers signed unless told otherwise: those a reader sees or a client acts on. A header
#: listed but absent from a mail is signed as absent, so nobody can add it on the way.
DEFAULT_HEADERS: tuple[str, ...] = (
    "From", "To", "Subject", "Date", "Message-ID", "Reply-To", "In-Reply-To", "References",
    "MIME-Version", "Content-Type", "Content-Transfer-Encoding", "Content-Language",
    "List-Unsubscribe", "Auto-Submitted", "Feedback-ID",
)

#: The smallest RSA key verifiers take (RFC 8301); 2048 bits is what to make.
MIN_BITS = 1024

RSA = "rsa-sha256"
ED25519 = "ed25519-sha256"

_PROBE = b"From: a@example.org\r\nTo: b@example.org\r\nSubject: probe\r\n\r\nprobe\r\n"
#: The DER of an Ed25519 private key in PKCS#8 (`openssl genpkey -algorithm ed25519`, RFC 8410):
#: this fixed prefix, then the 32 bytes of the key's seed.
_PKCS8_ED25519 = bytes.fromhex("302e020100300506032b657004220420")
_PEM_BLOCK = re.compile(rb"-----BEGIN ([A-Z0-9 ]+)-----\n(.*?)-----END \1-----", re.S)


@dataclass(frozen=True)
class DkimKey:
    """A private key as dkimpy takes it: PEM bytes (RSA) or the base64 of the seed (Ed25519)."""

    algorithm: str  # RSA or ED25519: the a= tag it signs with
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class DkimSigner:
    """Who signs (`domain`, the d= tag), with which key (found at `selector._domainkey.domain`)."""

    selector: str
    domain: str
    key: DkimKey
    headers: tuple[str, ...] = DEFAULT_HEADERS
    #: A second signature of the same mail (an Ed25519 one beside RSA), under its own selector.
    second: DkimSigner | None = None

    @property
    def algorithm(self) -> str:
        return self.key.algorithm

    def signature(self, message: bytes) -> bytes:
        """The DKIM-Signature header (CRLF-terminated) of this key alone for `message`."""
        import dkim  # only where DKIM is configured: dkimpy loads dnspython, a tenth of a second or more

        return dkim.sign(
            message, self.selector.encode("ascii"), self.domain.encode("ascii"), self.key.data,
            canonicalize=(b"relaxed", b"relaxed"), include_headers=[h.encode("ascii") for h in self.headers],
            signature_algorithm=self.key.algorithm.encode("ascii"), linesep=b"\r\n",
        )

    def sign(self, message: bytes) -> bytes:
        """`message` with a DKIM-Signature header in front (CRLF, as the mail's own lines); with a
        `second` signer, its signature of the same bytes on top of ours (neither signs the other)."""
        signed = self.signature(message) + message
        return signed if self.second is None else self.second.signature(message) + signed


def read_key(path: Path) -> DkimKey:
    """The private key in a file, RSA or Ed25519, checked by signing a probe with it.

    RSA: PEM, PKCS#1 or PKCS#8 (`openssl genrsa`), of at least 1024 bits. Ed25519: PEM PKCS#8
    (`openssl genpkey -algorithm ed25519`) or the one line of base64 that dkimpy's `dknewkey
    --ktype ed25519` writes. Raises ValueError with the reason (unreadable, no such key, too
    short), so a wrong file stops the daemon at start rather than every mail it sends."""
    import dkim

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read it: {exc.strerror}") from None
    data = data.replace(b"\r\n", b"\n")  # dkimpy's PEM reader takes LF lines only
    if b"ENCRYPTED" in data:
        raise ValueError("an encrypted private key; give it unencrypted (RSA or Ed25519, in PEM form)")
    seed = _ed25519_seed(data)
    if seed is not None:
        key = DkimKey(ED25519, base64.b64encode(seed))
        try:
            dkim.sign(_PROBE, b"probe", b"example.org", key.data, signature_algorithm=ED25519.encode("ascii"))
        except dkim.NaClNotFoundError:
            raise ValueError("an Ed25519 key, but PyNaCl, which signs with it, is not installed") from None
        except Exception as exc:  # whatever dkimpy or PyNaCl raises, this key cannot sign
            raise ValueError(f"an Ed25519 key that cannot sign ({type(exc).__name__})") from None
        return key
    if b"PRIVATE KEY-----" not in data:
        raise ValueError("no unencrypted RSA or Ed25519 private key in PEM form in it")
    try:
        bits = dkim.crypto.parse_pem_private_key(data)["modulus"].bit_length()
        dkim.sign(_PROBE, b"probe", b"example.org", data)
    except Exception as exc:  # whatever dkimpy's parser or signer raises, this key cannot sign
        raise ValueError(
            f"no RSA private key in it (PKCS#1 or PKCS#8) nor an Ed25519 one ({type(exc).__name__})"
        ) from None
    if bits < MIN_BITS:
        raise ValueError(f"an RSA key of {bits} bits; verifiers want at least {MIN_BITS} (make 2048)")
    return DkimKey(RSA, data)


def _ed25519_seed(data: bytes) -> bytes | None:
    """The 32-byte seed of an Ed25519 private key in `data` (PEM PKCS#8, or dknewkey's one line
    of base64), or None when `data` holds no such key."""
    block = _PEM_BLOCK.search(data)
    if block is not None:
        if block.group(1) != b"PRIVATE KEY":
            return None
        try:
            der = base64.b64decode(b"".join(block.group(2).split()), validate=True)
        except binascii.Error:
            return None
        return der[len(_PKCS8_ED25519):] if len(der) == 48 and der.startswith(_PKCS8_ED25519) else None
    text = data.strip()
    if b"\n" in text or b"-----" in text:
        return None
    try:
        seed = base64.b64decode(text, validate=True)
    except binascii.Error:
        return None
    return seed if len(seed) == 32 else None
