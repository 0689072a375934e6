"""Remarks: the words players relay to each other with `say`, kept with the game.

A remark is stored with the move it came with: the ply of the sender's move in the same
mail, whichever order the lines come in (a `say` before the move is attached to it when
the move is played), else the game's ply when it came alone. Its text is plain: control
characters, HTML leftovers and quote marks are taken out, the lines are kept. In our mails
it is only ever shown quoted line by line (`quoted`), so it cannot read as a command or
as one of our instructions.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from datetime import UTC, datetime, time

from sqlalchemy import bindparam
from sqlmodel import Session, func, select

from pbem.core.models import Game, Player, Remark
from pbem.mail.message.reply import MARKERS
from pbem.text import lookalikes, textwidth

#: Unicode categories never relayed: controls, private use (our own mail markers), surrogates, unassigned
_DROPPED = frozenset({"Cc", "Co", "Cs", "Cn"})
#: bidirectional overrides and isolates, which could make a relayed line read backwards
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:-]*(?:\s[^<>]*)?/?>|<!--.*?-->", re.S)  # HTML leftovers
#: our subject tag and token, as they read (in a skeleton: `［ pbеm #1 ］` too)
_OURS = re.compile(r"\[\s*pbe(?:m|rn)\b[^\]]*\]|\[\s*k\s*:[^\]]*\]")

_PENDING = "pbem.games.remarks"  # session.info: (game, player, message) of the remarks this session stored
QUOTE_WIDTH = 68  # "> " and the text fit the mail's 72 columns with room to spare


def clean(text: str) -> str:
    """The text as plain text: no controls, no HTML tags or entities, no quote marks or our
    own markers (nor look-alikes of them), blanks within a line made single; line breaks kept
    (runs of empty lines made one)."""
    text = _TAG.sub("", html.unescape(_TAG.sub("", text)))
    lines: list[str] = []
    markers = _markers()
    for raw in lookalikes.lines(text):
        line = "".join(c for c in raw if c not in _BIDI and (c == "\t" or unicodedata.category(c) not in _DROPPED))
        line = lookalikes.remove(line, _OURS).lstrip("> \t|")  # nothing quoted from a mail, ours or another
        line = " ".join(line.split())
        seen = " ".join(lookalikes.words(line))
        if any(marker in seen for marker in markers):
            continue
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip("\n")


@functools.cache
def _markers() -> tuple[str, ...]:
    """Our markers' words as they read, without the `##-` around them (a copy need not keep those)."""
    return tuple(" ".join(lookalikes.words(m)) for m in MARKERS.values())


def quoted(text: str, width: int = QUOTE_WIDTH) -> list[str]:
    """The text as mail lines that start with "> ", each at most `width` columns of text (a
    word longer than that is cut), so no line of it can start like a command."""
    out: list[str] = []
    for line in text.splitlines() or [""]:
        pieces = textwidth.wrap(line, width) if line else [""]
        for piece in pieces:
            while textwidth.width(piece) > width and piece.isascii():
                out.append("> " + piece[:width])
                piece = piece[width:]
            out.append(("> " + piece).rstrip())
    return out


def _midnight(now: datetime) -> datetime:
    return datetime.combine(now.astimezone(UTC).date(), time(0), tzinfo=UTC)


def sent_today(session: Session, player: Player, now: datetime) -> int:
    """How many remarks `player` has relayed since midnight UTC (the daily limit)."""
    return session.exec(
        select(func.count(Remark.id)).where(Remark.player_id == player.id, Remark.created_at >= _midnight(now))
    ).one()


def relayed_to_today(session: Session, player: Player, opponent: Player, now: datetime) -> int:
    """How many remarks `player` has relayed since midnight UTC in their games against
    `opponent` (the cap per pair: many games do not multiply what one person receives)."""
    pair = select(Game.id).where(
        ((Game.player0_id == player.id) & (Game.player1_id == opponent.id))
        | ((Game.player0_id == opponent.id) & (Game.player1_id == player.id))
    )
    return session.exec(
        select(func.count(Remark.id)).where(
            Remark.player_id == player.id, Remark.created_at >= _midnight(now), Remark.game_id.in_(pair))
    ).one()


def of_mail(session: Session, game: Game, player: Player, message_id: str | None) -> Remark | None:
    """The remark that one mail of `player` already made in `game` (a second `say` line adds to it)."""
    if not message_id:
        return None
    return session.exec(
        select(Remark).where(Remark.game_id == game.id, Remark.player_id == player.id,
                             Remark.message_id == message_id)
    ).first()


def store(session: Session, game: Game, player: Player, text: str, message_id: str | None,
          now: datetime, public: bool = True) -> Remark:
    """A new remark, at the game's ply (a move later in the same mail takes it up: `attach`)."""
    remark = Remark(game_id=game.id, player_id=player.id, ply=game.ply, text=text, public=public,
                    message_id=message_id[:400] if message_id else None, created_at=now)
    session.add(remark)
    session.flush()
    session.info.setdefault(_PENDING, set()).add((game.id, player.id, remark.message_id))
    return remark


def attach(session: Session, game: Game, player: Player, message_id: str | None, ply: int) -> None:
    """A move was played: the remarks of the same mail, written before it, go with it (a move
    with no `say` before it in its mail costs no query)."""
    if not message_id or (game.id, player.id, message_id[:400]) not in session.info.get(_PENDING, ()):
        return
    for remark in session.exec(
        select(Remark).where(Remark.game_id == game.id, Remark.player_id == player.id,
                             Remark.message_id == message_id, Remark.ply < ply)
    ):
        remark.ply = ply
        session.add(remark)


def of_game(session: Session, game: Game) -> list[Remark]:
    """Every remark of a game, in the order they were made."""
    return list(session.exec(_OF_GAME, params={"game": game.id}))


_OF_GAME = select(Remark).where(Remark.game_id == bindparam("game")).order_by(Remark.id)  # built once


def by_ply(session: Session, game: Game) -> dict[int, list[tuple[str, str]]]:
    """ply -> [(the sender's name, the text)] for the records and `history` (ply 0: before any move)."""
    names = {p.id: p.name for p in (session.get(Player, game.player0_id), session.get(Player, game.player1_id))}
    found: dict[int, list[tuple[str, str]]] = {}
    for remark in of_game(session, game):
        found.setdefault(remark.ply, []).append((names.get(remark.player_id, "?"), remark.text))
    return found
