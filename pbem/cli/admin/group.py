"""The whole `pbem admin` group: the group and its shared parts are `pbem.cli.admin.common`, its commands
live in the `admin_*` modules, which add themselves to it when imported.

A module is imported only when one of its commands runs (or `load_all` is called), so that
`pbem admin --help` and `pbem admin status --help` cost no database layer. The short help of
each command is repeated below for `--help`; a test checks it against the command's own.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.cli.admin.common import admin


def _changes() -> None:
    from pbem.cli.admin import changes as admin_changes  # noqa: F401  (its commands)


def _games() -> None:
    from pbem.cli.admin import games as admin_games  # noqa: F401


def _mail() -> None:
    from pbem.cli.admin import mail as admin_mail  # noqa: F401


def _ops() -> None:
    from pbem.cli.admin import ops as admin_ops  # noqa: F401


def _tournaments() -> None:
    from pbem.cli.admin import tournaments as admin_tournaments  # noqa: F401


COMMANDS: dict[Callable[[], None], dict[str, str]] = {
    _changes: {
        "adjudicate": "End a game in progress with a result; both players get the result, the reason and the record.",
        "ban": "Ban an address: its mails get no reply and its commands are not run.",
        "bots": "Switch the bots off (challenges to a bot are refused, games with one wait) or on again.",
        "cancel": "Call off a game in progress: no result, no rating change; both players are told.",
        "extend": "Give the player on move more time; both players get the new deadline by mail.",
        "resend": "Send the current board of a game to both players again (after a lost mail, say).",
        "unban": "Lift a ban.",
        "undo": "Take back the last PLIES moves (default 1) of a game in progress; both players get the new board.",
    },
    _games: {
        "audit": "The audit log of admin changes: the newest 50 unless told otherwise, newest last.",
        "export": "Write a game's record: SGF for Capture Go, a text record (Ataxx with its FEN) for the others.",
        "game": "Show one game: players, board, moves, offers, mails in and out, and admin changes.",
        "games": "List the games: the newest 50 (by id) unless told otherwise, newest last; dates filter by last "
                 "change.",
        "player": "Show one player: games (the newest 50 unless told otherwise), ratings, recent mails, admin changes.",
        "players": "List the players: the newest 50 unless told otherwise, newest last; dates filter by registration.",
        "ratings": "The Glicko-2 rating list of one game type, such as ataxx.",
        "stats": "Per game type: finished games, wins by side and draws; and the service's counts.",
    },
    _mail: {
        "bounces": "Bounces of our mails, by player: an address that bounces may be mistyped or gone (newest 50, "
                   "newest last).",
        "outbox": "List the outbox: the newest 50 unless told otherwise, newest first; `outbox retry ID` resends.",
        "quarantine": "Messages whose processing kept failing: list, show, retry or drop them.",
    },
    _ops: {
        "backup": "Copy the SQLite database to FILE while the daemon runs (for PostgreSQL: use pg_dump).",
        "prune": "Delete sent mails and inbound records older than the retention, keeping what game records need.",
        "status": "Is the service healthy? Exit 0 ok, 1 degraded (mail stuck, failed or quarantined, no daemon heard "
                  "from or its clock late), 2 down.",
    },
    _tournaments: {
        "tournament": "Tournaments and ladders: create, list, show, start, pair, adjourn, withdraw a player, close, cancel.",
    },
}

for _load, _commands in COMMANDS.items():
    for _name, _short in _commands.items():
        admin.lazy[_name] = (_load, _short)


def load_all() -> None:
    """Import every command's module (for tests and tools that walk the whole group)."""
    for load in COMMANDS:
        load()


__all__ = ["admin", "load_all"]
