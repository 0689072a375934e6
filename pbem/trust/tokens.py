"""Proof of receipt: the tokens our mails carry, and what a token shows when it comes back.

Every mail we send to a player carries a token in its Reply-To plus-address
(`pbem+g42-7.3.<mac>@domain`) and, for a game's mails, in its subject (`[k:7.3.<mac>]`):
an HMAC, keyed with the player's server-held secret, of what the mail showed: the game,
the game's version (the board) and the player's own version. A reply that carries it
proves that its sender got that very mail; the versions say whether the board, and the
player's records, are still what the mail showed. A mail captured once and replayed
later (with a new Message-ID, its threading stripped) shows versions that are no longer
current, and changes nothing. 64 bits of MAC, and at most a few candidates read per mail
(`pbem.mail.message.notation` writes and reads where the tokens stand).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass, replace

from pbem.core.models import Game, Player

_TEXT = re.compile(r"^(?:(\d{1,9})\.)?(\d{1,9})\.((?:[0-9a-f]{6})?)([0-9a-f]{16})$")


@dataclass(frozen=True)
class Token:
    """What a mail of ours showed: a game and its version (None for a mail about no game),
    and the player's own version."""

    game_id: int | None
    game_version: int | None
    player_version: int
    nonce: str = ""  # 6 hex digits that make each mail's token its own ("" in tokens of before)

    @property
    def _signed(self) -> str:
        mark = f".{self.nonce}" if self.nonce else ""
        if self.game_id is None:
            return f"p{self.player_version}{mark}"
        return f"g{self.game_id}.{self.game_version}.{self.player_version}{mark}"


def _mac(player: Player, token: Token) -> str:
    return hmac.new(player.secret.encode(), f"pbem:{token._signed}".encode(), hashlib.sha256).hexdigest()[:16]


def mac(player: Player, token: Token) -> str:
    """The MAC of `token` alone: what an outbox row keeps to find the mails that carried it."""
    return _mac(player, token)


def current(player: Player, game: Game | None) -> Token:
    """The token of a mail to `player` about `game` (or about no game), as things are now."""
    if game is None or game.id is None:
        return Token(None, None, player.version)
    return Token(game.id, game.version, player.version)


def minted(player: Player, game: Game | None) -> Token:
    """The token of one new mail: `current`, with a nonce of its own, so that a reply proves
    which mail it answers (two mails that show the same things still carry two tokens)."""
    return replace(current(player, game), nonce=secrets.token_hex(3))


def format_token(player: Player, token: Token) -> str:
    """`7.3.<mac>` (game version, player version) for a game's mail, `3.<mac>` for another."""
    versions = f"{token.player_version}" if token.game_id is None else f"{token.game_version}.{token.player_version}"
    return f"{versions}.{token.nonce}{_mac(player, token)}"


def fingerprint(address: str, mac: str, lines: list[str]) -> str:
    """What a proven mail asked, as one value: the sender, the token that proved it and its
    acting lines. A copy of the mail sent again under another Message-ID has the same one."""
    text = "\n".join([address.strip().lower(), mac, *lines])
    return hashlib.sha256(text.encode()).hexdigest()


def parse_token(text: str, game_id: int | None) -> tuple[Token, str] | None:
    """The token and MAC a carried token claims (not yet checked), or None. `game_id` is the
    game the plus-address or the subject's tag names."""
    m = _TEXT.match(text.lower())
    if m is None or (m.group(1) is None) != (game_id is None):
        return None
    if game_id is None:
        return Token(None, None, int(m.group(2)), m.group(3)), m.group(4)
    return Token(game_id, int(m.group(1)), int(m.group(2)), m.group(3)), m.group(4)


def stop_token(player: Player) -> str:
    """`<player id>.<mac>`: what the stop address of our List-Unsubscribe header carries. It
    names the player and proves that it came in a mail of ours to them, so a mail to it stops
    their mail whatever its From says, and nobody else can write one."""
    return f"{player.id}.{_stop_mac(player)}"


def parse_stop(text: str) -> tuple[int, str] | None:
    """The player id and MAC a stop token claims (not yet checked), or None."""
    m = _TEXT.match(text.lower())
    if m is None or m.group(1) is not None or m.group(3):
        return None
    return int(m.group(2)), m.group(4)


def verify_stop(player: Player, mac: str) -> bool:
    """Whether `mac` is the stop MAC we wrote for `player`."""
    return hmac.compare_digest(_stop_mac(player), mac)


def _stop_mac(player: Player) -> str:
    """The stop MAC of the player as they are now: from their first resume on it covers how many
    times they took their mail back, so the stop address of a mail before that stops nothing
    (a replayed stop); a player who never resumed keeps the one their mails always carried."""
    said = f"pbem:stop:{player.id}" if not player.resumes else f"pbem:stop:{player.id}:{player.resumes}"
    return hmac.new(player.secret.encode(), said.encode(), hashlib.sha256).hexdigest()[:16]


def verify(player: Player, token: Token, mac: str) -> bool:
    """Whether `mac` is the one we wrote for `player` and `token`."""
    return hmac.compare_digest(_mac(player, token), mac)


def new_contact() -> str:
    """A fresh secret for a player's personal address (64 random bits)."""
    return secrets.token_hex(8)
