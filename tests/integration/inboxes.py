"""The players' mailboxes on the rig, read in the order a test expects their mails.

Mails queued close together may arrive in either order (the outbox sends on several SMTP
connections), so a test asks for the next unread mail with a subject, not the next mail.
"""

from __future__ import annotations

from email.message import EmailMessage

from tests.integration.waits import wait_until
from tests.mailer import compose, parse, reply_to


class Inboxes:
    """What each user has read so far, and how they write to the game."""

    def __init__(self, mailrig, users: tuple[str, ...]) -> None:  # noqa: ANN001
        self.rig = mailrig
        self.taken: dict[str, set[int]] = {user: set() for user in users}

    def next(self, user: str, subject: str, seconds: float = 30) -> EmailMessage:
        """The user's earliest unread mail with `subject` in its subject, once it has come."""
        def found():
            mails = [parse(raw) for raw in self.rig.messages(user)]
            fresh = [n for n, m in enumerate(mails) if n not in self.taken[user] and subject in m["Subject"]]
            return (fresh[0], mails) if fresh else None

        n, mails = wait_until(found, seconds, f"{user}: a mail about {subject!r}")
        self.taken[user].add(n)
        return mails[n]

    def send(self, user: str, body: str, answering: EmailMessage | None = None, subject: str = "") -> None:
        """A reply to one of our mails, or a new mail to the game's address."""
        address = self.rig.address(user)
        raw = reply_to(address, answering, body) if answering is not None else compose(
            address, body, subject=subject, to=self.rig.address("game"))
        self.rig.submit(address, raw)

    def read(self, user: str) -> int:
        return len(self.taken[user])
