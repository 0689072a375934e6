"""The mail transport against real servers: Dovecot IMAP, an SMTP front end, and the sandbox."""

from __future__ import annotations

import asyncio
import imaplib
import random
import threading
import time
from email.message import EmailMessage
from pathlib import Path

import aiosmtplib.protocol
import aiosmtplib.smtp
import pytest

from pbem.mail.transport import smtp
from pbem.mail.transport.imap import (
    ImapSettings,
    ImapSource,
    MailboxLoginFailed,
    MailboxUnavailable,
    _parse_fetch,
)
from pbem.mail.transport.sandbox import MaildirSource, SandboxServer, mailbox_name, read_mailbox
from pbem.mail.transport.smtp import ConfigurationFailure, PermanentFailure, SmtpSettings, TemporaryFailure
from tests.mailrig import MailRig, free_port

integration = pytest.mark.integration


def make_mail(subject: str, to: str = "game@example.test", message_id: str | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = "bob@example.test"
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = message_id or f"<{subject.replace(' ', '-')}@example.test>"
    # 8-bit text and a line starting with a dot: both must survive every hop byte for byte.
    msg.set_content("Grüße aus Köln\n.a line that starts with a dot\nmove e4\n", cte="8bit")
    return msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))


def lmtp_copy(raw: bytes, to: str = "game@example.test", sender: str = "bob@example.test") -> bytes:
    """What Dovecot stores for a message delivered over LMTP: two trace headers, then the bytes."""
    return f"Return-Path: <{sender}>\r\nDelivered-To: {to}\r\n".encode() + raw


def set_flag(rig: MailRig, user: str, uid: str, flag: str) -> None:
    """Another IMAP client flags a message (and does not expunge)."""
    imap = imaplib.IMAP4(rig.host, rig.imap_port)
    try:
        imap.login(user, rig.users[user])
        imap.select("INBOX")
        assert imap.uid("STORE", uid, "+FLAGS", f"({flag})")[0] == "OK"
    finally:
        imap.logout()


def uid(key: str) -> int:
    """The UID in a message key `UIDVALIDITY:UID` (issue 12: the key carries UIDVALIDITY)."""
    validity, _, number = key.partition(":")
    assert validity.isdigit() and number.isdigit(), key
    return int(number)


def send(settings: SmtpSettings, recipient: str, data: bytes, sender: str = "game@example.test") -> str:
    return asyncio.run(smtp.send(settings, sender, recipient, data))


# -- IMAP -------------------------------------------------------------------------------------------


@integration
def test_fetch_returns_exact_bytes_oldest_first_within_limit(mailrig: MailRig) -> None:
    raws = [make_mail(f"move {i}") for i in range(3)]
    for raw in raws:
        mailrig.deliver("game", raw, sender="bob@example.test")
    with ImapSource(mailrig.imap_settings("game")) as source:
        first_two = source.fetch(limit=2)
        everything = source.fetch()
    assert [m.data for m in everything] == [lmtp_copy(raw) for raw in raws]
    keys = [uid(m.key) for m in everything]
    assert keys == sorted(keys) and len(set(keys)) == 3
    assert first_two == everything[:2]


@integration
def test_fetch_never_sets_seen(mailrig: MailRig) -> None:
    mailrig.deliver("game", make_mail("unseen"), sender="bob@example.test")
    with ImapSource(mailrig.imap_settings("game")) as source:
        assert len(source.fetch()) == 1
        assert len(source.fetch()) == 1
    [(_, flags)] = mailrig.flags("game")
    assert "\\Seen" not in flags


@integration
def test_done_moves_one_message_and_expunges_nothing_else(mailrig: MailRig) -> None:
    for i in range(3):
        mailrig.deliver("game", make_mail(f"msg {i}"), sender="bob@example.test")
    with ImapSource(mailrig.imap_settings("game")) as source:
        first, second, third = source.fetch()
        # Another client marks the third message deleted without expunging: it must survive us.
        set_flag(mailrig, "game", str(uid(third.key)), "\\Deleted")
        assert [m.key for m in source.fetch()] == [first.key, second.key]
        source.done(first.key)
        assert [m.key for m in source.fetch()] == [second.key]
    inbox = mailrig.flags("game")
    assert [n for n, _ in inbox] == [uid(second.key), uid(third.key)]
    assert "\\Deleted" in inbox[1][1]
    assert mailrig.messages("game", "Processed") == [first.data]


@integration
def test_two_sources_on_one_mailbox_both_mark_a_message_done(mailrig: MailRig) -> None:
    """Several daemons share a mailbox: the second `done` finds the message moved and is content."""
    mailrig.deliver("game", make_mail("shared"), sender="bob@example.test")
    with ImapSource(mailrig.imap_settings("game")) as one, ImapSource(mailrig.imap_settings("game")) as two:
        [a], [b] = one.fetch(), two.fetch()
        one.done(a.key)
        two.done(b.key)  # NO [EXPUNGEISSUED]: already done, not a lost connection
        assert two.fetch() == [] and one.fetch() == []
        mailrig.deliver("game", make_mail("after"), sender="bob@example.test")
        assert [m.data for m in two.fetch()] == [lmtp_copy(make_mail("after"))]  # no reconnect backoff
    assert len(mailrig.messages("game", "Processed")) == 1


@integration
def test_done_all_moves_a_batch_even_when_another_source_took_part_of_it(mailrig: MailRig) -> None:
    raws = [make_mail(f"batch {i}") for i in range(3)]
    for raw in raws:
        mailrig.deliver("game", raw, sender="bob@example.test")
    with ImapSource(mailrig.imap_settings("game")) as one, ImapSource(mailrig.imap_settings("game")) as two:
        batch = two.fetch()
        one.fetch()
        one.done(batch[1].key)  # another daemon finished the middle one first
        two.done_all([m.key for m in batch])  # one UID MOVE, refused in part, then one by one
        assert two.fetch() == []
    assert sorted(mailrig.messages("game", "Processed")) == sorted(lmtp_copy(raw) for raw in raws)
    assert mailrig.messages("game") == []


@integration
def test_done_flags_the_message_when_there_is_no_processed_folder(mailrig: MailRig) -> None:
    for i in range(2):
        mailrig.deliver("game", make_mail(f"flag {i}"), sender="bob@example.test")
    with ImapSource(mailrig.imap_settings("game", processed_folder=None)) as source:
        first, second = source.fetch()
        source.done(first.key)
        assert source.fetch() == [second]
    flags = dict(mailrig.flags("game"))
    assert "$PbemDone" in flags[uid(first.key)] and "$PbemDone" not in flags[uid(second.key)]
    assert "\\Seen" not in flags[uid(first.key)]
    assert mailrig.messages("game", "Processed") == []


@integration
def test_same_message_id_twice_gives_two_messages(mailrig: MailRig) -> None:
    raw = make_mail("twice", message_id="<same@example.test>")
    mailrig.deliver("game", raw, sender="bob@example.test")
    mailrig.deliver("game", raw, sender="bob@example.test")
    with ImapSource(mailrig.imap_settings("game")) as source:
        mails = source.fetch()
    assert len(mails) == 2 and mails[0].key != mails[1].key
    assert mails[0].data == mails[1].data == lmtp_copy(raw)


@integration
def test_idle_wakes_wait_soon_after_delivery(mailrig: MailRig) -> None:
    with ImapSource(mailrig.imap_settings("game")) as source:
        assert source.fetch() == []
        delivered_at: list[float] = []

        def deliver_later() -> None:
            time.sleep(0.5)
            mailrig.deliver("game", make_mail("wake up"), sender="bob@example.test")
            delivered_at.append(time.monotonic())

        thread = threading.Thread(target=deliver_later)
        thread.start()
        source.wait(20)
        woke_at = time.monotonic()
        thread.join()
        assert delivered_at, "wait() returned before the mail was delivered"
        assert woke_at - delivered_at[0] < 2.0
        assert len(source.fetch()) == 1


@integration
def test_wait_without_new_mail_sleeps_and_returns_at_once_for_unseen_mail(mailrig: MailRig) -> None:
    with ImapSource(mailrig.imap_settings("game")) as source:
        source.fetch()
        started = time.monotonic()
        source.wait(0.6)
        assert 0.5 <= time.monotonic() - started < 2.0
        # Mail that arrived between fetch() and wait() is not lost waiting for an IDLE notice.
        mailrig.deliver("game", make_mail("in between"), sender="bob@example.test")
        started = time.monotonic()
        source.wait(20)
        assert time.monotonic() - started < 1.0


@integration
def test_idle_ignores_notices_that_are_not_new_mail(mailrig: MailRig) -> None:
    mailrig.deliver("game", make_mail("already here"), sender="bob@example.test")
    with ImapSource(mailrig.imap_settings("game")) as source:
        [mail] = source.fetch()
        # Another client flags the message mid-IDLE: the server tells us, but it is not new mail.
        flagger = threading.Timer(0.3, set_flag, (mailrig, "game", str(uid(mail.key)), "\\Flagged"))
        flagger.start()
        started = time.monotonic()
        source.wait(1.5)
        flagger.join()
        assert time.monotonic() - started >= 1.4
        assert [m.key for m in source.fetch()] == [mail.key]


@integration
def test_poll_mode_wait_sleeps_poll_interval(mailrig: MailRig) -> None:
    with ImapSource(mailrig.imap_settings("game", idle=False, poll_interval=0.3)) as source:
        source.fetch()
        started = time.monotonic()
        source.wait(20)
        assert 0.25 <= time.monotonic() - started < 1.5


@integration
def test_close_from_another_thread_ends_idle(mailrig: MailRig) -> None:
    source = ImapSource(mailrig.imap_settings("game"))
    source.fetch()
    thread = threading.Thread(target=source.wait, args=(30,))
    thread.start()
    time.sleep(0.3)
    started = time.monotonic()
    source.close()
    thread.join(5)
    assert not thread.is_alive()
    assert time.monotonic() - started < 2.5
    source.close()  # twice is fine


@integration
def test_reconnects_after_the_server_restarts(mailrig: MailRig) -> None:
    source = ImapSource(mailrig.imap_settings("game"), backoff_initial=0.2, backoff_max=0.4)
    try:
        assert source.fetch() == []
        mailrig.stop_imap()
        with pytest.raises(MailboxUnavailable, match="unavailable"):
            source.fetch()
        with pytest.raises(MailboxUnavailable, match="next attempt"):
            source.done("1")
        source.wait(0.1)  # never raises while the server is down
        mailrig.start_imap()
        raw = make_mail("after the outage")
        mailrig.deliver("game", raw, sender="bob@example.test")
        deadline = time.monotonic() + 10
        while True:
            try:
                mails = source.fetch()
                break
            except MailboxUnavailable:
                assert time.monotonic() < deadline, "no reconnection within 10 s"
                time.sleep(0.1)
        assert [m.data for m in mails] == [lmtp_copy(raw)]
        source.done(mails[0].key)
        assert source.fetch() == []
    finally:
        source.close()


@integration
def test_wrong_password_is_a_login_failure(mailrig: MailRig) -> None:
    source = ImapSource(mailrig.imap_settings("game", password="wrong"))
    with source, pytest.raises(MailboxLoginFailed, match="check the IMAP username and password"):
        source.fetch()


def test_unreachable_server_is_unavailable_not_a_crash() -> None:
    settings = ImapSettings("127.0.0.1", port=free_port(), username="game", password="x", security="none")
    with ImapSource(settings) as source:
        with pytest.raises(MailboxUnavailable, match=r"game@127\.0\.0\.1"):
            source.fetch()
        started = time.monotonic()
        source.wait(0.2)
        assert time.monotonic() - started < 1.0


def test_settings_reject_contradictions() -> None:
    with pytest.raises(ValueError, match="security"):
        ImapSettings("h", username="u", password="p", security="ssl")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="993"):
        ImapSettings("h", username="u", password="p", security="starttls")
    with pytest.raises(ValueError, match="both"):
        SmtpSettings("h", username="u")
    assert "secret" not in repr(ImapSettings("h", username="u", password="secret"))


def test_fetch_answer_parsing_accepts_the_uid_after_the_literal() -> None:
    data = [
        (b"1 (UID 7 BODY[] {3}", b"abc"),
        b")",
        (b"2 (BODY[] {2}", b"de"),
        b" UID 9)",
        b"3 (FLAGS (\\Seen))",
    ]
    assert _parse_fetch(data) == {7: b"abc", 9: b"de"}


# -- SMTP -------------------------------------------------------------------------------------------


@integration
def test_send_delivers_to_alice_through_the_front_end(mailrig: MailRig) -> None:
    raw = make_mail("hello alice", to="alice@example.test")
    reply = send(mailrig.smtp_settings(), "alice+g1@example.test", raw)
    assert reply.startswith("2.0.0")
    [stored] = mailrig.wait_for("alice", 1)
    assert stored == lmtp_copy(raw, to="alice+g1@example.test", sender="game@example.test")
    assert mailrig.messages("bob") == []


@integration
def test_send_logs_in_and_a_wrong_password_is_a_configuration_failure(mailrig: MailRig) -> None:
    raw = make_mail("with login", to="alice@example.test")
    good = mailrig.smtp_settings(username="game", password=mailrig.users["game"])
    assert send(good, "alice@example.test", raw).startswith("2.0.0")
    bad = mailrig.smtp_settings(username="game", password="wrong")
    with pytest.raises(ConfigurationFailure) as caught:
        send(bad, "alice@example.test", raw)
    assert caught.value.code == 535
    assert len(mailrig.wait_for("alice", 1)) == 1


@integration
@pytest.mark.parametrize(
    ("stage", "reply", "failure"),
    [
        ("RCPT", "451 4.7.1 Greylisted, try again later", TemporaryFailure),
        ("MAIL", "421 4.3.2 Service shutting down", TemporaryFailure),
        ("DATA", "452 4.3.1 Insufficient system storage", TemporaryFailure),
        ("DATA", "552 5.2.2 Mailbox full", TemporaryFailure),
        ("RCPT", "550 5.1.1 Mailbox unavailable", PermanentFailure),
        ("DATA", "554 5.7.1 Message rejected", PermanentFailure),
    ],
)
def test_injected_failures_are_classified(
    mailrig: MailRig, stage: str, reply: str, failure: type[smtp.DeliveryError]
) -> None:
    raw = make_mail(f"fault {stage}", to="alice@example.test")
    mailrig.inject(stage, reply)
    with pytest.raises(smtp.DeliveryError) as caught:
        send(mailrig.smtp_settings(), "alice@example.test", raw)
    assert type(caught.value) is failure
    assert caught.value.code == int(reply[:3])
    assert reply[4:] in caught.value.text
    # A fault is used once: the retry goes through.
    send(mailrig.smtp_settings(), "alice@example.test", raw)
    assert len(mailrig.wait_for("alice", 1)) == 1


@integration
def test_unknown_recipient_is_permanent(mailrig: MailRig) -> None:
    with pytest.raises(PermanentFailure) as caught:
        send(mailrig.smtp_settings(), "nobody-here@example.test", make_mail("lost"))
    assert caught.value.code == 550


@integration
def test_smtp_down_is_temporary(mailrig: MailRig) -> None:
    mailrig.stop_smtp()
    with pytest.raises(TemporaryFailure) as caught:
        send(mailrig.smtp_settings(), "alice@example.test", make_mail("nobody listens"))
    assert caught.value.code is None
    mailrig.start_smtp()
    send(mailrig.smtp_settings(), "alice@example.test", make_mail("listening again"))
    assert len(mailrig.wait_for("alice", 1)) == 1


@pytest.mark.parametrize(
    ("code", "failure"),
    [
        (421, TemporaryFailure),
        (451, TemporaryFailure),
        (552, TemporaryFailure),
        (550, PermanentFailure),
        (553, PermanentFailure),
        (554, PermanentFailure),
        (530, ConfigurationFailure),
        (534, ConfigurationFailure),
        (535, ConfigurationFailure),
    ],
)
def test_classify(code: int, failure: type[smtp.DeliveryError]) -> None:
    error = smtp.classify(code, "text")
    assert type(error) is failure and error.code == code and error.text == "text"


# -- sandbox ----------------------------------------------------------------------------------------


def test_sandbox_round_trip(tmp_path: Path) -> None:
    with SandboxServer(tmp_path) as server:
        assert server.port > 0
        settings = SmtpSettings("127.0.0.1", server.port, security="none", timeout=5)
        first = make_mail("sandbox one")
        second = make_mail("sandbox two")
        send(settings, "Game+Tok123@Example.Test", first, sender="alice@example.test")
        send(settings, "game@example.test", second, sender="alice@example.test")
        send(settings, "alice@example.test", make_mail("for alice"))
    source = MaildirSource(tmp_path, "game@example.test")
    mails = source.fetch()
    assert [m.data for m in mails] == [
        b"Delivered-To: Game+Tok123@Example.Test\r\n" + first,
        b"Delivered-To: game@example.test\r\n" + second,
    ]
    source.done(mails[0].key)
    source.done(mails[0].key)  # twice is harmless
    assert source.fetch() == [mails[1]]
    assert read_mailbox(tmp_path, "GAME@example.test") == [m.data for m in mails]
    assert len(read_mailbox(tmp_path, "alice@example.test")) == 1
    assert read_mailbox(tmp_path, "carol@example.test") == []
    with pytest.raises(KeyError):
        source.done("no-such-message")


def test_sandbox_processed_folder_and_wait(tmp_path: Path) -> None:
    with SandboxServer(tmp_path) as server:
        settings = SmtpSettings("127.0.0.1", server.port, security="none", timeout=5)
        source = MaildirSource(tmp_path, "game@example.test", processed_folder="Processed", poll_interval=0.05)
        send(settings, "game@example.test", make_mail("first"))
        [mail] = source.fetch()
        started = time.monotonic()
        source.wait(0.3)  # nothing new since the fetch
        assert time.monotonic() - started >= 0.25
        threading.Timer(0.2, send, (settings, "game+x@example.test", make_mail("second"))).start()
        started = time.monotonic()
        source.wait(10)
        assert time.monotonic() - started < 2.0
        source.done(mail.key)
        remaining = source.fetch()
    assert [m.data.split(b"\r\n", 1)[0] for m in remaining] == [b"Delivered-To: game+x@example.test"]
    processed = list((tmp_path / "game@example.test" / ".Processed" / "cur").iterdir())
    assert [p.name for p in processed] == [f"{mail.key}:2,S"]
    assert len(read_mailbox(tmp_path, "game@example.test")) == 1


def test_sandbox_refuses_addresses_that_are_not_mailbox_names(tmp_path: Path) -> None:
    with SandboxServer(tmp_path) as server:
        settings = SmtpSettings("127.0.0.1", server.port, security="none", timeout=5)
        with pytest.raises(PermanentFailure) as caught:
            send(settings, "../etc@example.test", make_mail("escape"))
    assert caught.value.code == 553
    assert list(tmp_path.iterdir()) == []
    assert mailbox_name("Bob+Game7@Example.TEST") == "bob@example.test"
    with pytest.raises(ValueError):
        mailbox_name("no-domain")


def test_aiosmtplibs_kept_address_checks_still_refuse_a_bad_address() -> None:
    """The daemon keeps what aiosmtplib makes of an address (`pbem.mail.transport.smtp`): a
    good one is parsed once, one it refuses (a space would smuggle in an SMTP parameter) is
    refused every time it comes."""
    parse, quote = aiosmtplib.smtp.parse_address, aiosmtplib.smtp.quote_address
    assert quote("alice@example.org") == quote("alice@example.org") == "<alice@example.org>"
    assert parse("alice@example.org") == "alice@example.org"
    assert parse.cache_info().hits >= 1 or quote.cache_info().hits >= 1  # kept: the functions in use
    for _ in range(2):
        with pytest.raises(ValueError):
            parse("alice smith@example.org")
        with pytest.raises(ValueError):
            quote("alice smith@example.org")


def test_line_ends_are_normalised_as_aiosmtplib_does_and_crlf_mail_passes_as_it_is() -> None:
    """The quick look at a mail's line ends answers what aiosmtplib's own regex makes of every
    mix of CR, LF and CRLF; a mail whose lines all end in CRLF comes back as the same object."""
    original = smtp._normalized
    rng = random.Random(11)
    pieces = [b"a", b"line", b".", b"\r", b"\n", b"\r\n", b"\r\r\n", b"\n\r", b" "]
    for _ in range(4000):
        message = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert smtp._line_ends(message) == original(message), message
    crlf = b"Subject: x\r\n\r\nbody\r\n.\r\n"
    assert smtp._line_ends(crlf) is crlf
    assert aiosmtplib.protocol.normalize_message_line_endings is smtp._line_ends
    assert aiosmtplib.smtp.normalize_message_line_endings is smtp._line_ends
