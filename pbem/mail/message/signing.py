"""DKIM signatures (RFC 6376) on our outgoing mails, for operators who send directly.

A mail relayed by a provider is signed by the provider; one that leaves by our own MTA is
not, and without a signature of the From domain it fails DMARC at the big mailbox providers.
The signature is made once, on the final bytes of a mail (see `pbem.letters.post`), so every retry
sends the very bytes that were signed. rsa-sha256 with relaxed/relaxed canonicalisation: what
every verifier checks, and what survives a relay that refolds headers or trims line ends.
"""

from __future__ import annotations

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

_PROBE = b"From: a@example.org\r\nTo: b@example.org\r\nSubject: probe\r\n\r\nprobe\r\n"


@dataclass(frozen=True)
class DkimSigner:
    """Who signs (`domain`, the d= tag), with which key (found at `selector._domainkey.domain`)."""

    selector: str
    domain: str
    key: bytes = field(repr=False)  # the PEM bytes of the private key
    headers: tuple[str, ...] = DEFAULT_HEADERS

    def sign(self, message: bytes) -> bytes:
        """`message` with a DKIM-Signature header in front (CRLF, as the mail's own lines)."""
        import dkim  # only where DKIM is configured: dkimpy loads dnspython, a tenth of a second or more

        signature = dkim.sign(
            message, self.selector.encode("ascii"), self.domain.encode("ascii"), self.key,
            canonicalize=(b"relaxed", b"relaxed"), include_headers=[h.encode("ascii") for h in self.headers],
            linesep=b"\r\n",
        )
        return signature + message


def read_key(path: Path) -> bytes:
    """The PEM bytes of an RSA private key file, checked by signing a probe with it.

    Raises ValueError with the reason (unreadable, no RSA private key in PEM, too short), so a
    wrong file stops the daemon at start rather than every mail it sends."""
    import dkim

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read it: {exc.strerror}") from None
    data = data.replace(b"\r\n", b"\n")  # dkimpy's PEM reader takes LF lines only
    if b"PRIVATE KEY-----" not in data or b"ENCRYPTED" in data:
        raise ValueError("no unencrypted RSA private key in PEM form in it")
    try:
        bits = dkim.crypto.parse_pem_private_key(data)["modulus"].bit_length()
        dkim.sign(_PROBE, b"probe", b"example.org", data)
    except Exception as exc:  # whatever dkimpy's parser or signer raises, this key cannot sign
        raise ValueError(f"no RSA private key in it, PKCS#1 or PKCS#8 ({type(exc).__name__})") from None
    if bits < MIN_BITS:
        raise ValueError(f"an RSA key of {bits} bits; verifiers want at least {MIN_BITS} (make 2048)")
    return data
