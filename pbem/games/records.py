"""Game records and statistics: what a finished (or running) game leaves behind.

A game's `record_format` says how it is exported. "sgf" games (Capture Go) get SGF, written
and read with sgfmill, so any Go program opens them. "text" games (Ataxx, Myriades/Infinito)
get a PGN-like plain text record: tag lines, then one ply per line in the game's own notation,
which `replay` reads back through the engine. The game's `record_tags` add its setup tags
(Ataxx: the start FEN with its gaps, as the Ataxx community writes positions).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sgfmill import sgf
from sqlmodel import Session, func, select

import pbem_engine
from pbem.core.models import Game
from pbem.games import clock, remarks
from pbem.games import store as G
from pbem_engine.common.phrases import Phrase

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


def _sgf_result(game: Game, rules: pbem_engine.Rules) -> str | None:
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


def export(session: Session, game: Game, addresses: bool = True, public_only: bool = False) -> Record:
    """The record of `game` as it stands (the moves so far, the result if it is over).

    The players' addresses are in it only for the players themselves and the operator
    (`addresses`): games are public, the addresses of the people who play them are not.
    `public_only`: only the remarks that were public (the web page's download)."""
    rules = G.rules_of(game)
    p0, p1 = G.players(session, game)
    notations = [m.notation for m in G.moves(session, game)]
    said = {ply: [f"{name}: {text}" for name, text in found] for ply, found in remarks.by_ply(session, game, public_only).items()}
    control = clock.control(game) if game.clock is not None else None  # None: days per move, as ever
    if rules.record_format == "sgf":
        text = to_sgf(
            rules,
            notations,
            black=p0.name,
            white=p1.name,
            result=_sgf_result(game, rules),
            date=game.created_at.strftime("%Y-%m-%d"),
            comment=f"pbem game #{game.id}" + (f": {game.reason}" if game.reason else ""),
            remarks=said,
            time_control=control.sgf() if control is not None else (None, None),
            times={m.ply: m.clock_left for m in G.moves(session, game) if m.clock_left is not None},
        )
        return Record(f"pbem-{game.id}.sgf", "application/x-go-sgf", text)
    tags = [
        ("Event", f"pbem game #{game.id}"),
        ("Game", rules.name),
        ("Options", _options_text(game.options)),
        ("Date", game.created_at.strftime("%Y.%m.%d")),
        (rules.sides[0].capitalize(), f"{p0.name} <{p0.address}>" if addresses else p0.name),
        (rules.sides[1].capitalize(), f"{p1.name} <{p1.address}>" if addresses else p1.name),
        ("Result", game.result or ("void" if game.status == "cancelled" else "*")),
    ]
    if game.reason:
        tags.append(("Termination", game.reason))
    if control is not None:
        tags.append(("TimeControl", control.notation()))
    tags += rules.record_tags()
    lines = [f'[{key} "{value.replace(chr(34), chr(39))}"]' for key, value in tags]
    lines.append("")
    lines += [_comments(said.get(0, []))] if said.get(0) else []
    lines += [f"{ply}. {text}" + (" " + _comments(said[ply]) if said.get(ply) else "")
              for ply, text in enumerate(notations, start=1)]
    return Record(f"pbem-{game.id}.txt", "text/plain", "\n".join(lines) + "\n")


def _comments(texts: list[str]) -> str:
    """Remarks as PGN-style `{...}` comments on one line: braces, backslashes and line breaks escaped."""
    def escaped(text: str) -> str:
        return text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}").replace("\n", "\\n")
    return " ".join("{" + escaped(text) + "}" for text in texts)


def _split_comments(line: str, number: int) -> tuple[str, list[str]]:
    """A record line without its `{...}` comments, and the comments (unescaped)."""
    start = line.find("{")
    if start < 0:
        return line, []
    rest, found, current, inside, i = line[start:], [], "", False, 0
    while i < len(rest):
        c = rest[i]
        if inside and c == "\\" and i + 1 < len(rest):
            current += "\n" if rest[i + 1] == "n" else rest[i + 1]
            i += 2
            continue
        if not inside and c == "{":
            inside, current = True, ""
        elif inside and c == "}":
            inside = False
            found.append(current)
        elif inside:
            current += c
        elif not c.isspace():
            raise RecordError(f"line {number}: {rest[i:i + 20]!r} after a comment")
        i += 1
    if inside:
        raise RecordError(f"line {number}: a comment is not closed")
    return line[:start].strip(), found


def comments(text: str) -> list[tuple[int, str]]:
    """The `{...}` comments of a text record, with the ply each follows (0: before the first move)."""
    found: list[tuple[int, str]] = []
    ply = 0
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or _TAG.match(line):
            continue
        rest, said = _split_comments(line, number)
        if m := _PLY.match(rest):
            ply = int(m.group(1))
        found += [(ply, comment) for comment in said]
    return found


def replay(text: str) -> tuple[pbem_engine.Rules, Any, dict[str, str], list[str]]:
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
            continue
        line, _ = _split_comments(line, number)  # remarks: `{...}` after a ply, or alone before the first
        if not line:
            continue
        if m := _PLY.match(line):
            if int(m.group(1)) != len(moves) + 1:
                raise RecordError(f"line {number}: ply {m.group(1)} where ply {len(moves) + 1} belongs")
            moves.append(m.group(2).strip())
        else:
            raise RecordError(f"line {number} is neither a tag nor a numbered move: {line[:60]!r}")
    if "Game" not in tags:
        raise RecordError('the record has no [Game "..."] tag')
    options = dict(word.split("=", 1) for word in tags.get("Options", "").split())
    rules = pbem_engine.create(tags["Game"], options)
    pos = rules.start()
    for key, value in rules.record_tags():
        if key in tags and tags[key] != value:
            raise RecordError(f"the start {key} {tags[key]} is not the start of {rules.describe()}")
    for ply, move in enumerate(moves, start=1):
        try:
            pos, _ = rules.play(pos, move)
        except pbem_engine.MoveError as exc:
            raise RecordError(f"ply {ply} ({move}) is illegal: {exc.message}") from None
    return rules, pos, tags, moves


def to_sgf(
    rules: pbem_engine.Rules,
    moves: Sequence[str],
    *,
    black: str = "Black",
    white: str = "White",
    result: str | None = None,
    date: str | None = None,
    comment: str | None = None,
    remarks: Mapping[int, Sequence[str]] | None = None,
    time_control: tuple[str | None, str | None] = (None, None),
    times: Mapping[int, int] | None = None,
) -> str:
    """An SGF FF[4] record of an "sgf" game played from the start by `moves` (canonical texts).

    The game's `record_tags` go into the root (Capture Go: KM, its target as the private CT[n]
    that `from_sgf` reads, and the rule in words in GC). When `result` is None and the moves end
    the game, RE[] is derived ("B+" for a win by captures, "0" for a draw); otherwise RE[] is
    `result` (e.g. "W+R" for a resignation) or absent for an unfinished game. `remarks` (ply ->
    texts) become the C[] of their move's node; those of ply 0 follow `comment` on the root.
    `time_control` is the root's TM (seconds) and OT (words), where the clock has them, and
    `times` (ply -> seconds) the mover's time left after a move, as its node's BL[] or WL[].
    """
    remarks = remarks or {}
    game = sgf.Sgf_game(rules.options["size"])
    root = game.get_root()
    root.set_raw("AP", b"pbem:1")
    for key, value in rules.record_tags():
        root.set_raw(key, _sgf_escape(value))
    root.set("PB", " ".join(black.split()))
    root.set("PW", " ".join(white.split()))
    main_time, overtime = time_control
    if main_time is not None:
        root.set_raw("TM", main_time.encode())
    if overtime is not None:
        root.set_raw("OT", _sgf_escape(overtime))
    pos = rules.start()
    for number, text in enumerate(moves, start=1):
        try:
            move = rules.parse(pos, text)
        except pbem_engine.MoveError as exc:
            raise RecordError(f"Move {number} ({text!r}) cannot be replayed: {exc.message}") from None
        colour = "b" if rules.turn(pos) == 0 else "w"
        node = game.extend_main_sequence()
        node.set_move(colour, rules.sgf_point(move))
        if times and number in times:
            node.set_raw("BL" if colour == "b" else "WL", str(times[number]).encode())
        if remarks.get(number):
            node.set("C", "\n".join(remarks[number]))
        pos = rules.apply(pos, move)
    if result is None:
        outcome = rules.outcome(pos)
        if outcome.over:
            result = "0" if outcome.winner is None else ("B+" if outcome.winner == 0 else "W+")
    if date:
        root.set("DT", date)
    if result:
        root.set("RE", result)
    comment = "\n".join([*([comment] if comment else []), *remarks.get(0, [])])
    if comment:
        root.set("C", comment)
    return game.serialise().decode("utf-8")


def _sgf_escape(value: str) -> bytes:
    """A SimpleText value as SGF bytes: backslash and ] escaped, line breaks made spaces."""
    return " ".join(value.replace("\\", "\\\\").replace("]", "\\]").split()).encode("utf-8")


def _sgf_rules() -> type[pbem_engine.Rules]:
    """The registered game whose records are SGF (the first, should there be several)."""
    for name in pbem_engine.names():
        if pbem_engine.lookup(name).record_format == "sgf":
            return pbem_engine.lookup(name)
    raise RecordError("no game here is recorded as SGF")


def from_sgf(data: str | bytes, *, target: int | None = None) -> tuple[pbem_engine.Rules, list[str]]:
    """The rules and main-line moves (canonical texts) of an SGF record, checked by replaying them.

    Unknown properties, comments and variations (only the first is followed) are ignored. The
    target comes from `target`, else CT[], else the default. Setup stones (AB, AW, AE) are
    refused: the game starts from the empty board.
    """
    try:
        game = sgf.Sgf_game.from_bytes(data) if isinstance(data, bytes) else sgf.Sgf_game.from_string(data)
    except ValueError as exc:
        raise RecordError(f"This is not an SGF record that can be read ({exc}).") from None
    root = game.get_root()
    if root.has_property("GM") and root.get("GM") != 1:
        raise RecordError(f"This SGF record is not a Go game (GM[{root.get('GM')}]).")
    cls = _sgf_rules()
    tags = {key: root.get_raw(key).decode("utf-8", "replace") for key in root.properties()}
    options = cls.record_options(game.get_size(), tags)
    if target is not None:
        options["target"] = target
    try:
        rules = cls(options)
    except pbem_engine.EngineError as exc:
        raise RecordError(f"This SGF record's game cannot be played here: {exc.message}") from None
    pos = rules.start()
    moves: list[str] = []
    for node in game.get_main_sequence():
        number = len(moves) + 1
        if node.has_setup_stones():
            raise RecordError("This SGF record places stones with AB[], AW[] or AE[]; the game starts empty.")
        try:
            colour, point = node.get_move()
        except ValueError:
            raise RecordError(f"Move {number} of this SGF record is off the board or unreadable.") from None
        if colour is None:
            continue
        if "bw".index(colour) != rules.turn(pos):
            raise RecordError(f"Move {number} in this SGF record is played out of turn.")
        move = rules.from_sgf_point(point)
        try:
            text = rules.format(pos, rules.parse(pos, rules.format(pos, move)))
        except pbem_engine.MoveError as exc:
            raise RecordError(f"Move {number} of this SGF record is illegal: {exc.message}") from None
        pos = rules.apply(pos, move)
        moves.append(text)
    return rules, moves


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
        sides = pbem_engine.lookup(name).sides
        by = counts.get(name, {})
        total = sum(by.values())
        parts = [(sides[0], by.get(0, 0)), (sides[1], by.get(1, 0)), ("draw", by.get(None, 0))]
        shares = [{"name": n, "count": c, "percent": round(100 * c / total, 2) if total else 0.0} for n, c in parts]
        rows.append(
            {
                "kind": name,
                "title": Phrase(pbem_engine.lookup(name).title),  # said in the reader's language
                "games": total,
                "results": shares,
                "line": ", ".join(f"{s['name']} {s['count']} ({s['percent']:.2f}%)" for s in shares),
            }
        )
    return rows
