"""DKIM signing (pbem.mail.message.signing) and its settings: a key that works signs, RSA or Ed25519
(RFC 8463) or both at once, and any other stops the start with one message that names the setting."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import dkim
import pytest

from pbem.core import config
from pbem.core.config import ConfigError, Settings, parse
from pbem.mail.message.signing import ED25519, RSA, DkimSigner, read_key
from tests.dkimkeys import dns, make_ed25519_key, make_key

MAIL = (
    b"From: pbem <pbem@games.test>\r\nTo: alice@example.org\r\nSubject: [pbem] hello\r\n"
    b"Message-ID: <pbem.1@games.test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\nf2\r\n"
)


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, bytes]]:
    folder = tmp_path_factory.mktemp("keys")
    keys = {form: (folder / f"{form}.pem", make_key(folder / f"{form}.pem", form=form)) for form in ("pkcs1", "pkcs8")}
    for form in ("pem", "base64"):
        path = folder / f"ed25519-{form}.key"
        keys[f"ed25519-{form}"] = (path, make_ed25519_key(path, form=form))
    return keys


@pytest.mark.parametrize("form", ["pkcs1", "pkcs8"])
def test_a_signed_mail_verifies_and_a_changed_one_does_not(keys, form: str) -> None:
    path, record = keys[form]
    signed = DkimSigner("pbem1", "games.test", read_key(path)).sign(MAIL)
    asked: list[str] = []
    lookup = dns({"pbem1._domainkey.games.test.": record}, asked)
    assert signed.endswith(MAIL) and signed.startswith(b"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=games.test;")
    assert dkim.verify(signed, dnsfunc=lookup) and asked == ["pbem1._domainkey.games.test."]
    assert not dkim.verify(signed.replace(b"\r\nf2\r\n", b"\r\nresign\r\n"), dnsfunc=lookup)
    assert not dkim.verify(signed.replace(b"[pbem] hello", b"[pbem] hullo"), dnsfunc=lookup)
    # relaxed/relaxed: a relay that refolds a header or pads a line end breaks nothing
    assert dkim.verify(signed.replace(b"Subject: [pbem] hello", b"Subject:  [pbem]\r\n  hello"), dnsfunc=lookup)
    assert dkim.verify(signed.replace(b"\r\nf2\r\n", b"\r\nf2  \r\n"), dnsfunc=lookup)


def test_a_pem_file_with_crlf_lines_is_read(keys, tmp_path: Path) -> None:
    path, record = keys["pkcs1"]
    crlf = tmp_path / "crlf.pem"
    crlf.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    signed = DkimSigner("s", "games.test", read_key(crlf)).sign(MAIL)
    assert dkim.verify(signed, dnsfunc=dns({"s._domainkey.games.test.": record}))


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (None, "cannot read it"),
        (b"", "no unencrypted RSA or Ed25519 private key"),
        (b"-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n", "no RSA private key in it"),
        (b"-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n", "unencrypted"),
        (b"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "no unencrypted RSA or Ed25519 private key"),
        (b"c2hvcnQ=\n", "no unencrypted RSA or Ed25519 private key"),  # base64, but not 32 bytes
    ],
)
def test_a_wrong_key_file_is_refused_with_the_reason(tmp_path: Path, content: bytes | None, reason: str) -> None:
    path = tmp_path / "key.pem"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ValueError, match=reason):
        read_key(path)
    with pytest.raises(ConfigError) as caught:
        parse({"server": {"dkim_selector": "pbem1", "dkim_key_file": str(path)}})
    message = str(caught.value)
    assert message.startswith(f'[server] dkim_key_file = "{path}": allowed: a file with an RSA private key') and reason in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("server", "words"),
    [
        ({"dkim_selector": "pbem1"}, ["[server] dkim_key_file", "needed with dkim_selector"]),
        ({"dkim_key_file": "KEY"}, ["[server] dkim_key_file", "dkim_selector is missing"]),
        ({"dkim_selector": "pbem 1", "dkim_key_file": "KEY"}, ['dkim_selector = "pbem 1"', "a DNS label"]),
        ({"dkim_selector": "s", "dkim_key_file": "KEY", "dkim_domain": "-x.org"}, ['dkim_domain = "-x.org"']),
        ({"dkim_selector": "s", "dkim_key_file": "KEY", "dkim_headers": ["To"]}, ["From must be signed"]),
        ({"dkim_selector": "s", "dkim_key_file": "KEY", "dkim_headers": ["From", "X Y"]}, ["not a header name"]),
        ({"dkim_key": "-----BEGIN RSA PRIVATE KEY-----"}, ["dkim_key must not be written inline; use dkim_key_file"]),
    ],
)
def test_wrong_dkim_settings_are_named(keys, server: dict, words: list[str]) -> None:
    server = {key: str(keys["pkcs1"][0]) if value == "KEY" else value for key, value in server.items()}
    with pytest.raises(ConfigError) as caught:
        parse({"server": server})
    for word in words:
        assert word in str(caught.value)


def test_the_signer_is_read_once_with_the_address_domain_by_default(keys) -> None:
    path = keys["pkcs8"][0]
    assert Settings().dkim is None
    settings = parse({"server": {"address": "games@exämple.org", "dkim_selector": "pbem1", "dkim_key_file": str(path)}})
    assert settings.dkim is not None and settings.dkim is settings.dkim
    assert (settings.dkim.selector, settings.dkim.domain) == ("pbem1", "xn--exmple-cua.org")
    assert settings.dkim.headers[0] == "From" and "List-Unsubscribe" in settings.dkim.headers
    assert dataclasses.replace(settings, dkim_domain="mail.example.org").dkim.domain == "mail.example.org"
    assert dataclasses.replace(settings, dkim_selector=None, dkim_key_file=None).dkim is None
    shown = config.render(config.effective(settings))
    assert 'dkim_domain = "xn--exmple-cua.org"' in shown and f'dkim_key_file = "{path}"' in shown
    assert b"PRIVATE" not in shown.encode() and "BEGIN" not in shown
    assert "private" not in repr(settings.dkim).lower()


def test_the_commented_dkim_example_loads(keys, tmp_path: Path) -> None:
    """The commented DKIM lines of deploy/pbem.toml, uncommented, are valid settings that sign,
    with RSA and Ed25519 both."""
    text = (Path(__file__).resolve().parents[3] / "deploy" / "pbem.toml").read_text(encoding="utf-8")
    lines = [line[2:] for line in text.splitlines() if line.startswith("# dkim_")]
    assert [line.split(" ")[0] for line in lines] == [
        "dkim_selector", "dkim_key_file", "dkim_domain", "dkim_headers", "dkim_ed25519_selector", "dkim_ed25519_key_file",
    ]
    (tmp_path / "dkim.pem").write_bytes(keys["pkcs1"][0].read_bytes())
    (tmp_path / "dkim-ed25519.pem").write_bytes(keys["ed25519-pem"][0].read_bytes())
    server = __import__("tomllib").loads("\n".join(lines).replace("/etc/pbem/", f"{tmp_path}/"))
    settings = parse({"server": {"address": "games@example.org", **server}})
    assert settings.dkim is not None and settings.dkim.domain == "example.org"
    assert settings.dkim.second is not None and settings.dkim.second.algorithm == ED25519
    assert settings.dkim.sign(MAIL).startswith(b"DKIM-Signature: v=1; a=ed25519-sha256; ")
    assert settings.dkim.sign(MAIL).count(b"DKIM-Signature: v=1; a=rsa-sha256; ") == 1


@pytest.mark.parametrize("form", ["pem", "base64"])
def test_an_ed25519_key_signs_ed25519_sha256_and_dkimpy_verifies_it(keys, form: str) -> None:
    """RFC 8463: the algorithm follows from the key; the record publishes the bare public key."""
    path, record = keys[f"ed25519-{form}"]
    key = read_key(path)
    assert key.algorithm == ED25519 and read_key(keys["pkcs1"][0]).algorithm == RSA
    signed = DkimSigner("pbem1e", "games.test", key).sign(MAIL)
    assert signed.startswith(b"DKIM-Signature: v=1; a=ed25519-sha256; c=relaxed/relaxed; d=games.test;")
    lookup = dns({"pbem1e._domainkey.games.test.": record})
    assert dkim.verify(signed, dnsfunc=lookup)
    assert not dkim.verify(signed.replace(b"\r\nf2\r\n", b"\r\nresign\r\n"), dnsfunc=lookup)
    assert not dkim.verify(signed, dnsfunc=dns({"pbem1e._domainkey.games.test.": keys["ed25519-base64" if form == "pem" else "ed25519-pem"][1]}))


def test_rsa_and_ed25519_sign_the_same_mail_and_each_signature_verifies(keys) -> None:
    """The double signature RFC 8463 advises: a verifier that knows only RSA checks that one, and
    neither signature covers the other, so either verifies alone."""
    rsa_path, rsa_record = keys["pkcs8"]
    ed_path, ed_record = keys["ed25519-pem"]
    settings = parse({"server": {"address": "games@games.test", "dkim_selector": "pbem1", "dkim_key_file": str(rsa_path),
                                 "dkim_ed25519_selector": "pbem1e", "dkim_ed25519_key_file": str(ed_path)}})
    assert settings.dkim is not None and settings.dkim.second is not None
    signed = settings.dkim.sign(MAIL)
    lookup = dns({"pbem1._domainkey.games.test.": rsa_record, "pbem1e._domainkey.games.test.": ed_record})
    headers = [line for line in signed.split(b"\r\n") if line.startswith(b"DKIM-Signature:")]
    assert [h.split(b";")[1].strip() for h in headers] == [b"a=ed25519-sha256", b"a=rsa-sha256"]
    checker = dkim.DKIM(signed)
    assert checker.verify(idx=0, dnsfunc=lookup) and checker.verify(idx=1, dnsfunc=lookup)
    # each on its own, as a verifier that knows one algorithm sees it
    assert dkim.verify(settings.dkim.signature(MAIL) + MAIL, dnsfunc=lookup)
    changed = dkim.DKIM(signed.replace(b"[pbem] hello", b"[pbem] hullo"))
    assert not changed.verify(idx=0, dnsfunc=lookup) and not changed.verify(idx=1, dnsfunc=lookup)
    shown = config.render(config.effective(settings))
    assert f'dkim_ed25519_key_file = "{ed_path}"' in shown and "BEGIN" not in shown


@pytest.mark.parametrize(
    ("server", "words"),
    [
        ({"dkim_ed25519_selector": "e"}, ["[server] dkim_ed25519_key_file", "needed with dkim_ed25519_selector"]),
        ({"dkim_selector": "s", "dkim_key_file": "RSA", "dkim_ed25519_key_file": "ED"}, ["dkim_ed25519_selector is missing"]),
        ({"dkim_ed25519_selector": "e", "dkim_ed25519_key_file": "ED"}, ["give the RSA key in dkim_key_file"]),
        ({"dkim_selector": "s", "dkim_key_file": "RSA", "dkim_ed25519_selector": "S", "dkim_ed25519_key_file": "ED"},
         ["must differ from dkim_selector"]),
        ({"dkim_selector": "s", "dkim_key_file": "RSA", "dkim_ed25519_selector": "e", "dkim_ed25519_key_file": "RSA"},
         ["an RSA key; the second signature takes an Ed25519 one"]),
        ({"dkim_selector": "s", "dkim_key_file": "ED", "dkim_ed25519_selector": "e", "dkim_ed25519_key_file": "ED"},
         ["dkim_key_file holds an Ed25519 key too"]),
    ],
)
def test_wrong_double_signature_settings_are_named(keys, server: dict, words: list[str]) -> None:
    files = {"RSA": str(keys["pkcs1"][0]), "ED": str(keys["ed25519-pem"][0])}
    server = {key: files.get(value, value) for key, value in server.items()}
    with pytest.raises(ConfigError) as caught:
        parse({"server": server})
    assert "\n" not in str(caught.value)
    for word in words:
        assert word in str(caught.value)


def test_an_ed25519_key_alone_in_dkim_key_file_signs_with_it(keys) -> None:
    settings = parse({"server": {"address": "games@games.test", "dkim_selector": "pbem1e",
                                 "dkim_key_file": str(keys["ed25519-base64"][0])}})
    assert settings.dkim is not None and settings.dkim.algorithm == ED25519 and settings.dkim.second is None
    signed = settings.dkim.sign(MAIL)
    assert signed.count(b"DKIM-Signature:") == 1
    assert dkim.verify(signed, dnsfunc=dns({"pbem1e._domainkey.games.test.": keys["ed25519-base64"][1]}))
