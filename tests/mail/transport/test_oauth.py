"""The OAuth 2.0 token source against a real local token endpoint (`tests.oauth_server`) and real
commands: what it sends, how long it keeps a token, what a refusal says, and that no message
ever holds a secret."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.mail.transport.oauth import MARGIN, OAuthError, TokenSource, xoauth2
from tests.handclock import Clock
from tests.oauth_server import CLIENT_ID, CLIENT_SECRET, TokenServer


@pytest.fixture
def server() -> Iterator[TokenServer]:
    with TokenServer(lifetime=600) as tokens:
        yield tokens


def _source(server: TokenServer, clock: Clock | None = None, **changes: object) -> TokenSource:
    values: dict[str, object] = {
        "token_url": f"{server.url}/token",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "refresh_token": server.grant("game"),
        "timeout": 10.0,
    }
    if clock is not None:
        values["clock"] = clock
    values.update(changes)
    return TokenSource(**values)  # type: ignore[arg-type]


def test_a_token_is_kept_until_shortly_before_it_expires(server: TokenServer) -> None:
    clock = Clock()
    source = _source(server, clock, scope="a b")
    first = source.token()
    assert server.check(first) == "game"
    assert server.forms[-1]["grant_type"] == "refresh_token" and server.forms[-1]["scope"] == "a b"
    clock.now += 600 - MARGIN - 1
    assert source.token() == first and server.issued == 1
    clock.now += 2  # within the margin of its expiry: replaced before a server could refuse it
    second = source.token()
    assert second != first and server.issued == 2 and source.fetched == 2


def test_a_short_lived_token_is_kept_for_half_its_life(server: TokenServer) -> None:
    server.lifetime = 30  # shorter than the margin: still one fetch per 15 s, not one per login
    clock = Clock()
    source = _source(server, clock)
    first = source.token()
    clock.now += 14
    assert source.token() == first
    clock.now += 2
    assert source.token() != first and server.issued == 2


def test_invalidate_drops_only_the_token_that_was_refused(server: TokenServer) -> None:
    source = _source(server)
    old = source.token()
    assert source.invalidate(old) is True
    fresh = source.token()
    assert fresh != old
    assert source.invalidate(old) is False  # another session's late refusal of the old one
    assert source.token() == fresh and server.issued == 2


def test_a_rotated_refresh_token_is_used_from_then_on(server: TokenServer) -> None:
    server.rotate = True
    source = _source(server)
    granted = source.refresh_token
    source.token()
    assert source.refresh_token != granted
    source.invalidate()
    source.token()  # the old refresh token is gone at the server: this works only with the new one
    assert server.issued == 2


def test_a_refused_refresh_token_says_so_without_the_secrets(server: TokenServer) -> None:
    source = _source(server, refresh_token="rt-not-granted")
    with pytest.raises(OAuthError) as caught:
        source.token()
    assert not caught.value.temporary
    assert "invalid_grant" in str(caught.value) and "HTTP 400" in str(caught.value)
    assert "rt-not-granted" not in str(caught.value) and CLIENT_SECRET not in str(caught.value)
    with pytest.raises(OAuthError) as caught:
        _source(server, client_secret="wrong").token()
    assert "invalid_client" in str(caught.value) and "wrong" not in str(caught.value)


def test_an_unreachable_endpoint_is_temporary(server: TokenServer) -> None:
    url = f"{server.url}/token"
    server.stop()
    with pytest.raises(OAuthError) as caught:
        _source(server, token_url=url).token()
    assert caught.value.temporary and "unreachable" in str(caught.value)


def test_a_token_command_is_run_and_its_failures_named(tmp_path: Path) -> None:
    script = tmp_path / "helper.py"
    script.write_text("import sys\nprint(sys.argv[1])\nsys.exit(int(sys.argv[2]))\n", encoding="utf-8")
    assert TokenSource(command=f"{sys.executable} {script} tok-123 0").token() == "tok-123"
    with pytest.raises(OAuthError) as caught:
        TokenSource(command=f"{sys.executable} {script} tok-456 3").token()
    assert "exited with 3" in str(caught.value) and "tok-456" not in str(caught.value)
    with pytest.raises(OAuthError) as caught:
        TokenSource(command=f"{sys.executable} {script} '' 0").token()
    assert "no single access token" in str(caught.value)
    with pytest.raises(OAuthError) as caught:
        TokenSource(command=str(tmp_path / "no-such-helper")).token()
    assert caught.value.temporary and "could not run" in str(caught.value)


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({}, "not both or neither"),
        ({"command": "x", "token_url": "https://t.example/token"}, "not both or neither"),
        ({"token_url": "https://t.example/token", "client_id": "c"}, "refresh_token"),
        ({"token_url": "http://t.example/token", "client_id": "c", "refresh_token": "r"}, "https://"),
        ({"command": "  "}, "empty"),
    ],
)
def test_a_source_that_cannot_work_is_refused(values: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        TokenSource(**values)


def test_secrets_stay_out_of_the_repr_and_the_xoauth2_string_is_googles() -> None:
    source = TokenSource(token_url="https://t.example/token", client_id="c", client_secret="s3cret",
                         refresh_token="r3fresh")
    assert "s3cret" not in repr(source) and "r3fresh" not in repr(source)
    assert xoauth2("me@example.org", "tok") == "user=me@example.org\x01auth=Bearer tok\x01\x01"


@pytest.mark.integration
def test_servers_without_xoauth2_are_named_as_a_setting_to_fix(mailrig) -> None:
    """The session's rig takes passwords only: no token is fetched, and each side says what is wrong."""
    import asyncio

    from pbem.mail.transport import smtp
    from pbem.mail.transport.imap import ImapSource, MailboxLoginFailed

    source = TokenSource(command=f"{sys.executable} -c 'print(\"tok-never-sent\")'")
    with ImapSource(mailrig.imap_settings(password=None, oauth2=source)) as mailbox, \
            pytest.raises(MailboxLoginFailed) as caught:
        mailbox.fetch()
    assert "no AUTHENTICATE XOAUTH2" in str(caught.value) and "check the IMAP host and auth" in str(caught.value)
    settings = mailrig.smtp_settings(username="game", oauth2=source)
    with pytest.raises(smtp.ConfigurationFailure) as failed:
        asyncio.run(smtp.send(settings, mailrig.address("game"), mailrig.address("alice"), b"Subject: x\r\n\r\nx\r\n"))
    assert "does not offer AUTH XOAUTH2" in str(failed.value)
    assert source.fetched == 0
