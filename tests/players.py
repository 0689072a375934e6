"""Three players and the opening most service tests share: Alice challenges Bob, Bob accepts."""

from __future__ import annotations

from tests.mailer import reply_to, text

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"


def flat(mail) -> str:  # noqa: ANN001
    """A mail's text with its line breaks and runs of blanks as single spaces (wording, not layout)."""
    return " ".join(text(mail).split())


def start_game(server, kind: str = "ataxx", options: str = "colour=first") -> None:  # noqa: ANN001
    """Game #1: Alice challenges Bob (and confirms, her first mail held), Bob accepts."""
    server.say(ALICE, f"challenge {kind} {BOB} {options}")
    server.confirm(ALICE)
    server.send(reply_to(BOB, server.last(BOB), "accept 1"))
