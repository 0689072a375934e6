"""Game records and statistics: what a finished (or running) game leaves behind.

Capture Go is exported as SGF (any Go program opens it). Ataxx and Myriades/Infinito get
a PGN-like plain text record: tag lines, then one ply per line in the game's own
notation, which `replay` reads back through the engine. Ataxx records also carry the
start FEN (with its gaps), as the Ataxx community writes positions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, func, select

import engine
from pbem import games as G
from pbem.models import Game

_TAG = re.compile(r'^\[(\w+)\s+"(.*)"\]$')
_PLY = re.compile(r"^(\d+)\.\s+(\S.*)$")


class RecordError(ValueError):
    """A text record that cannot be read back; the message says which line."""


@dataclass(frozen=True)
class Record:
    """An exported game: the file name, its MIME type and its text."""

    filename: str
    mimetype: str
    text: str


def _sgf_result(game: Game, rules: engine.Rules) -> str | None:
    """SGF RE[]: None lets the engine derive it from the moves (a win by captures)."""
    if game.status == "cancelled":
        return "Void"
    if game.status != "finished":
        return None
    if game.winner is None:
        return "0"
    colour = "B" if rules.sides[game.winner] == "black" else "W"
    how = {"resignation": "R", "time": "T", "adjudication": "F"}.get(game.ending or "")
    return f"{colour}+{how}" if how else None


def _options_text(options: dict[str, Any]) -> str:
    return " ".join(f"{key}={value}" for key, value in sorted(options.items()))


def export(session: Session, game: Game) -> Record:
    """The record of `game` as it stands (the moves so far, the result if it is over)."""
    rules = G.rules_of(game)
    p0, p1 = G.players(session, game)
    notations = [m.notation for m in G.moves(session, game)]
    if rules.family == "capturego":
        names = {rules.sides[0]: p0.name, rules.sides[1]: p1.name}
        text = rules.to_sgf(
            notations,
            black=names["black"],
            white=names["white"],
            result=_sgf_result(game, rules),
            date=game.created_at.strftime("%Y-%m-%d"),
            comment=f"pbem game #{game.id}" + (f": {game.reason}" if game.reason else ""),
        )
        return Record(f"pbem-{game.id}.sgf", "application/x-go-sgf", text)
    tags = [
        ("Event", f"pbem game #{game.id}"),
        ("Game", rules.name),
        ("Options", _options_text(game.options)),
        ("Date", game.created_at.strftime("%Y.%m.%d")),
        (rules.sides[0].capitalize(), f"{p0.name} <{p0.address}>"),
        (rules.sides[1].capitalize(), f"{p1.name} <{p1.address}>"),
        ("Result", game.result or ("void" if game.status == "cancelled" else "*")),
    ]
    if game.reason:
        tags.append(("Termination", game.reason))
    if rules.family == "ataxx":
        tags.append(("FEN", rules.fen(rules.start())))
    lines = [f'[{key} "{value.replace(chr(34), chr(39))}"]' for key, value in tags]
    lines.append("")
    lines += [f"{ply}. {text}" for ply, text in enumerate(notations, start=1)]
    return Record(f"pbem-{game.id}.txt", "text/plain", "\n".join(lines) + "\n")


def replay(text: str) -> tuple[engine.Rules, Any, dict[str, str], list[str]]:
    """Read a text record back: its rules, the final position, the tags and the moves.

    Every move is played through the engine, so a record that replays is a legal game."""
    tags: dict[str, str] = {}
    moves: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        if m := _TAG.match(line):
            tags[m.group(1)] = m.group(2)
        elif m := _PLY.match(line):
            if int(m.group(1)) != len(moves) + 1:
                raise RecordError(f"line {number}: ply {m.group(1)} where ply {len(moves) + 1} belongs")
            moves.append(m.group(2).strip())
        else:
            raise RecordError(f"line {number} is neither a tag nor a numbered move: {line[:60]!r}")
    if "Game" not in tags:
        raise RecordError('the record has no [Game "..."] tag')
    options = dict(word.split("=", 1) for word in tags.get("Options", "").split())
    rules = engine.create(tags["Game"], options)
    pos = rules.start()
    if "FEN" in tags and rules.fen(pos) != tags["FEN"]:
        raise RecordError(f"the start FEN {tags['FEN']} is not the start of {rules.describe()}")
    for ply, move in enumerate(moves, start=1):
        try:
            pos, _ = rules.play(pos, move)
        except engine.IllegalMove as exc:
            raise RecordError(f"ply {ply} ({move}) is illegal: {exc.message}") from None
    return rules, pos, tags, moves


def statistics(session: Session, kind: str | None = None) -> list[dict[str, Any]]:
    """Per game type: games finished, wins by side and draws with percentages."""
    query = (
        select(Game.kind, Game.winner, func.count(Game.id))
        .where(Game.status == "finished")
        .group_by(Game.kind, Game.winner)
    )
    if kind:
        query = query.where(Game.kind == kind)
    counts: dict[str, dict[int | None, int]] = {}
    for game_kind, winner, count in session.exec(query):
        counts.setdefault(game_kind, {})[winner] = count
    kinds = [kind] if kind else sorted(counts)
    rows = []
    for name in kinds:
        sides = engine.lookup(name).sides
        by = counts.get(name, {})
        total = sum(by.values())
        parts = [(sides[0], by.get(0, 0)), (sides[1], by.get(1, 0)), ("draw", by.get(None, 0))]
        shares = [{"name": n, "count": c, "percent": round(100 * c / total, 2) if total else 0.0} for n, c in parts]
        rows.append(
            {
                "kind": name,
                "title": engine.lookup(name).title,
                "games": total,
                "results": shares,
                "line": ", ".join(f"{s['name']} {s['count']} ({s['percent']:.2f}%)" for s in shares),
            }
        )
    return rows
