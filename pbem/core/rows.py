"""Row objects made without the ORM's loading: new rows from values (`fresh`), rows read by
SQLAlchemy Core and attached to the session as the ORM would have loaded them (`attach`).

A row loaded by the ORM (`session.get`, `select(Model)`) costs about five times the same row
read by a Core statement: the ORM compiles its own state for every query, flushes first, and
builds the object attribute by attribute. The move path reads a few rows a mail that way
(the opponent, the games a reply names); here they are read by one Core statement built once
per model and run on the driver's cursor (`pbem.core.compiled`), and the object is made from
the row (`fresh`) and handed to the session as a persistent object, so a change to it is
flushed as an UPDATE as before.

An object already in the session wins over the row read, as with the ORM: a read never
overwrites what the transaction holds (`lock` alone reads a row afresh, as the ORM's
`populate_existing` does). `load` and `read` flush the session's changes first, as the ORM's
autoflush does before a query, but only changes to the models the statement reads, when the
caller names them: a move's changes to its game are then written once, at the end of its
line, not before every read of a vacation or a watcher. `get` reads by key, which no pending
change alters, unless it is a new row of the model not yet written (then the ORM's `get`
flushes and answers).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

from pydantic_core import PydanticUndefined
from sqlalchemy import Executable, Select, Table, Update, bindparam, inspect, select, update
from sqlalchemy.orm import InstanceState, configure_mappers, instrumentation, make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.base import NO_VALUE
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import Session as _Session
from sqlmodel import SQLModel

from pbem.core import compiled

Row = TypeVar("Row", bound=SQLModel)


class Session(_Session):
    """The service's session: `get` reads a row the session does not hold by a Core statement."""

    def get(self, entity: Any, ident: Any, **options: Any) -> Any:  # type: ignore[override]
        """As `Session.get`, a row by its primary key; one not yet in the session costs one
        Core statement instead of the ORM's query (no flush first: see the module)."""
        if options or not isinstance(entity, type) or not issubclass(entity, SQLModel):
            return super().get(entity, ident, **options)
        key = self.identity_key(entity, ident)
        if key in self.identity_map or any(isinstance(obj, entity) for obj in self.new):
            # held (or deleted, expired): the ORM's own answer, no query; a new row of the model
            # not yet written may carry this very key: the ORM's get flushes it first
            return super().get(entity, ident)
        row = compiled.run(self, _by_key(entity), _key_values(entity, key[1])).first()
        return attach(self, entity, row) if row is not None else None


def read(
    session: _Session, statement: Executable, params: Mapping[str, Any] | None = None,
    reads: tuple[type[SQLModel], ...] = (),
) -> compiled.Rows:
    """A Core statement's rows in the session's transaction (run on the driver's cursor:
    `pbem.core.compiled`), after the session's changes are flushed (as the ORM flushes before
    a query): all of them, or, when `reads` names the models of every table the statement
    reads, the changes to those."""
    if session.autoflush and (not reads or _pending(session, reads)):
        session.flush()  # nothing to do (and no cost) unless something changed
    return compiled.run(session, statement, params)


def load(
    session: _Session, model: type[Row], statement: Executable, params: Mapping[str, Any] | None = None,
    reads: tuple[type[SQLModel], ...] = (),
) -> list[Row]:
    """The objects of the rows `statement` selects (`select(table(model))...`: every column, in
    table order), as `session.exec(select(model)...)` gives them; `reads`: the other models
    whose tables it reads (a join), as for `read`."""
    return [attach(session, model, row) for row in read(session, statement, params, (model, *reads))]


def _pending(session: _Session, models: tuple[type[SQLModel], ...]) -> bool:
    """Whether the session holds a change not yet written to a row of one of `models`."""
    return any(isinstance(obj, models) for changed in (session.new, session.dirty, session.deleted) for obj in changed)


def lock(session: _Session, model: type[Row], ident: Any) -> Row | None:
    """A row by key, locked for the rest of the transaction (`FOR UPDATE`) and read afresh:
    an object the session holds takes the row's values, as `populate_existing` makes it."""
    key = session.identity_key(model, ident)
    if session.autoflush and _pending(session, (model,)):
        session.flush()  # as the ORM's get flushes first: a new row of the model may have this key
    row = compiled.run(session, _locking(model), _key_values(model, key[1])).first()
    if row is None:
        return None
    held = session.identity_map.get(key)
    if held is None:
        return attach(session, model, row)
    state = held.__dict__
    for name, value in zip(_columns(model), row, strict=True):
        if name not in state or state[name] != value:  # most of a row read again is as it was
            set_committed_value(held, name, value)
    return held  # type: ignore[return-value]


def attach(session: _Session, model: type[Row], row: Sequence[Any], start: int = 0) -> Row:
    """The object of `row` (all of `model`'s columns, in table order, from `start`) in
    `session`: the one the session holds for its key, or a new persistent one made from the row."""
    names = _columns(model)
    values = dict(zip(names, row[start : start + len(names)], strict=True))
    key = session.identity_key(model, tuple(values[name] for name in _key_names(model)))
    held = session.identity_map.get(key)
    if held is not None:
        return held  # type: ignore[return-value]
    obj = fresh(model, **values)
    make_transient_to_detached(obj)  # its values are what the database holds: no history
    session.add(obj)
    return obj


def write_changes(session: _Session) -> None:
    """Write the changes the session holds to rows it read (a move's game: its position, turn
    and clock) by one compiled UPDATE each, and mark them written, as the ORM's flush does: the
    flush at the end of a line then has nothing to do. The ORM's flush sorted the session's
    changes and built its UPDATE anew each time: about half a million instructions a move mail
    more than the statement on the cursor (2 % of the daemon's work on a move mail).

    Only plain column changes to rows already in the database are written here; a session that
    also holds new or deleted rows, or a change to anything but a column, is left to the ORM,
    which orders those writes itself."""
    if session.new or session.deleted:
        return
    writes = []
    for obj in session.dirty:
        state = inspect(obj)
        model: type[SQLModel] = type(obj)
        names, key_names = _columns(model), _key_names(model)
        if state.key is None or not all(
            key in names and key not in key_names and key in state.dict for key in state.committed_state
        ):
            return  # not a row's column, its key, or set and then expired: the ORM knows what to do
        changed = {key: state.dict[key] for key, old in state.committed_state.items()
                   if old is NO_VALUE or old != state.dict[key]}  # a value set to what it was: not written
        writes.append((state, model, changed))
    for state, model, changed in writes:
        if not changed:
            continue
        keys = _key_values(model, state.key[1])
        columns = tuple(name for name in _columns(model) if name in changed)
        done = compiled.run(session, _updating(model, columns), {**changed, **{f"key_{k}": v for k, v in keys.items()}})
        if done.rowcount != 1 and session.get_bind().dialect.supports_sane_rowcount:
            raise StaleDataError(f"UPDATE of {model.__name__} {keys} changed {done.rowcount} rows, not 1")
    states = [state for state, _, _ in writes]
    InstanceState._commit_all_states(((state, state.dict) for state in states), session.identity_map)
    session._register_altered(states)  # a rollback of the savepoint (or the transaction) reads them again


@functools.lru_cache(maxsize=64)
def _updating(model: type[SQLModel], columns: tuple[str, ...]) -> Update:
    """The UPDATE of `columns` of one row of `model`, by its key: built once per set of columns."""
    table_ = table(model)
    return (
        update(table_)
        .where(*(table_.c[name] == bindparam(f"key_{name}") for name in _key_names(model)))
        .values({name: bindparam(name, type_=table_.c[name].type) for name in columns})
    )


def insert_row(session: _Session, row: SQLModel) -> None:
    """Write a new row object (`fresh`) by one Core INSERT in the session's transaction, without
    the ORM's unit of work: for a row only written (its id is not read back, the object stays
    out of the session)."""
    model = type(row)
    compiled.insert_rows(session, table(model), [{name: getattr(row, name) for name in _inserted(model)}])


@functools.cache
def _inserted(model: type[SQLModel]) -> tuple[str, ...]:
    """The columns an INSERT of `model` writes: all but a generated `id`."""
    return tuple(name for name in _columns(model) if name != "id")


def selecting(model: type[SQLModel], *more: Any) -> Select[*tuple[Any, ...]]:
    """A Core select of every column of `model`'s table (in table order, as `attach` reads a
    row), and of `more`: the statement `load` and `attach` expect."""
    return select(table(model), *more)


def table(model: type[SQLModel]) -> Table:
    return model.__table__  # type: ignore[attr-defined, no-any-return]  # SQLModel declares no __table__


@functools.cache
def _columns(model: type[SQLModel]) -> tuple[str, ...]:
    return tuple(column.key for column in table(model).columns)


@functools.cache
def _key_names(model: type[SQLModel]) -> tuple[str, ...]:
    return tuple(column.key for column in inspect(model).primary_key)


def _key_values(model: type[SQLModel], key: tuple[Any, ...]) -> dict[str, Any]:
    """The parameters of `_by_key` for an identity key's values."""
    return dict(zip(_key_names(model), key, strict=True))


@functools.cache
def _by_key(model: type[SQLModel]) -> Select[Any]:
    """The Core statement that reads one row of `model` by its key: built once."""
    columns = table(model).c
    return selecting(model).where(*(columns[name] == bindparam(name) for name in _key_names(model)))


@functools.cache
def _locking(model: type[SQLModel]) -> Select[Any]:
    return _by_key(model).with_for_update()


def fresh(model: type[Row], **values: Any) -> Row:
    """A new row object of a table `model` from values the code itself made, as `model(**values)`
    makes it but without the constructor's attribute-by-attribute bookkeeping (twenty times the
    cost): for the rows a move mail writes. Fields not given take their defaults; a required
    field left out raises TypeError. The object is transient, as a constructed one is."""
    fields = _fields(model)
    missing = [name for name, (how, _) in fields.items() if how is _REQUIRED and name not in values]
    unknown = set(values) - set(fields)
    if missing or unknown:
        raise TypeError(f"{model.__name__}: missing {missing}, unknown {sorted(unknown)}")
    row = instrumentation.manager_of_class(model).new_instance()
    state = row.__dict__  # the ORM's state dict: a transient object's values live there
    for name, (how, default) in fields.items():
        if name in values:
            state[name] = values[name]
        else:  # a mutable default is copied, as the constructor copies it
            state[name] = default() if how is _FACTORY else copy.copy(default) if how is _MUTABLE else default
    object.__setattr__(row, "__pydantic_fields_set__", set(values))
    object.__setattr__(row, "__pydantic_extra__", None)
    object.__setattr__(row, "__pydantic_private__", None)
    return row


_REQUIRED, _FACTORY, _MUTABLE, _VALUE = object(), object(), object(), object()


@functools.cache
def _fields(model: type[SQLModel]) -> dict[str, tuple[object, Any]]:
    """Each field of `model` in order, with its default: (_VALUE, value), (_MUTABLE, value to
    copy), (_FACTORY, factory) or (_REQUIRED, None). The mappers are configured first: an
    object made before any other use of the ORM must read its attributes as any other does."""
    configure_mappers()
    fields: dict[str, tuple[object, Any]] = {}
    for name, field in model.model_fields.items():
        if field.default_factory is not None:
            fields[name] = (_FACTORY, field.default_factory)
        elif field.default is PydanticUndefined:
            fields[name] = (_REQUIRED, None)
        else:
            fields[name] = (_MUTABLE if isinstance(field.default, dict | list | set) else _VALUE, field.default)
    return fields
