"""DKIM signing (pbem.mail.message.signing) and its settings: a key that works signs, any other stops
the start with one message that names `dkim_key_file`."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import dkim
import pytest

from pbem.core import config
from pbem.core.config import ConfigError, Settings, parse
from pbem.mail.message.signing import DkimSigner, read_key
from tests.dkimkeys import dns, make_key

MAIL = (
    b"From: pbem <pbem@games.test>\r\nTo: alice@example.org\r\nSubject: [pbem] hello\r\n"
    b"Message-ID: <pbem.1@games.test>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain\r\n\r\nf2\r\n"
)


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, bytes]]:
    folder = tmp_path_factory.mktemp("keys")
    return {form: (folder / f"{form}.pem", make_key(folder / f"{form}.pem", form=form)) for form in ("pkcs1", "pkcs8")}


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
        (b"", "no unencrypted RSA private key"),
        (b"-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n", "no RSA private key in it"),
        (b"-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n", "unencrypted"),
        (b"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n", "no unencrypted RSA private key"),
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
    assert message.startswith(f'[server] dkim_key_file = "{path}": allowed: a PEM file') and reason in message
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
    """The commented DKIM lines of deploy/pbem.toml, uncommented, are valid settings that sign."""
    text = (Path(__file__).resolve().parents[2] / "deploy" / "pbem.toml").read_text(encoding="utf-8")
    lines = [line[2:] for line in text.splitlines() if line.startswith("# dkim_")]
    assert [line.split(" ")[0] for line in lines] == ["dkim_selector", "dkim_key_file", "dkim_domain", "dkim_headers"]
    (tmp_path / "dkim.pem").write_bytes(keys["pkcs1"][0].read_bytes())
    server = __import__("tomllib").loads("\n".join(lines).replace("/etc/pbem/", f"{tmp_path}/"))
    settings = parse({"server": {"address": "games@example.org", **server}})
    assert settings.dkim is not None and settings.dkim.domain == "example.org"
    assert settings.dkim.sign(MAIL).startswith(b"DKIM-Signature: ")
