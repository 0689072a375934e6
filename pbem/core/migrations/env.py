"""Alembic environment: runs on the connection pbem.core.db.migrate hands over."""

from alembic import context
from sqlmodel import SQLModel

import pbem.core.models  # noqa: F401  (registers the tables)

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through pbem.core.db.migrate (or `pbem admin migrate`)")
context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
