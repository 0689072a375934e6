"""The records: players, challenges, games, moves, inbound messages and the outbox.

Every change of schema goes through a migration in `pbem/core/migrations/` (games last months).
Times are timezone-aware UTC datetimes (sqlmodel stores them as UTC).
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, LargeBinary, UniqueConstraint
from sqlmodel import Field, SQLModel


class Player(SQLModel, table=True):
    """Whoever writes from an address; the first mail registers them."""

    id: int | None = Field(default=None, primary_key=True)
    address: str = Field(unique=True, index=True, max_length=320)
    name: str = Field(max_length=80)
    secret: str = Field(max_length=32)  # proves a reply came from someone who got our mail
    created_at: datetime
    banned: bool = False  # set by `pbem admin ban`: no replies, no play
    timezone: str = Field(default="UTC", max_length=64)  # IANA zone for deadlines and weekends
    version: int = 0  # bumped by every change of the player's own records: an older mail's token is stale
    proven_at: datetime | None = None  # when the address first showed that it receives our mail
    format: str = Field(default="html", max_length=8)  # "html": text and HTML parts; "text": text only
    language: str = Field(default="en", max_length=8)  # the code of the language of every mail to them (pbem.text.i18n)
    language_at: datetime | None = None  # when that became theirs (`language`, or a proven mail in it); None: not yet
    relay: bool = True  # `say off`: the opponents' relayed messages are not passed on to them
    notify: str = Field(default="each", max_length=8)  # "each": a mail per move; "digest": one a day
    digest_at: str | None = Field(default=None, max_length=5)  # "HH:MM" in their zone, for `notify digest`
    digest_due_at: datetime | None = Field(default=None, index=True)  # the next digest (UTC); None: no digest
    digest_sent_at: datetime | None = None  # when the last digest went out (what is new since)
    watch_mail: bool = True  # `notify off`: no mail per move of the games they watch
    bot_level: int | None = None  # a bot of pbem.games.bots (1-3); None: a person
    contact: str | None = Field(default=None, max_length=32)  # the secret of their personal address (trust)
    stopped_at: datetime | None = None  # `stop`: no mail to them at all until their next proven mail
    resumes: int = 0  # the times a proven mail took their mail back after a stop: the stop MAC covers it
    hard_bounces: int = 0  # our mails to them that bounced for good since they last wrote (pbem.letters.bounces)
    bounced_at: datetime | None = None  # too many hard bounces: no mail to them until any proven mail of theirs
    public: bool = False  # `public yes`: their games may be listed on the web pages (both players must agree)

    @property
    def silent(self) -> bool:
        """No mail may be queued to them: they wrote `stop`, or their address bounces."""
        return self.stopped_at is not None or self.bounced_at is not None


class Challenge(SQLModel, table=True):
    """An invitation to a game: to one opponent, or open to anyone when opponent_id is None."""

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=40)  # the engine registry name
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    colour: str = Field(default="random", max_length=20)  # the challenger's wish
    challenger_id: int = Field(foreign_key="player.id", index=True)
    opponent_id: int | None = Field(default=None, foreign_key="player.id", index=True)
    status: str = Field(default="open", max_length=20, index=True)  # open accepted declined withdrawn
    game_id: int | None = Field(default=None, foreign_key="game.id")
    created_at: datetime
    days: int = 7  # time control: days per move
    weekends_off: bool = False
    takebacks: bool = True  # `takebacks=off`: no take-back requests in the game
    clock: str | None = Field(default=None, max_length=40)  # `clock=` (pbem.games.timecontrol); None: `days` per move


class Game(SQLModel, table=True):
    """A game in progress or finished; `state` is the engine's dump of the current position."""

    __table_args__ = (
        Index("ix_game_status_kind_winner", "status", "kind", "winner"),  # admin stats
        Index("ix_game_status_clock_due_at", "status", "clock_due_at"),  # the clock round's due games
        Index("ix_game_status_bot_due_at", "status", "bot_due_at"),  # the bot runner's games
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=40)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    player0_id: int = Field(foreign_key="player.id", index=True)  # the side that moves first
    player1_id: int = Field(foreign_key="player.id", index=True)
    state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = Field(default="active", max_length=20, index=True)  # active finished cancelled
    turn: int = 0  # side to move
    ply: int = 0
    version: int = 0  # bumped by every change; a reply must have seen the current one
    draw_offer: int | None = None  # side that offers a draw
    winner: int | None = None  # side, None for a draw or an unfinished game
    result: str | None = Field(default=None, max_length=10)  # "1-0", "0-1", "1/2-1/2"
    reason: str | None = Field(default=None, max_length=200)
    ending: str | None = Field(default=None, max_length=20)  # rules resignation agreement time adjudication
    termination: str | None = Field(default=None, max_length=20)  # the engine's code, for a rules ending
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=True))  # its facts
    created_at: datetime
    updated_at: datetime = Field(index=True)
    days: int = 7  # time control: days per move (see pbem/games/clock.py)
    weekends_off: bool = False
    turn_started_at: datetime | None = None  # when the side on move got the move
    clock_credit: int = 0  # seconds the admin added to this turn's deadline
    clock_due_at: datetime | None = None  # the next reminder or deadline (pbem.games.clock.next_event); None: no clock
    takebacks: bool = True  # the challenge's `takebacks=`: whether `takeback` may be asked
    takeback_offer: int | None = None  # the side that asks to take back its last move (lapses with a move)
    # take-backs asked today, per side: {"day": "YYYY-MM-DD" (UTC), "sides": [n0, n1]} (a daily cap)
    takeback_asks: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    lines_waiting: bool = False  # conditional lines are stored for the game (pbem.play.conditionals)
    bot_due_at: datetime | None = None  # a bot is on move since (pbem.runners.bots); None: a person or over
    # the secret part of the game's web page address (pbem.letters.weblinks): whoever has the link sees it
    web_key: str | None = Field(default_factory=lambda: secrets.token_hex(10), max_length=32)
    clock: str | None = Field(default=None, max_length=40)  # the time control (pbem.games.timecontrol); None: `days` per move
    #: each side's clock of a `clock` game: {"left": [s0, s1] (seconds), "moves": [n0, n1]} (timecontrol.Sides)
    clock_sides: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))

    def player_id(self, side: int) -> int:
        return self.player1_id if side else self.player0_id

    def side_of(self, player_id: int) -> int | None:
        if player_id == self.player0_id:
            return 0
        if player_id == self.player1_id:
            return 1
        return None


class Move(SQLModel, table=True):
    """One ply as played: canonical notation to replay, the raw text as the player wrote it."""

    __table_args__ = (UniqueConstraint("game_id", "ply"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    ply: int  # 1 for the first move
    side: int
    player_id: int = Field(foreign_key="player.id")
    notation: str = Field(max_length=400)
    raw: str = Field(max_length=400)
    message_id: str | None = Field(default=None, max_length=400)
    created_at: datetime
    clock_left: int | None = None  # a `clock` game: the mover's time left after the move (seconds)


class Remark(SQLModel, table=True):
    """A message a player relayed to their opponent with `say`, stored with the move it came
    with (`ply`: that move's number; the game's ply when it came alone)."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    player_id: int = Field(foreign_key="player.id")
    ply: int
    text: str = Field(max_length=2000)
    public: bool = False  # shown to the game's watchers too
    message_id: str | None = Field(default=None, max_length=400)
    created_at: datetime


class Conditional(SQLModel, table=True):
    """A conditional line (`if X then Y ...`): when the opponent plays `moves[0]` as move number
    `ply`, the server plays `moves[1]` for the player, and the rest waits as the next line."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    player_id: int = Field(foreign_key="player.id")
    ply: int  # the number of the opponent's move the line answers
    moves: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))  # canonical notations
    raw: str = Field(default="", max_length=400)  # as the player wrote it
    message_id: str | None = Field(default=None, max_length=400)
    created_at: datetime


class InboundMessage(SQLModel, table=True):
    """Every message read; its unique message_id is what makes processing exactly-once."""

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(unique=True, max_length=400)
    digest: str = Field(max_length=64)
    sender: str = Field(max_length=320, index=True)
    subject: str = Field(default="", max_length=400)
    status: str = Field(max_length=20)  # processed, robot (no reply), ...
    note: str = Field(default="", max_length=400)
    proof: str | None = Field(default=None, max_length=20)  # plus-address, subject, dmarc, wrong; None
    game_id: int | None = Field(default=None, foreign_key="game.id", index=True)
    received_at: datetime = Field(index=True)
    acts: str | None = Field(default=None, max_length=64, index=True)  # what a proven mail did (trust.acts)


class Outbox(SQLModel, table=True):
    """A mail to deliver, one recipient per row; the sender loop retries it until it is sent."""

    __table_args__ = (
        Index("ix_outbox_status_sent_at", "status", "sent_at"),  # admin prune
        Index("ix_outbox_game_player", "game_id", "player_id", "id"),  # a thread's ends, by a seek
        Index("ix_outbox_token_player", "token", "player_id"),  # the mail of a token
    )

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(unique=True, max_length=400)
    recipient: str = Field(max_length=320, index=True)
    template: str = Field(max_length=40)  # the template of its first section
    game_id: int | None = Field(default=None, foreign_key="game.id")  # indexed with player_id
    player_id: int | None = Field(default=None, foreign_key="player.id", index=True)
    message: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # the bytes sent
    status: str = Field(default="pending", max_length=20, index=True)  # pending sent failed
    attempts: int = 0
    next_attempt_at: datetime
    last_error: str | None = Field(default=None, max_length=400)
    created_at: datetime
    sent_at: datetime | None = None
    game_version: int | None = None  # the game's version this mail showed (a reply to it saw that board)
    thread: str | None = Field(default=None, max_length=400, index=True)  # the inbound thread it answers
    unproven: bool = False  # an answer to a mail that showed no proof of receipt (a few a day at most)
    token: str | None = Field(default=None, max_length=32)  # the MAC of the token it carries
    #: what it showed: {"games": {"42": version, ...}, "held": [held mail ids]}; a reply proves that
    shown: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class AdminAction(SQLModel, table=True):
    """The audit log: every change made through `pbem admin`, with who did it and why."""

    id: int | None = Field(default=None, primary_key=True)
    actor: str = Field(max_length=80)
    action: str = Field(max_length=40, index=True)
    detail: str = Field(default="", max_length=400)
    reason: str = Field(default="", max_length=400)
    game_id: int | None = Field(default=None, foreign_key="game.id", index=True)
    player_id: int | None = Field(default=None, foreign_key="player.id", index=True)
    created_at: datetime


class Rating(SQLModel, table=True):
    """A player's Glicko-2 rating in one game type (the engine registry name)."""

    __table_args__ = (UniqueConstraint("player_id", "kind"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    kind: str = Field(max_length=40, index=True)
    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06
    games: int = 0
    updated_at: datetime


class RatingPoint(SQLModel, table=True):
    """A player's rating in one game type just after one of their rated games ended: the
    history the web pages plot (pbem.web)."""

    __table_args__ = (Index("ix_ratingpoint_player_kind", "player_id", "kind"),)

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id")
    kind: str = Field(max_length=40)
    game_id: int = Field(foreign_key="game.id")
    rating: float
    at: datetime


class Watcher(SQLModel, table=True):
    """A player who gets every new board of a game they do not play."""

    __table_args__ = (UniqueConstraint("game_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    created_at: datetime


class Vacation(SQLModel, table=True):
    """A pause of all of a player's clocks; `ends_at` is brought forward by `back`."""

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    starts_at: datetime
    ends_at: datetime
    bounced: bool = False  # a pause while their address bounces (pbem.letters.bounces): no allowance spent


class Reminder(SQLModel, table=True):
    """A deadline reminder sent: unique per game, turn and point, so a restart never repeats one."""

    __table_args__ = (UniqueConstraint("game_id", "ply", "hours"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    ply: int
    hours: float
    sent_at: datetime


class Bounce(SQLModel, table=True):
    """A delivery failure report about one of our mails, recorded against the player (trust.py)."""

    id: int | None = Field(default=None, primary_key=True)
    player_id: int | None = Field(default=None, foreign_key="player.id", index=True)
    address: str = Field(default="", max_length=320)
    outbox_message_id: str | None = Field(default=None, max_length=400)
    inbound_message_id: str = Field(max_length=400)
    reason: str = Field(default="", max_length=400)
    created_at: datetime
    hard: bool = False  # permanent (5.x.x): counted towards `max_hard_bounces`


class Quarantine(SQLModel, table=True):
    """A message whose processing raised: its tries (counted before each one) and its raw bytes."""

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(unique=True, max_length=400)
    sender: str = Field(default="", max_length=320)
    subject: str = Field(default="", max_length=400)
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    tries: int = 0
    status: str = Field(default="trying", max_length=20, index=True)  # trying quarantined
    error: str = Field(default="", max_length=400)
    created_at: datetime
    updated_at: datetime


class HeldMail(SQLModel, table=True):
    """The commands of a mail that showed no proof of receipt, kept until the player confirms
    them by replying to our notice (or for a week): nothing is done on a forgeable From alone."""

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    lines: str = Field(max_length=4000)  # the command lines, one per line
    name: str = Field(default="", max_length=80)  # the display name the mail came with
    status: str = Field(default="held", max_length=20)  # held confirmed expired
    language: str | None = Field(default=None, max_length=8)  # detected in the mail: theirs once confirmed
    created_at: datetime


class Heartbeat(SQLModel, table=True):
    """When a daemon last did one of its rounds (`mailbox`: spoke to its mailbox, `clock`: ended
    a clock round), so `pbem admin status` can tell a live service from a hung one. One row
    per daemon and round, overwritten at most every few seconds."""

    __table_args__ = (UniqueConstraint("name", "daemon"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=20)
    daemon: str = Field(max_length=300)  # host:pid
    at: datetime


class Tournament(SQLModel, table=True):
    """A tournament: its format, its games' type and time control, and where it stands.

    `round` is the round being played (0 before the start); `adjourned_at` holds the next
    pairing (and the clocks of the round) while set."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=80)
    format: str = Field(max_length=20)  # roundrobin double swiss ladder
    kind: str = Field(max_length=40)  # the engine registry name
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    days: int = 7
    weekends_off: bool = False
    clock: str | None = Field(default=None, max_length=40)  # the games' time control; None: `days` per move
    rounds: int | None = None  # Swiss: how many rounds; round robin: from the field
    reach: int | None = None  # a ladder: how many places above one may challenge
    status: str = Field(default="open", max_length=20, index=True)  # open running finished cancelled
    round: int = 0
    adjourned_at: datetime | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None


class Entry(SQLModel, table=True):
    """A player in a tournament: seed (1 best) from the rating at the start; a withdrawal keeps the row.

    In a ladder `seed` is the player's place (1 the top), changed as challenges are won."""

    __table_args__ = (UniqueConstraint("tournament_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    seed: int | None = None
    rating_start: float | None = None  # the rating when the tournament started (the final table's change)
    withdrawn: bool = False
    withdrawn_reason: str | None = Field(default=None, max_length=200)
    joined_at: datetime


class TournamentGame(SQLModel, table=True):
    """One board of one round: a game, or a bye (`game_id` and `second_id` None), or a forfeit
    (`forfeit`, no game). Unique per tournament, round and board: a round is paired once.

    A ladder's challenge is a row of its own: `round` counts the ladder's challenges (board 1),
    `challenger_id` names who challenged, and the result moves the places once it is scored."""

    __table_args__ = (UniqueConstraint("tournament_id", "round", "board"),)

    id: int | None = Field(default=None, primary_key=True)
    tournament_id: int = Field(foreign_key="tournament.id", index=True)
    round: int
    board: int
    first_id: int = Field(foreign_key="player.id")  # moves first
    second_id: int | None = Field(default=None, foreign_key="player.id")
    game_id: int | None = Field(default=None, foreign_key="game.id", index=True)
    challenger_id: int | None = Field(default=None, foreign_key="player.id")  # a ladder's challenge: who asked
    forfeit: bool = False
    first_points: float | None = None  # set when the board has its result
    second_points: float | None = None
    on_time: bool = False

    @property
    def defender_id(self) -> int | None:
        """A ladder challenge's defender: the one of the two who did not challenge."""
        if self.challenger_id is None:
            return None
        return self.second_id if self.challenger_id == self.first_id else self.first_id


class Switch(SQLModel, table=True):
    """A service switch the operator flips while the daemon runs (`pbem admin bots off|on`): no
    row means the setting in force decides."""

    name: str = Field(primary_key=True, max_length=40)
    on: bool = True
    changed_at: datetime
