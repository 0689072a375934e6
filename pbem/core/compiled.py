"""Core statements compiled once per dialect and run on the driver's own cursor.

SQLAlchemy's Core execution does the same work for every run of a statement it has cached:
it makes the statement's cache key, looks up the compiled form, builds an execution context,
reads the cursor's description (on PostgreSQL psycopg makes a `Column` object per column for
it) and wraps each row. For the few statements a move mail sends each time (`pbem.core.rows`),
that was most of a statement's cost: a player read by key cost 34 us by Core against 13 us
on the driver's cursor with the same type processing, on SQLite; 200 against 94 us on
PostgreSQL.

Here a statement is compiled once per dialect; a run takes the session's connection (in the
session's transaction, as Core would), applies SQLAlchemy's own bind and result processors
for the statement's types, and fires the engine's `before_cursor_execute` and
`after_cursor_execute` events, so whatever counts or watches statements sees these too. A
driver's error is raised as SQLAlchemy raises it (`sqlalchemy.exc.IntegrityError`...). A
statement with an expanding parameter (`in_(bindparam(..., expanding=True))`) has its SQL
written for each run's values by SQLAlchemy's own expansion; one with a column default to
fill in goes through Core as before.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Executable, Insert, Table, bindparam, exc, insert
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlmodel import Session


class Rows(list[tuple[Any, ...]]):
    """A statement's rows, with the few ways of reading a result the service uses; for a
    statement that returns none, `rowcount` is how many rows it changed (as the driver says)."""

    rowcount: int = -1

    def all(self) -> list[tuple[Any, ...]]:
        return list(self)

    def first(self) -> tuple[Any, ...] | None:
        return self[0] if self else None

    def one(self) -> tuple[Any, ...]:
        if len(self) != 1:
            raise exc.NoResultFound("no row was found") if not self else exc.MultipleResultsFound("more than one row")
        return self[0]

    def scalar(self) -> Any:
        return self[0][0] if self else None


class _Plan:
    """One statement compiled for one dialect: its SQL, how its parameters are made, and the
    processors of its result's columns (taken from the first result's description, as
    SQLAlchemy takes them)."""

    def __init__(self, statement: Executable, dialect: Dialect) -> None:
        assert isinstance(statement, ClauseElement)
        compiled = statement.compile(dialect=dialect)
        assert isinstance(compiled, SQLCompiler)
        self.statement = statement  # kept: the cache is keyed by its id
        self.sql = compiled.string
        # an IN's values written into the SQL at each run, as SQLAlchemy expands them
        self.expanding = compiled if any(bind.expanding for bind in compiled.bind_names) else None
        # what only Core's execution does: fill a column's Python-side default in an INSERT or UPDATE
        self.by_core = bool(compiled.insert_prefetch or compiled.update_prefetch)
        processors: Mapping[str, Callable[[Any], Any]] = compiled._bind_processors  # type: ignore[assignment]  # SQLAlchemy's own, as its execution applies them
        escaped = compiled.escaped_bind_names
        # by its name in the SQL: (that name, the caller's key, its own name, the bind, the processor)
        binds = {
            escaped.get(name, name): (escaped.get(name, name), bind.key, name, bind, processors.get(name))
            for bind, name in compiled.bind_names.items()
        }
        order = compiled.positiontup if compiled.positional else list(binds)
        self.positional = compiled.positional
        self.binds = [binds[name] for name in order or ()]
        self.types = [entry[3] for entry in compiled._result_columns]
        self.returns_rows = bool(compiled._result_columns)  # a SELECT, or an INSERT ... RETURNING
        #: the columns with a result processor, and it; None until the first result is read
        self.processed: list[tuple[int, Callable[[Any], Any]]] | None = None
        self.dialect = dialect

    def parameters(self, params: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        """The driver's parameters, as SQLAlchemy's `construct_params` and its processors make them."""
        values = []
        for _sql_name, key, name, bind, process in self.binds:
            if key in params:
                value = params[key]
            elif name in params:
                value = params[name]
            elif bind.required:
                raise exc.InvalidRequestError(f"A value is required for bind parameter {key!r}")
            else:
                value = bind.effective_value
            values.append(process(value) if process is not None else value)
        if self.positional:
            return tuple(values)
        return {entry[0]: value for entry, value in zip(self.binds, values, strict=True)}

    def processors(self, description: Sequence[Sequence[Any]]) -> list[tuple[int, Callable[[Any], Any]]]:
        """The result processors of the columns, as SQLAlchemy takes them (by each column's
        type and the driver's type code), made from the first result's description."""
        if self.processed is not None:
            return self.processed
        processed: list[tuple[int, Callable[[Any], Any]]] = []
        for n, (kind, column) in enumerate(zip(self.types, description, strict=False)):
            process = kind._cached_result_processor(self.dialect, column[1]) if kind is not None else None
            if process is not None:
                processed.append((n, process))
        self.processed = processed
        return processed


_PLANS: dict[tuple[int, str], _Plan] = {}
#: plans kept at most: the move path's statements are built once, but a caller that builds a
#: statement at each call must not make the cache grow without end (each plan keeps its statement)
_PLANS_MAX = 1024
_PLANS_LOCK = threading.Lock()


def _plan(statement: Executable, dialect: Dialect) -> _Plan:
    key = (id(statement), dialect.name)
    plan = _PLANS.get(key)
    if plan is None or plan.statement is not statement or plan.dialect is not dialect:
        plan = _Plan(statement, dialect)
        with _PLANS_LOCK:
            if len(_PLANS) >= _PLANS_MAX:
                _PLANS.clear()
            _PLANS[key] = plan
    return plan


def run(session: Session, statement: Executable, params: Mapping[str, Any] | None = None) -> Rows:
    """The rows of `statement` (none for one that returns none) run with `params` in the
    session's transaction."""
    connection = session.connection()
    params = params or {}
    plan = _plan(statement, connection.dialect)
    if plan.by_core:
        result = connection.execute(statement, params)
        return Rows(tuple(row) for row in result) if result.returns_rows else Rows()
    if plan.expanding is not None:
        return _run(connection, plan, *_expanded(plan.expanding, params))
    return _run(connection, plan, plan.parameters(params))


def _expanded(compiled: SQLCompiler, params: Mapping[str, Any]) -> tuple[tuple[Any, ...] | dict[str, Any], str]:
    """The parameters and SQL of a statement with an expanding parameter, for these values
    (SQLAlchemy's own expansion: `IN (?, ?, ?)` for three)."""
    state = compiled.construct_expanded_state(dict(params))
    processors = state.processors

    def value(name: str) -> Any:
        process = processors.get(name)
        return process(state.parameters[name]) if process is not None else state.parameters[name]

    if state.positiontup is not None:
        return tuple(value(name) for name in state.positiontup), state.statement
    return {name: value(name) for name in state.parameters}, state.statement


def insert_rows(session: Session, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write `rows` (each with the same columns) into `table` by one INSERT of as many VALUES:
    one round trip, where Core's executemany sent them in a pipeline (on PostgreSQL: its
    setting up and syncing cost more than the statement for the two or three mails of a move).
    The statement is built once per table, count of rows and columns; a long post (a
    tournament's round to every entrant) goes `MANY_ROWS` rows a statement, so no statement
    grows past the drivers' limits on parameters."""
    if not rows:
        return
    columns = tuple(rows[0])
    for start in range(0, len(rows), MANY_ROWS):
        chunk = rows[start : start + MANY_ROWS]
        params = {f"{name}__{n}": row[name] for n, row in enumerate(chunk) for name in columns}
        run(session, _many(table, columns, len(chunk)), params)


#: rows written by one statement of `insert_rows` at most
MANY_ROWS = 50


@functools.lru_cache(maxsize=64)
def _many(table: Table, columns: tuple[str, ...], count: int) -> Insert:
    return insert(table).values([
        {name: bindparam(f"{name}__{n}", type_=table.c[name].type) for name in columns} for n in range(count)
    ])


_CURSOR = "pbem.compiled.cursor"  # the key of a connection's kept cursor in its pool's info


def _cursor(fairy: Any) -> Any:
    """The driver connection's own cursor for these statements, made once per connection and
    kept with it in the pool (a new cursor per statement cost psycopg 20 us more)."""
    cursor = fairy.info.get(_CURSOR)
    if cursor is None or cursor.connection is not fairy.driver_connection:
        cursor = fairy.info[_CURSOR] = fairy.cursor()
    return cursor


def _run(connection: Connection, plan: _Plan, values: tuple[Any, ...] | dict[str, Any], sql: str | None = None) -> Rows:
    fairy = connection.connection  # the pool's proxy of the driver's connection, in the transaction
    cursor = _cursor(fairy)
    _execute(connection, fairy, cursor, sql if sql is not None else plan.sql, values)
    if not plan.returns_rows:
        changed = Rows()
        changed.rowcount = cursor.rowcount
        return changed
    fetched = cursor.fetchall()
    # the description once: psycopg makes an object per column for it
    processed = plan.processed if plan.processed is not None else plan.processors(cursor.description or ())
    return Rows(_processed(fetched, processed))


def execute_text(connection: Connection, sql: str) -> None:
    """Run a statement of SQL text without parameters or rows on the cursor (a savepoint's
    SAVEPOINT and RELEASE: `pbem.core.db`), its events fired and its errors raised as Core's."""
    fairy = connection.connection
    _execute(connection, fairy, _cursor(fairy), sql, None)


def _execute(connection: Connection, fairy: Any, cursor: Any, sql: str, values: Any) -> None:
    watched = connection._has_events or connection.engine._has_events
    try:
        if watched:
            sql, values = _before(connection, cursor, sql, () if values is None else values)
        if values is None:
            cursor.execute(sql)
        else:
            cursor.execute(sql, values)
        if watched:
            connection.dispatch.after_cursor_execute(connection, cursor, sql, values, None, False)
    except connection.dialect.loaded_dbapi.Error as error:
        dialect = connection.dialect
        invalidated = dialect.is_disconnect(error, fairy, cursor)
        if invalidated:
            connection.invalidate(error)
        raise exc.DBAPIError.instance(sql, values, error, dialect.loaded_dbapi.Error,  # type: ignore[arg-type]
                                      connection_invalidated=invalidated, dialect=dialect) from error


def _before(connection: Connection, cursor: Any, sql: str, values: Any) -> tuple[str, Any]:
    """Fire `before_cursor_execute` as Core does: each listener answers the statement and its
    parameters (SQLAlchemy wraps a listener not registered with `retval=True` so that it does)."""
    for listener in connection.dispatch.before_cursor_execute:
        sql, values = listener(connection, cursor, sql, values, None, False)
    return sql, values


def _processed(rows: Sequence[Sequence[Any]], processed: list[tuple[int, Callable[[Any], Any]]]) -> Iterator[tuple[Any, ...]]:
    """The rows with each value of a column that has a processor processed."""
    if not processed:
        return (tuple(row) for row in rows)
    return (_row(row, processed) for row in rows)


def _row(row: Sequence[Any], processed: list[tuple[int, Callable[[Any], Any]]]) -> tuple[Any, ...]:
    values = list(row)
    for n, process in processed:
        values[n] = process(values[n])
    return tuple(values)
