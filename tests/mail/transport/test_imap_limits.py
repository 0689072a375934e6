"""IMAP against the real Dovecot rig: sizes before bytes, big mails in part, keys with UIDVALIDITY
(issue 11, finding 10; issue 12)."""

from __future__ import annotations

import imaplib
from email.message import EmailMessage

import pytest

from pbem.mail.message.inbound import parse_message
from pbem.mail.message.source import declared_size, truncated_copy
from pbem.mail.transport.imap import ImapSettings, ImapSource
from pbem.mail.transport.imap_answers import parse_key, parse_sizes
from tests.mailrig import MailRig

integration = pytest.mark.integration


def make_mail(subject: str, body: str = "c4\n", filler: int = 0) -> bytes:
    msg = EmailMessage()
    msg["From"] = "Bob <bob@example.test>"
    msg["To"] = "game@example.test"
    msg["Subject"] = subject
    msg["Message-ID"] = f"<{subject.replace(' ', '-')}@example.test>"
    msg.set_content(body + "x" * filler + "\n", cte="8bit")
    return msg.as_bytes(policy=msg.policy.clone(linesep="\r\n"))


def server_view(rig: MailRig, user: str = "game") -> tuple[int, dict[int, int]]:
    """UIDVALIDITY of the INBOX and UID -> size, as another client sees them."""
    imap = imaplib.IMAP4(rig.host, rig.imap_port)
    try:
        imap.login(user, rig.users[user])
        imap.select("INBOX", readonly=True)
        validity = int(imap.untagged_responses["UIDVALIDITY"][-1])
        typ, data = imap.uid("FETCH", "1:*", "(UID RFC822.SIZE)")
        return validity, parse_sizes(data) if typ == "OK" and data != [None] else {}
    finally:
        imap.logout()


@integration
def test_keys_carry_uidvalidity(mailrig: MailRig) -> None:
    mailrig.deliver("game", make_mail("keyed"), sender="bob@example.test")
    validity, sizes = server_view(mailrig)
    with ImapSource(mailrig.imap_settings("game")) as source:
        [mail] = source.fetch()
        assert mail.key == f"{validity}:{next(iter(sizes))}"
        assert parse_key(mail.key) == (validity, next(iter(sizes)))


@integration
def test_a_key_from_another_uidvalidity_is_never_marked_done(mailrig: MailRig) -> None:
    mailrig.deliver("game", make_mail("stale"), sender="bob@example.test")
    with ImapSource(mailrig.imap_settings("game")) as source:
        [mail] = source.fetch()
        validity, uid = parse_key(mail.key)
        source.done(f"{validity + 1}:{uid}")  # the folder was recreated since: that UID is another mail
        assert source.fetch() == [mail]
        with pytest.raises(ValueError, match="key"):
            source.done("7:x")
        source.done(mail.key)
        assert source.fetch() == []
    assert len(mailrig.messages("game", "Processed")) == 1


@integration
def test_a_big_message_is_fetched_alone_and_only_in_part(mailrig: MailRig) -> None:
    limit = 4096
    small = [make_mail("small one"), make_mail("small two")]
    big = make_mail("big one", body="Grüße, c4\n", filler=200_000)
    for raw in (small[0], big, small[1]):
        mailrig.deliver("game", raw, sender="bob@example.test")
    _validity, sizes = server_view(mailrig)
    with ImapSource(mailrig.imap_settings("game", max_message_bytes=limit)) as source:
        mails = source.fetch()
    assert len(mails) == 3
    first, cut, last = mails
    assert first.data.endswith(small[0]) and last.data.endswith(small[1])  # the small ones: whole
    assert len(cut.data) <= limit + 64
    full = sizes[parse_key(cut.key)[1]]
    assert full > 200_000 and declared_size(cut.data) == full
    env = parse_message(cut.data)
    assert (env.sender, env.subject, env.size, env.truncated) == ("bob@example.test", "big one", full, True)
    assert env.text.startswith("Grüße, c4\nxxx")
    assert env.message_id == "<big-one@example.test>"


@integration
def test_one_fetch_holds_a_bounded_number_of_bytes(mailrig: MailRig) -> None:
    limit = 2048
    raws = [make_mail(f"batch {i}", filler=1400) for i in range(20)]
    for raw in raws:
        mailrig.deliver("game", raw, sender="bob@example.test")
    seen: list[bytes] = []
    with ImapSource(mailrig.imap_settings("game", max_message_bytes=limit)) as source:
        for _round in range(20):
            mails = source.fetch(limit=50)
            if not mails:
                break
            assert sum(len(m.data) for m in mails) <= 8 * limit
            seen.extend(m.data for m in mails)
            source.done_all([m.key for m in mails])
    assert len(seen) == 20
    assert [s[-len(r):] for s, r in zip(seen, raws, strict=True)] == raws


def test_settings_bound_the_message_size() -> None:
    assert ImapSettings("h", username="u", password="p").max_message_bytes == 1024 * 1024
    with pytest.raises(ValueError, match="max_message_bytes"):
        ImapSettings("h", username="u", password="p", max_message_bytes=10)


def test_answer_parsing_for_sizes_and_keys() -> None:
    data = [b"1 (UID 7 RFC822.SIZE 1234)", b"2 (RFC822.SIZE 99 UID 9)", b"3 (FLAGS ())", None]
    assert parse_sizes(data) == {7: 1234, 9: 99}
    assert parse_key("12:7") == (12, 7) and parse_key("7") == (None, 7)
    for bad in ("", "0", "1:0", "a:1", "1:2:3"):
        with pytest.raises(ValueError):
            parse_key(bad)


def test_a_truncated_copy_says_its_size_and_nothing_else_can() -> None:
    copy = truncated_copy(99_999, b"From: a@example.org\r\nSubject: x", b"c4\r\n")
    assert declared_size(copy) == 99_999
    env = parse_message(copy)
    assert (env.sender, env.subject, env.text, env.size, env.truncated) == ("a@example.org", "x", "c4", 99_999, True)
    # a sender's own header of that name is never first: the receiving server's trace lines are
    forged = b"Return-Path: <a@example.org>\r\nX-PBEM-Truncated: 99999\r\n\r\nc4\r\n"
    assert declared_size(forged) is None and parse_message(forged).size == len(forged)
