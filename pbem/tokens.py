"""Proof of receipt: the tokens our mails carry, and what a token shows when it comes back.

Every mail we send to a player carries a token in its Reply-To plus-address
(`pbem+g42.7.3-<mac>@domain`) and, for a game's mails, in its subject (`[k:7.3.<mac>]`):
an HMAC, keyed with the player's server-held secret, of what the mail showed: the game,
the game's version (the board) and the player's own version. A reply that carries it
proves that its sender got that very mail; the versions say whether the board, and the
player's records, are still what the mail showed. A mail captured once and replayed
later (with a new Message-ID, its threading stripped) shows versions that are no longer
current, and changes nothing. 64 bits of MAC, and at most a few candidates read per mail.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from pbem.models import Game, Player

#: how many token candidates one mail may offer (more are not read: no guessing by the thousand)
MAX_CANDIDATES = 3

_DETAIL = re.compile(r"^(?:g(\d{1,9})\.(\d{1,9})\.(\d{1,9})|p(\d{1,9}))-([0-9a-f]{16})$")
_SUBJECT_KEY = re.compile(r"\[k:(\d{1,9})\.(\d{1,9})\.([0-9a-f]{16})\]")
_SUBJECT_GAME = re.compile(r"\[pbem #(\d{1,9})\]")


@dataclass(frozen=True)
class Token:
    """What a mail of ours showed: a game and its version (None for a mail about no game),
    and the player's own version."""

    game_id: int | None
    game_version: int | None
    player_version: int

    @property
    def text(self) -> str:
        if self.game_id is None:
            return f"p{self.player_version}"
        return f"g{self.game_id}.{self.game_version}.{self.player_version}"


def _mac(player: Player, token: Token) -> str:
    return hmac.new(player.secret.encode(), f"pbem:{token.text}".encode(), hashlib.sha256).hexdigest()[:16]


def current(player: Player, game: Game | None) -> Token:
    """The token of a mail to `player` about `game` (or about no game), as things are now."""
    if game is None or game.id is None:
        return Token(None, None, player.version)
    return Token(game.id, game.version, player.version)


def format_detail(player: Player, token: Token) -> str:
    """The plus-address detail: `g42.7.3-<mac>` or `p3-<mac>`."""
    return f"{token.text}-{_mac(player, token)}"


def parse_detail(detail: str) -> tuple[Token, str] | None:
    """The token and MAC a plus-address detail claims (not yet checked), or None."""
    m = _DETAIL.match(detail.lower())
    if m is None:
        return None
    if m.group(4) is not None:
        return Token(None, None, int(m.group(4))), m.group(5)
    return Token(int(m.group(1)), int(m.group(2)), int(m.group(3))), m.group(5)


def game_of_detail(detail: str) -> int | None:
    """The game a plus-address names, whether or not its MAC holds (a hint, never a proof)."""
    claimed = parse_detail(detail)
    return claimed[0].game_id if claimed is not None else None


def format_subject_key(player: Player, token: Token) -> str:
    """`[k:7.3.<mac>]`, for a game mail's subject (the game is in its `[pbem #42]` tag)."""
    return f"[k:{token.game_version}.{token.player_version}.{_mac(player, token)}]"


def parse_subject_keys(subject: str) -> list[tuple[Token, str]]:
    """The tokens a subject claims, at most MAX_CANDIDATES of them (not yet checked)."""
    game = _SUBJECT_GAME.search(subject)
    if game is None:
        return []
    found = []
    for m in _SUBJECT_KEY.finditer(subject):
        found.append((Token(int(game.group(1)), int(m.group(1)), int(m.group(2))), m.group(3)))
        if len(found) >= MAX_CANDIDATES:
            break
    return found


def verify(player: Player, token: Token, mac: str) -> bool:
    """Whether `mac` is the one we wrote for `player` and `token`."""
    return hmac.compare_digest(_mac(player, token), mac)
