"""`pbem admin`: the operator's commands. Each works while the daemon runs.

Shared here: the group, which imports a command's module only when it runs (`LazyGroup`);
the settings and the database of one invocation (loaded once), output that makes foreign
text harmless on a terminal, paging of listings, and the one way a change to a game is
made (row locked, state re-checked, success printed after the commit). The settings and
database layers are imported by the functions that use them, so that help costs none.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pbem.cli.lazygroup import LazyGroup
from pbem.core.wallclock import aware
from pbem.text import textwidth

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlmodel import Session

    from pbem.core.config import Settings
    from pbem.core.models import Game, Player
    from pbem.text.templates import Templates


def _state(ctx: click.Context) -> dict[str, Any]:
    root = ctx.find_root()
    if root.obj is None:
        root.obj = {"config": None}
    return root.obj


def settings(ctx: click.Context) -> Settings:
    """The settings of the `--config` given to `pbem`, read once per invocation."""
    from pbem.core import config as config_mod

    state = _state(ctx)
    if "settings" not in state:
        try:
            state["settings"] = config_mod.load(state.get("config"))
        except config_mod.ConfigError as exc:
            raise click.ClickException(str(exc)) from None
    return state["settings"]


@click.group(cls=LazyGroup)  # `pbem.cli.admin.group` fills in its `lazy` table
def admin() -> None:
    """Inspect and fix the records (the daemon may keep running)."""


@admin.command("migrate")
@click.pass_context
def admin_migrate(ctx: click.Context) -> None:
    """Create the database or bring its schema up to date."""
    from pbem.core.db import make_engine, migrate

    url = settings(ctx).db_url
    engine = make_engine(url)
    try:
        migrate(engine)
    finally:
        engine.dispose()
    echo(f"database is up to date: {shown_url(url)}")


class SchemaProblem(click.ClickException):
    """The database is missing, unreachable or not at this pbem's schema."""


def shown_url(url: str) -> str:
    """A database URL fit to print: its password masked."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - a URL SQLAlchemy cannot parse has no password we could find either
        return url


def schema_problem(engine: Engine, url: str) -> str | None:
    """Why the admin cannot use this database yet (None when it is at the newest schema)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy.exc import SQLAlchemyError

    from pbem.core.db import MIGRATIONS

    url = shown_url(url)
    try:
        with engine.connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
    except SQLAlchemyError as exc:
        return f"cannot use the database {url}: {getattr(exc, 'orig', None) or exc}"
    script = ScriptDirectory(str(MIGRATIONS))
    heads = set(script.get_heads())
    if current == heads:
        return None
    if not current:
        return f"the database {url} has no pbem schema yet; run `pbem admin migrate` (or start `pbem serve`)"
    if current - {revision.revision for revision in script.walk_revisions()}:
        return f"the database {url} is at a schema this pbem does not know ({', '.join(sorted(current))}); upgrade pbem"
    return (f"the database {url} is at an older schema ({', '.join(sorted(current))}); "
            "run `pbem admin migrate` to bring it up to date")


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (None for other databases and in-memory ones)."""
    if not url.startswith("sqlite"):
        return None
    path = url.split("///", 1)[-1]
    return Path(path) if path and path != ":memory:" else None


def database(ctx: click.Context) -> Engine:
    """The database of this invocation, opened once; refused unless it is at the newest schema."""
    from pbem.core.db import make_engine

    state = _state(ctx)
    if "engine" not in state:
        url = settings(ctx).db_url
        path = sqlite_path(url)
        if path is not None and not path.exists():
            raise SchemaProblem(f"there is no database at {path}; run `pbem admin migrate` (or start `pbem serve`)")
        engine = make_engine(url)
        problem = schema_problem(engine, url)
        if problem:
            engine.dispose()
            raise SchemaProblem(problem)
        state["engine"] = engine
        ctx.find_root().call_on_close(engine.dispose)
    return state["engine"]


def templates(ctx: click.Context) -> Templates:
    """The mail templates, built once per invocation."""
    from pbem.commands.lines import reader

    state = _state(ctx)
    if "templates" not in state:
        state["templates"] = reader.guarded_templates(settings(ctx))
    return state["templates"]


# --- output: text from outside never reaches the terminal raw ----------------------------------------

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def visible(text: str, keep: str = "") -> str:
    """`text` with control, format, bidi and separator characters written as escapes (`\\u202e`).

    An ANSI escape sequence loses its ESC (shown as `\\x1b`), so it cannot colour, move the
    cursor or retitle the terminal; characters in `keep` (e.g. newlines) pass."""
    if text.isprintable() and not any(ch in _BIDI for ch in text):
        return text
    out = []
    for ch in text:
        if ch in keep or ch == " ":
            out.append(ch)
            continue
        category = unicodedata.category(ch)
        if category[0] == "C" or category in ("Zl", "Zp") or ch in _BIDI:
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def plural(n: float, unit: str) -> str:
    """`n` and its unit, singular for 1 ("1 minute", "2 minutes", "1.5 days"): the operator's
    English, which gettext does not translate (a player's mail says it with `nphrase`)."""
    shown = f"{n:g}" if isinstance(n, float) else str(n)
    return f"{shown} {unit}" if shown == "1" else f"{shown} {unit}s"


def echo(text: str = "") -> None:
    """Print one or more lines with everything but the line breaks made visible."""
    click.echo(visible(str(text), keep="\n"))


def _visible_data(data: object) -> object:
    if isinstance(data, str):
        return visible(data, keep="\n")
    if isinstance(data, dict):
        return {visible(str(k)): _visible_data(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_visible_data(v) for v in data]
    return data


def echo_json(data: object) -> None:
    """Machine-readable output, its strings escaped as the text output is."""
    click.echo(json.dumps(_visible_data(data), indent=1, default=str, ensure_ascii=False))


def table(rows: Sequence[dict], columns: list[tuple[str, str]]) -> None:
    """A plain text table: (key, heading) columns, widths from the data, every cell on one line.
    Widths are display columns, as a terminal shows them: a Chinese or Korean letter takes two."""
    cells = [[heading for _, heading in columns]]
    cells += [["" if r.get(key) is None else visible(str(r.get(key))) for key, _ in columns] for r in rows]
    widths = [max(textwidth.width(row[i]) for row in cells) for i in range(len(columns))]
    for row in cells:
        click.echo("  ".join(textwidth.ljust(cell, width) for cell, width in zip(row, widths, strict=True)).rstrip())


def fail(message: str) -> click.ClickException:
    return click.ClickException(visible(message, keep="\n"))


# --- paging: the newest rows first, older ones by keyset ---------------------------------------------

DATE = click.DateTime(["%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"])


@dataclass(frozen=True)
class Page:
    """One page of a listing: at most `limit` rows (None: all) with ids below `before`, in a time range."""

    limit: int | None = 50
    before: int | None = None
    since: datetime | None = None
    until: datetime | None = None

    def query(self, query: Any, id_column: Any, time_column: Any) -> Any:
        """`query` narrowed to this page, newest first (one row more than shown: is there more?)."""
        if self.before is not None:
            query = query.where(id_column < self.before)
        if self.since is not None:
            query = query.where(time_column >= self.since)
        if self.until is not None:
            query = query.where(time_column < self.until)
        query = query.order_by(id_column.desc())
        return query if self.limit is None else query.limit(self.limit + 1)

    def cut(self, rows: list) -> tuple[list, bool]:
        """The rows to show, and whether older ones remain."""
        if self.limit is None or len(rows) <= self.limit:
            return rows, False
        return rows[: self.limit], True


def paged(func: Callable) -> Callable:
    """The paging options every listing takes; they arrive as one `page` argument."""

    options = [
        click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True, help="Rows to show."),
        click.option("--all", "show_all", is_flag=True, help="Every row (no limit)."),
        click.option("--before", type=int, metavar="ID", help="Only rows older than ID (the next page)."),
        click.option("--since", type=DATE, metavar="DATE", help="From this date (UTC), e.g. 2026-11-01."),
        click.option("--until", type=DATE, metavar="DATE", help="Before this date (UTC)."),
    ]

    def wrapper(*args: object, limit: int, show_all: bool, before: int | None, since: datetime | None,
                until: datetime | None, **kwargs: object) -> object:
        page = Page(None if show_all else limit, before, aware(since), aware(until))
        return func(*args, page=page, **kwargs)

    wrapper.__name__, wrapper.__doc__ = func.__name__, func.__doc__
    for option in reversed(options):
        wrapper = option(wrapper)
    return wrapper




def more_hint(more: bool, rows: Sequence[Any], id_of: Callable[[Any], int] = lambda r: r["id"]) -> None:
    """Under a text listing: how to see the older rows, when there are any."""
    if more and rows:
        oldest = min(id_of(r) for r in rows)
        click.echo(f"(the newest {len(rows)} shown; older: --before {oldest}, or --all)")


# --- lookups and changes -----------------------------------------------------------------------------


def game_or_fail(session: Session, game_id: int, *, lock: bool = False) -> Game:
    from pbem.core.models import Game

    game = session.get(Game, game_id, with_for_update=lock)
    if game is None:
        raise fail(f"there is no game #{game_id}; `pbem admin games` lists them")
    return game


def player_or_fail(session: Session, address: str, *, lock: bool = False) -> Player:
    from sqlmodel import select

    from pbem.core.models import Player

    query = select(Player).where(Player.address == address.strip().lower())
    player = session.exec(query.with_for_update() if lock else query).first()
    if player is None:
        raise fail(f"there is no player {address}; `pbem admin players` lists them")
    return player


def _seen(game: Game) -> tuple[int, int, str]:
    return game.version, game.ply, game.status


def change_game(ctx: click.Context, game_id: int, change: Callable[[Session, Game], str]) -> None:
    """Run `change(session, game)` on the game as the operator last saw it, then print its line.

    The game is read, then locked (`SELECT ... FOR UPDATE` on PostgreSQL; BEGIN IMMEDIATE
    serialises SQLite) and compared with what was read: a move or another admin change in
    between makes it refuse, with nothing changed. The success line is printed only after
    the commit."""
    from sqlmodel import Session

    from pbem.core.db import transaction
    from pbem.core.errors import CommandError

    engine = database(ctx)
    with Session(engine) as session:
        seen = _seen(game_or_fail(session, game_id))
    try:
        with transaction(engine) as session:
            game = game_or_fail(session, game_id, lock=True)
            if _seen(game) != seen:
                raise fail(f"game #{game_id} changed while this command ran (now ply {game.ply}, "
                           f"{game.status}); nothing was changed. Look again: pbem admin game {game_id}")
            line = change(session, game)
    except CommandError as exc:  # a ClockError is one too
        raise fail(str(exc.message)) from None
    echo(line)


def _default_actor() -> str:
    from pbem.core.audit import default_actor

    return default_actor()


by_option = click.option("--by", default=_default_actor, show_default="the OS user", help="Who makes the change.")

