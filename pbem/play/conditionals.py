"""Conditional moves: `if X then Y [if Z then W ...]` lines kept for a game and played for
their owner the moment the opponent plays X.

A line is checked through the engine when it is written (X legal for the opponent in the
position as it stands, Y legal after X, and so on down the chain), so what is stored is a
list of canonical notations that fitted the game then. `respond` is called after every move a
player makes: the opponent's lines that answer it play their Y through `pbem.games.store.play` (so
every rule, the clock and the end of the game hold), the rest of a chain waits for the next
move, and a line that no longer fits is dropped with a notice to its owner. A conditional
reply is itself a move, so it may set off the other player's lines in turn; the loop is bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

import pbem_engine
from pbem.core.errors import CommandError, GameError
from pbem.core.models import Conditional, Game, Move, Player
from pbem.games import store as G
from pbem.letters import notify
from pbem.letters.notify import Letter
from pbem.letters.views import game_view
from pbem_engine.common.phrases import nphrase, phrase

#: the word between a move and its answer, in each language the players write
THEN = frozenset({"then", "allora", "poi", "то", "тогда", "тоді", "그러면", "그럼", "就", "那么", "则"})

#: the most conditional replies one move may set off (both players' lines answering each other)
MAX_ANSWERS = 64

#: why a line was dropped, as the notice says it
DROPPED = ("other", "illegal", "undone")


@dataclass(frozen=True)
class Stored:
    """What `store` did: the line kept, and whether it replaced one for the same move."""

    line: Conditional
    replaced: bool


def parse(words: Sequence[str], is_if: Callable[[str], bool]) -> list[str]:
    """The moves of a line as written, [X, Y, X2, Y2, ...], from the words after `if` (and the
    game number). `is_if` tells the `if` word of a further pair in any language."""
    pairs: list[list[str]] = [[]]
    for word in words:
        if word.casefold() in THEN:
            pairs[-1].append("")
            continue
        if is_if(word):
            pairs.append([])
            continue
        if not pairs[-1]:
            pairs[-1].append("")
        pairs[-1][-1] = f"{pairs[-1][-1]} {word}".strip()
    moves = [move for pair in pairs for move in pair]
    if not moves or len(moves) % 2 or any(not move for move in moves) or any(len(pair) != 2 for pair in pairs):
        raise CommandError(
            phrase("I could not read this conditional line: write a move of your opponent, then your answer."),
            phrase("Write e.g. {example}; add more pairs for a longer line.", example="if c4 then d5 if e3 then f4"),
            code="if.syntax",
        )
    return moves


def require_length(moves: Sequence[str], longest: int) -> None:
    """A line of at most `longest` pairs, said before its moves are checked."""
    if len(moves) // 2 > longest:
        raise CommandError(
            nphrase(
                "A conditional line may hold at most {n} pair of moves.",
                "A conditional line may hold at most {n} pairs of moves.", longest,
            ),
            phrase("Write a shorter line; you can add to it after the moves are played."),
            code="if.too_long", params={"most": longest},
        )


def looks_like_line(words: Sequence[str], is_if: Callable[[str], bool]) -> bool:
    """Whether the words after `if` are meant as a conditional line, and not prose that starts
    with the word "if": a short line (`if list`, `if 42 clear`, a line missing its `then`), or
    one with a `then` word whose moves are a word or two each."""
    if len(words) <= 2:
        return True
    if not any(word.casefold() in THEN for word in words):
        return False
    run = 0
    for word in words:
        run = 0 if word.casefold() in THEN or is_if(word) else run + 1
        if run > 2:
            return False
    return True


def check(game: Game, owner: Player, written: Sequence[str]) -> list[str]:
    """The canonical notations of a line, each move checked in the position it answers: X for
    the opponent in the game as it stands, Y for `owner` after X, and so on. A move that cannot
    be played raises GameError naming it; nothing is stored."""
    rules = G.rules_of(game)
    pos = G.position(game)
    side = game.side_of(owner.id)
    canonical = []
    for n, text in enumerate(written):
        mover = 1 - side if n % 2 == 0 else side
        if rules.outcome(pos).over:
            raise GameError(
                phrase("In your conditional line, the game is over before {move}.", move=text),
                phrase("End the line at the move that ends the game."),
                game, code="if.game_over", params={"game": game.id, "move": text},
            )
        if rules.turn(pos) != mover:
            raise GameError(
                phrase("In your conditional line, {move} comes when it is not that player's turn.", move=text),
                phrase("Each pair is a move of your opponent and then yours."),
                game, code="if.turn", params={"game": game.id, "move": text},
            )
        try:
            move = rules.parse(pos, text)
        except pbem_engine.EngineError as exc:
            message = (
                phrase("In your conditional line, your opponent cannot play {move} there.", move=text)
                if mover != side
                else phrase("In your conditional line, you could not answer with {move}.", move=text)
            )
            raise GameError(
                message, exc.message, game, code="if.illegal", params={"game": game.id, "move": text, "at": n},
            ) from None
        canonical.append(rules.format(pos, move))
        pos = rules.apply(pos, move)
    return canonical


def lines(session: Session, game: Game, player: Player | None = None) -> list[Conditional]:
    """The lines stored for a game (one player's, when given), oldest first."""
    query = select(Conditional).where(Conditional.game_id == game.id)
    if player is not None:
        query = query.where(Conditional.player_id == player.id)
    return list(session.exec(query.order_by(Conditional.id)))


def store(
    session: Session, game: Game, owner: Player, moves: list[str], raw: str, message_id: str | None,
    now: datetime, *, most_lines: int, longest: int,
) -> Stored:
    """Keep a checked line for the opponent's next move; one for the same X replaces it."""
    require_length(moves, longest)
    ply = game.ply + 1
    kept = lines(session, game, owner)
    same = [line for line in kept if line.ply == ply and line.moves[:1] == moves[:1]]
    if len(kept) - len(same) >= most_lines:
        raise CommandError(
            nphrase(
                "You have {n} conditional line in game #{game}, the most I keep.",
                "You have {n} conditional lines in game #{game}, the most I keep.", len(kept), game=game.id,
            ),
            phrase("Write {command} to start again.", command=f"if {game.id} clear"),
            code="if.too_many", params={"game": game.id, "most": most_lines},
        )
    for line in same:
        session.delete(line)
    line = Conditional(
        game_id=game.id, player_id=owner.id, ply=ply, moves=moves, raw=raw[:400],
        message_id=message_id, created_at=now,
    )
    session.add(line)
    game.lines_waiting = True
    session.add(game)
    session.flush()
    return Stored(line, bool(same))


def clear(session: Session, game: Game, owner: Player) -> int:
    """Drop every line of `owner` in `game`; how many there were."""
    gone = lines(session, game, owner)
    for line in gone:
        session.delete(line)
    _mark(session, game)
    return len(gone)


def _mark(session: Session, game: Game) -> None:
    """Note on the game whether any line is left, so that a move in a game without lines (most
    games) costs no query for them."""
    session.flush()
    left = session.exec(select(Conditional.id).where(Conditional.game_id == game.id).limit(1)).first()
    game.lines_waiting = left is not None
    session.add(game)


def shown(line: Conditional) -> dict[str, object]:
    """A line as the mails show it: its pairs (the opponent's move, the answer) and its ply."""
    pairs = [(line.moves[i], line.moves[i + 1]) for i in range(0, len(line.moves) - 1, 2)]
    return {"pairs": [{"move": x, "answer": y} for x, y in pairs], "ply": line.ply}


def respond(
    session: Session, game: Game, played: Move, sender: Player | None, letters: list[Letter], now: datetime,
) -> None:
    """After `played`, play the answers the other player's lines hold, and theirs in turn.

    `letters` are those of the mail being handled: each conditional move adds the usual
    moved/your_move letters (marked as coming from a condition), and the letter that told
    the line's owner it was their move is taken out, since the line answered at once. A
    letter to `sender` becomes a section of the reply to their mail."""
    if not game.lines_waiting:
        return
    for _ in range(MAX_ANSWERS):
        played = _answer(session, game, played, sender, letters, now)
        if played is None:
            break
    _turned(letters, game)
    _mark(session, game)


def _turned(letters: list[Letter], game: Game) -> None:
    """A line's answer that the other player's line answered in turn: its owner is on move
    again, and the "your move" section that follows in the same mail says so. The answer's
    own section must not say the opponent is on move, nor lead the mail's subject."""
    for n, letter in enumerate(letters):
        condition = letter.data.get("condition")
        if letter.template != "moved.txt" or not isinstance(condition, dict):
            continue
        if any(later.template == "your_move.txt" and later.player.id == letter.player.id
               and later.game is not None and later.game.id == game.id for later in letters[n + 1:]):
            condition["your_move"] = True


def _answer(
    session: Session, game: Game, played: Move, sender: Player | None, letters: list[Letter], now: datetime,
) -> Move | None:
    """One step of `respond`: the owner's answer to `played`, if a line holds one."""
    answer, dropped = None, {reason: [] for reason in DROPPED}
    for line in lines(session, game):  # a game with lines waiting (`Game.lines_waiting`)
        if game.status != "active":
            session.delete(line)  # the game is over: nothing is left to answer, nor to tell
        elif line.player_id == played.player_id and line.ply > played.ply:
            continue  # the rest of a chain of the player who just moved: it waits for the next move
        elif line.player_id == played.player_id or line.ply != played.ply:
            dropped["undone"].append(line)  # it answered a position the game is no longer in
        elif line.moves[0] != played.notation or answer is not None:
            dropped["other"].append(line)
        else:
            answer = line
    move = None
    if answer is not None:
        owner = session.get(Player, answer.player_id)
        try:
            move, effects = G.play(session, game, owner, answer.moves[1], answer.message_id, now)
        except CommandError:  # the rules refuse it now: the line is dropped, the owner is on move
            dropped["illegal"].append(answer)
        else:
            _played(session, game, answer, move, owner, sender, letters, effects.taken)
    for reason, gone in dropped.items():
        if gone:
            letters.extend(_dropped(session, game, gone, reason, played.notation, sender))
    return move


def _played(
    session: Session, game: Game, line: Conditional, move: Move, owner: Player, sender: Player | None,
    letters: list[Letter], taken: int,
) -> None:
    """Keep the rest of the line for the next move, and say what was played and why."""
    answered, rest = line.moves[0], line.moves[2:]
    if rest and game.status == "active":
        line.moves, line.ply = rest, move.ply + 1
        session.add(line)
    else:
        session.delete(line)
    letters[:] = [  # the owner was told it was their move; the line has answered already
        letter for letter in letters
        if not (letter.player.id == owner.id and letter.template == "your_move.txt" and letter.game is not None
                and letter.game.id == game.id and letter.data["game"].get("ply") == move.ply - 1)
    ]
    condition = {"answers": answered, "left": len(rest) // 2 if game.status == "active" else 0,
                 "your_move": False}  # set by `_turned` when the other player's line answers in turn
    for letter in notify.tell(session, "moved", game, owner, move=move.notation, taken=taken, condition=condition):
        letters.append(_addressed(letter, sender))


def _dropped(
    session: Session, game: Game, gone: list[Conditional], reason: str, played: str, sender: Player | None,
) -> list[Letter]:
    """Delete the lines that no longer fit, each owner told once which and why."""
    notices = []
    for player_id in dict.fromkeys(line.player_id for line in gone):
        owned = [line for line in gone if line.player_id == player_id]
        for line in owned:
            session.delete(line)
        owner = session.get(Player, player_id)
        data = {"game": game_view(session, game, owner), "lines": [shown(line) for line in owned],
                "why": reason, "played": played}
        notices.append(_addressed(Letter(owner, "conditional_dropped.txt", data, game=game), sender))
    return notices


def drop_all(session: Session, game: Game, reason: str = "undone") -> list[Letter]:
    """A take-back or an operator's undo changed the position: every line of the game is dropped,
    its owner told."""
    gone = lines(session, game) if game.lines_waiting else []
    notices = _dropped(session, game, gone, reason, "", None) if gone else []
    _mark(session, game)
    return notices


def _addressed(letter: Letter, sender: Player | None) -> Letter:
    """A letter to the player whose mail is being handled is part of the reply to it; any other
    is a mail of its own."""
    letter.reply = sender is not None and letter.player.id == sender.id
    return letter
