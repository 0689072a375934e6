"""OAuth 2.0 by real mail: the daemon logs in to Dovecot (its oauth2 passdb) and to the rig's
SMTP front end with SASL XOAUTH2, both checking the tokens at a local introspection endpoint
(`tests.oauth_server`), and a game is played: a challenge, its acceptance and one move. The
tokens come from a refresh token at the local token endpoint, or from a token_command. When
the provider revokes them, each server refuses the old token once, the daemon says so in one
line, fetches a fresh token and goes on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import Session, select

from pbem.core.db import make_engine
from pbem.core.models import Move
from tests.dovecot import RigUnavailable
from tests.integration.daemon import DaemonProcess
from tests.integration.waits import scaled
from tests.mailer import compose, parse, reply_to, text
from tests.mailrig import MailRig, missing_requirements
from tests.needs import missing
from tests.oauth_server import CLIENT_ID, CLIENT_SECRET, TokenServer

pytestmark = pytest.mark.integration

REFUSED = "refused the OAuth 2.0 access token"
# A secrets helper as an operator might write one: it asks the token endpoint and prints the token.
HELPER = """\
import json, os, sys, urllib.parse, urllib.request
form = {"grant_type": "refresh_token", "refresh_token": os.environ["PBEM_TEST_REFRESH_TOKEN"],
        "client_id": sys.argv[2], "client_secret": os.environ["PBEM_TEST_CLIENT_SECRET"]}
with urllib.request.urlopen(sys.argv[1], urllib.parse.urlencode(form).encode(), timeout=10) as answer:
    print(json.load(answer)["access_token"])
"""


@pytest.fixture(scope="module")
def oauth_rig() -> Iterator[tuple[TokenServer, MailRig]]:
    """The token server and a rig of its own whose IMAP and SMTP take XOAUTH2 (and passwords)."""
    problem = missing_requirements()
    if problem:
        missing(problem, f"mail integration tests need Dovecot in CI: {problem}")
    with TokenServer() as tokens:
        try:
            rig = MailRig(oauth_url=tokens.url).start()
        except RigUnavailable as exc:
            missing(str(exc), f"the OAuth 2.0 tests need the rig's oauth2 passdb: {exc}")
        try:
            yield tokens, rig
        finally:
            rig.stop()


@pytest.fixture
def setup(oauth_rig: tuple[TokenServer, MailRig]) -> tuple[TokenServer, MailRig]:
    tokens, rig = oauth_rig
    rig.purge()
    tokens.reset()
    return tokens, rig


def _refresh_flow(tokens: TokenServer) -> dict:
    return {
        "auth": "oauth2",
        "oauth2_provider": "generic",
        "client_id": CLIENT_ID,
        "client_secret_env": "PBEM_TEST_CLIENT_SECRET",
        "refresh_token_env": "PBEM_TEST_REFRESH_TOKEN",
        "token_url": f"{tokens.url}/token",
    }


def _command_flow(tokens: TokenServer, home: Path) -> dict:
    home.mkdir(parents=True, exist_ok=True)
    (home / "token-helper.py").write_text(HELPER, encoding="utf-8")
    command = f"{sys.executable} {home / 'token-helper.py'} {tokens.url}/token {CLIENT_ID}"
    return {"auth": "oauth2", "token_command": command}


def _start(tokens: TokenServer, rig: MailRig, home: Path, oauth: dict) -> tuple[DaemonProcess, dict[str, str]]:
    """The daemon, started with the secrets it reads from its environment (returned for the CLI)."""
    daemon = DaemonProcess(rig, home, oauth=oauth)
    secrets = {"PBEM_TEST_REFRESH_TOKEN": tokens.grant("game"), "PBEM_TEST_CLIENT_SECRET": CLIENT_SECRET}
    daemon.start(env=secrets)
    return daemon, secrets


def _status(daemon: DaemonProcess, secrets: dict[str, str]) -> dict:
    """`pbem admin status --json` on the daemon's settings: it logs in to the mailbox as the daemon does."""
    done = subprocess.run(
        [sys.executable, "-m", "pbem.cli.main", "-c", str(daemon.config), "admin", "status", "--json"],
        capture_output=True, text=True, timeout=scaled(60), env={**os.environ, **daemon.env, **secrets},
    )
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def _newest(rig: MailRig, user: str, count: int):
    return parse(rig.wait_for(user, count, timeout=30)[-1])


def _xoauth2_logins(rig: MailRig) -> int:
    return (rig.dir / "log" / "dovecot.log").read_text(errors="replace").count("user=<game>, method=XOAUTH2")


@pytest.mark.parametrize("flow", ["refresh_token", "token_command"])
def test_a_game_is_played_over_oauth2_logins(setup, tmp_path: Path, flow: str) -> None:
    tokens, rig = setup
    home = tmp_path / "pbem"
    oauth = _refresh_flow(tokens) if flow == "refresh_token" else _command_flow(tokens, home)
    before = _xoauth2_logins(rig)
    daemon, secrets = _start(tokens, rig, home, oauth)
    alice, bob = rig.address("alice"), rig.address("bob")
    try:
        rig.submit(alice, compose(alice, f"challenge ataxx {bob} colour=x", to=rig.address("game")))
        rig.submit(alice, reply_to(alice, _newest(rig, "alice", 1), "confirm"))
        rig.submit(bob, reply_to(bob, _newest(rig, "bob", 1), "accept 1"))
        rig.submit(alice, reply_to(alice, _newest(rig, "alice", 3), "f2"))
        your_move = _newest(rig, "bob", 3)
    finally:
        assert daemon.stop() == 0, daemon.log_tail()
    mailbox = _status(daemon, secrets)["mailbox"]
    assert mailbox["reachable"] and "logged in as game" in mailbox["detail"], mailbox
    assert "your move" in your_move["Subject"] and "f2" in text(your_move)
    assert len(rig.messages("alice")) == 4 and len(rig.messages("bob")) == 3
    db = make_engine(daemon.database)
    with Session(db) as session:
        assert [(m.game_id, m.ply, m.notation) for m in session.exec(select(Move)).all()] == [(1, 1, "f2")]
    db.dispose()
    assert _xoauth2_logins(rig) > before  # IMAP logged in by XOAUTH2, not by a password
    assert tokens.issued == 2 and tokens.refused == 0  # the daemon's IMAP and SMTP shared one; status its own
    log = daemon.log.read_text(errors="replace")
    assert REFUSED not in log
    assert not any(token in log for token in tokens.history), "an access token was logged"


@pytest.mark.parametrize("how", ["revoke", "expire"])
def test_a_revoked_or_expired_token_is_refused_once_and_a_fresh_one_fetched(setup, tmp_path: Path, how: str) -> None:
    tokens, rig = setup
    kill = getattr(tokens, how)  # what the provider does to every token issued so far
    daemon, _ = _start(tokens, rig, tmp_path / "pbem", _refresh_flow(tokens))
    alice, bob = rig.address("alice"), rig.address("bob")
    try:
        rig.submit(alice, compose(alice, f"challenge ataxx {bob} colour=x", to=rig.address("game")))
        _newest(rig, "alice", 1)
        assert tokens.issued == 1

        # SMTP: the provider revokes (or expires) the token and the daemon's session is gone; the next
        # session's AUTH is refused, one line says so, and a fresh token sends the mail.
        kill()
        rig.stop_smtp()
        rig.start_smtp()
        rig.submit(alice, reply_to(alice, _newest(rig, "alice", 1), "confirm"))
        _newest(rig, "bob", 1)
        _newest(rig, "alice", 2)  # every mail of the round is out before Dovecot stops
        daemon.wait_log(REFUSED)
        assert tokens.issued == 2

        # IMAP: the same again, and Dovecot restarts: the login is refused once, one line, and
        # the next attempt logs in with a fresh token and reads the mail that came meanwhile.
        kill()
        rig.stop_imap()
        rig.start_imap()
        rig.submit(bob, reply_to(bob, _newest(rig, "bob", 1), "accept 1"))
        rig.submit(alice, reply_to(alice, _newest(rig, "alice", 3), "f2"))
        assert "your move" in _newest(rig, "bob", 3)["Subject"]
    finally:
        assert daemon.stop() == 0, daemon.log_tail()
    log = daemon.log.read_text(errors="replace")
    refusals = [line for line in log.splitlines() if REFUSED in line]
    assert len(refusals) == 2, "\n".join(refusals)
    assert "SMTP server" in refusals[0] and "fetching a fresh token" in refusals[0]
    assert "IMAP mailbox" in refusals[1] and "a fresh token will be fetched" in refusals[1]
    assert tokens.issued == 3
    assert not any(token in log for token in tokens.history), "an access token was logged"
