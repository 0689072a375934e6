"""An Atom feed (RFC 4287) per player: the moves of their listed games, newest first."""

from __future__ import annotations

from datetime import UTC, datetime

from lxml import etree
from sqlmodel import Session, col, select

from pbem.core.models import Move, Player
from pbem.letters import weblinks
from pbem.text.i18n import Speaker
from pbem.web import seen

ATOM = "http://www.w3.org/2005/Atom"
ENTRIES = 50


def _utc(at: datetime) -> str:
    return (at if at.tzinfo else at.replace(tzinfo=UTC)).astimezone(UTC).isoformat().replace("+00:00", "Z")


def atom(session: Session, player: Player, base: str, domain: str, talk: Speaker) -> bytes:
    """The feed of `player`'s listed games' moves, links absolute under `base`."""
    games = {g.id: (g, a, b) for g, a, b in seen.listed_games(session, player.id)}
    moves = session.exec(
        select(Move).where(col(Move.game_id).in_(list(games)))
        .order_by(col(Move.created_at).desc(), col(Move.id).desc()).limit(ENTRIES)
    ).all() if games else []
    feed = etree.Element(f"{{{ATOM}}}feed", nsmap={None: ATOM})
    etree.SubElement(feed, f"{{{ATOM}}}id").text = f"tag:{domain},2026:player-{player.id}"
    etree.SubElement(feed, f"{{{ATOM}}}title").text = talk.gettext("Games of %(name)s", name=player.name)
    updated = max((m.created_at for m in moves), default=player.created_at)
    etree.SubElement(feed, f"{{{ATOM}}}updated").text = _utc(updated)
    etree.SubElement(feed, f"{{{ATOM}}}link", rel="self", href=f"{base}/p/{player.id}/feed.atom")
    etree.SubElement(feed, f"{{{ATOM}}}link", rel="alternate", href=f"{base}/p/{player.id}")
    author = etree.SubElement(feed, f"{{{ATOM}}}author")
    etree.SubElement(author, f"{{{ATOM}}}name").text = "pbem"
    for move in moves:
        game, first, second = games[move.game_id]
        mover = (first, second)[move.side].name
        entry = etree.SubElement(feed, f"{{{ATOM}}}entry")
        etree.SubElement(entry, f"{{{ATOM}}}id").text = f"tag:{domain},2026:game-{game.id}-ply-{move.ply}"
        etree.SubElement(entry, f"{{{ATOM}}}title").text = talk.gettext(
            "Game #%(id)s, move %(ply)s: %(name)s played %(move)s",
            id=game.id, ply=move.ply, name=mover, move=move.notation)
        etree.SubElement(entry, f"{{{ATOM}}}updated").text = _utc(move.created_at)
        etree.SubElement(entry, f"{{{ATOM}}}link", rel="alternate",
                         href=f"{base}{weblinks.game_path(game)}?ply={move.ply}")
        etree.SubElement(entry, f"{{{ATOM}}}summary").text = f"{first.name} - {second.name}"
    return etree.tostring(feed, xml_declaration=True, encoding="utf-8")
