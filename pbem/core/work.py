"""The unit of work: what one transaction keeps beside its rows, in one typed object.

Each field saves a query that a later step of the same transaction would otherwise make again
(the mails of a move read the move, the vacations and the threads the move's own code just
read or wrote; the read of a mail's boards also answers a few questions ahead, see the end of
this module). They are only as true as the transaction that read them, so they all live
here and are dropped in one place: `Work.clear` when the transaction ends, committed or rolled
back, and `Work.savepoint_ended` for what a savepoint's end can make stale. The command
context carries it (`Context.work`); code that has only the session asks `work_of(session)`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from sqlalchemy import Select, bindparam, event, exists
from sqlalchemy.orm import Session, SessionTransaction
from sqlmodel import col

from pbem.core.models import Game, HeldMail, Move, Player, Vacation, Watcher
from pbem.core.rows import attach, table
from pbem.core.wallclock import aware


@dataclass(eq=False)
class Work:
    """One transaction's caches. A field's comment says who writes it and who reads it; a row's
    id is typed `int | None` as the models type it (None until the row is flushed)."""

    #: rows held for the rest of the transaction: the session's identity map holds them only
    #: weakly, and a row dropped from it costs a SELECT the next time something asks for it (`db.keep`)
    kept: list[object] = field(default_factory=list)
    #: game id -> the move this transaction played in it, for the mails that show it
    #: (`store.play` and the clock round write it, `store.last_move` reads it, `store.undo` drops it)
    newest_moves: dict[int | None, Move] = field(default_factory=dict)
    #: (game, version, text) -> the engine's reading of a move written in a mail, or its error:
    #: the runner reads a bare line to tell a move from chatter, `store.play` plays that reading
    parsed_moves: dict[tuple[int | None, int, str], Any] = field(default_factory=dict)
    #: the views templates see, keyed by what they show (a game's version): `views.memo`
    views: dict[tuple, Any] = field(default_factory=dict)
    #: In-Reply-To -> (template, thread) of our mail it names, or None: `proof.answered`
    answered: dict[str, tuple[Any, ...] | None] = field(default_factory=dict)
    #: (player, game) -> the first and the newest of our mails in its thread: `post._thread`
    threads: dict[tuple[int | None, int | None], tuple[str, str] | None] = field(default_factory=dict)
    #: (player, turn start) -> the vacations that may pause that turn: `vacations.pausing`
    holidays: dict[tuple[int | None, datetime | None], list[Vacation]] = field(default_factory=dict)
    #: player -> a time after which none of their vacations ends, as a read of the boards a mail
    #: answers found (`take_game_facts`): `vacations.pausing` answers a turn begun then or later
    #: without a query; a vacation begun or ended forgets it (`forget_holidays`)
    free_after: dict[int | None, datetime] = field(default_factory=dict)
    #: the games that read found no one watching: `watchers.watchers` answers them without a
    #: query; a new watcher forgets its game (`watchers.watch`)
    unwatched: set[int | None] = field(default_factory=set)
    #: (game, ply) -> the reminders the clock round found sent this turn, read once: `clock.read_ahead`
    reminders_sent: dict[tuple[int | None, int], list[float]] = field(default_factory=dict)
    #: (game, player, Message-ID) of the remarks stored, for the move of the same mail: `remarks.attach`
    remarks: set[tuple[int | None, int | None, str | None]] = field(default_factory=set)
    #: the row this mail's held commands went into: its language is settled after the commands
    held: HeldMail | None = None

    def forget_views(self) -> None:
        """A change that does not touch a game's version (a vacation, a new name) follows: the
        next views must see it."""
        self.views.clear()

    def forget_holidays(self) -> None:
        """A vacation began or ended: the turns it pauses are read again."""
        self.holidays.clear()
        self.free_after.clear()

    def savepoint_ended(self) -> None:
        """A savepoint ended (a command line's, kept or rolled back): what it read of the
        vacations may no longer be so."""
        self.holidays.clear()

    def clear(self) -> None:
        """The transaction ended: nothing read in it is known any longer."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, list | dict | set):
                value.clear()
            else:
                setattr(self, f.name, None)


def work_of(session: Session) -> Work:
    """The unit of work of `session`'s transaction, made on first use."""
    work = session.info.get(Work)
    if work is None:
        work = session.info[Work] = Work()
    return work


@event.listens_for(Session, "after_transaction_end")
def _transaction_ended(session: Session, transaction: SessionTransaction) -> None:
    # A flush runs in a subtransaction of its own and changes nothing read; a savepoint or the
    # real transaction ending (committed or rolled back) can.
    work = session.info.get(Work)
    if work is None:
        return
    if transaction.parent is None:
        work.clear()
    elif transaction.nested:
        work.savepoint_ended()


# What the read of a mail's boards finds of their games -----------------------------------------
#
# A move mail's read of the boards it answers (`pbem.trust.proof`) joins their games; the mails
# of the move then asked three more questions, a statement each: who the opponent is
# (`store.players`), who watches the game (`watchers.watchers`) and whether the player on move
# is away (`vacations.pausing`). Most games have no watcher and most players no vacation, so the
# same read brings both players and two yes-or-no answers, and the three statements are saved:
# the players are in the session, and a game no one watches or a player with no vacation ahead
# needs no read at all. A new watcher or vacation in the transaction forgets the answer.

_PLAYER0 = table(Player).alias("player0")
_PLAYER1 = table(Player).alias("player1")
_WIDTH = len(table(Player).columns)
#: the models whose pending changes a read `with_game_facts` flushes first (`rows.read`); a player
#: the session holds wins over the row read, so a change to one need not be written
GAME_FACT_READS = (Watcher, Vacation)


def _away(player_id: Any) -> Any:
    """Whether the player has a vacation that ends after the mail's time (`at`)."""
    return exists().where(col(Vacation.player_id) == player_id, col(Vacation.ends_at) > bindparam("at"))


def with_game_facts(statement: Select[Any]) -> Select[Any]:
    """`statement` (which selects a `game`, maybe through an outer join) with the game's
    players and the three answers after its columns, as `take_game_facts` reads them; a run
    takes the mail's time as the parameter `at`."""
    return (
        statement.add_columns(
            _PLAYER0, _PLAYER1, exists().where(col(Watcher.game_id) == col(Game.id)),
            _away(col(Game.player0_id)), _away(col(Game.player1_id)),
        )
        .outerjoin(_PLAYER0, _PLAYER0.c.id == col(Game.player0_id))
        .outerjoin(_PLAYER1, _PLAYER1.c.id == col(Game.player1_id))
    )


def take_game_facts(session: Any, game: Game, row: Sequence[Any], start: int, at: datetime) -> None:
    """Keep what a row of `with_game_facts` (from column `start`) says about `game` as the
    database was at `at`: both players in the session (an object it holds already wins), and
    the answers for `watchers.watchers` and `vacations.pausing`."""
    work = work_of(session)
    for n in (0, 1):
        if row[start + n * _WIDTH] is not None:  # the identity map holds them only weakly: kept
            work.kept.append(attach(session, Player, row, start + n * _WIDTH))
    watched, *away = row[start + 2 * _WIDTH : start + 2 * _WIDTH + 3]
    if not watched:
        work.unwatched.add(game.id)
    for player_id, vacation in zip((game.player0_id, game.player1_id), away, strict=True):
        if not vacation:
            work.free_after[player_id] = aware(at)
