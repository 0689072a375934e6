"""The addresses of the web pages (pbem.web) that mails link to, and what a link proves.

A game's page is `BASE/g/<id>-<key>`: `key` is the game's own random `web_key`, so whoever
got a mail about the game can open it and nobody can guess it. The one-click unsubscribe
(RFC 8058) is `BASE/unsubscribe/<stop token>`, the very token of the stop address
(`pbem.trust.tokens.stop_token`): it names the player and proves it came in a mail of ours. With
no `base_url` set there are no links at all, and mails stay as they were.
"""

from __future__ import annotations

import hmac
import re
import secrets

from sqlmodel import Session, select

from pbem.core.config import Settings
from pbem.core.models import Game, Player
from pbem.core.wallclock import now
from pbem.trust import tokens

_GAME = re.compile(r"^(\d{1,12})-([0-9a-f]{8,32})$")


def key(game: Game) -> str:
    """The game's page key, made on first use for a game that has none (the caller commits)."""
    if not game.web_key:
        game.web_key = secrets.token_hex(10)
    return game.web_key


def game_path(game: Game) -> str:
    return f"/g/{game.id}-{key(game)}"


def game_url(settings: Settings, game: Game | None) -> str | None:
    """The address of `game`'s page for a mail, or None with no base_url (or no game)."""
    if settings.base_url is None or game is None or game.id is None:
        return None
    return settings.base_url + game_path(game)


def find_game(session: Session, slug: str) -> Game | None:
    """The game a page address `<id>-<key>` names, when its key is right (else None)."""
    m = _GAME.match(slug)
    if m is None:
        return None
    game = session.get(Game, int(m.group(1)))
    if game is None or not game.web_key or not hmac.compare_digest(game.web_key, m.group(2)):
        return None
    return game


def unsubscribe_url(settings: Settings, player: Player) -> str | None:
    """The https one-click unsubscribe address of `player` (RFC 8058), or None with no base_url."""
    if settings.base_url is None or not settings.base_url.startswith("https://"):
        return None
    return f"{settings.base_url}/unsubscribe/{tokens.stop_token(player)}"


def unsubscribe(session: Session, token: str) -> Player | None:
    """Stop the mail of the player whose signed stop token this is; None when it is not one."""
    claimed = tokens.parse_stop(token)
    if claimed is None:
        return None
    player = session.exec(select(Player).where(Player.id == claimed[0])).first()
    if player is None or not tokens.verify_stop(player, claimed[1]):
        return None
    player.stopped_at = player.stopped_at or now()
    session.add(player)
    return player


def agrees(player: Player) -> bool:
    """Whether `player` lets their games be listed: `public yes`, or a bot (it has no privacy)."""
    return player.public or player.bot_level is not None


def listed(first: Player, second: Player) -> bool:
    """Whether a game of these two players may be listed on the public pages: both agree."""
    return agrees(first) and agrees(second)
