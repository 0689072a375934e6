"""heartbeat: when each daemon last spoke to its mailbox and ended a clock round

Revision ID: 0011
Revises: 0010

Read by `pbem admin status` (last mailbox contact, clock lag); written by the daemon at
most every few seconds, outside any message's transaction.
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "heartbeat",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("daemon", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name", "daemon"),
    )


def downgrade() -> None:
    op.drop_table("heartbeat")
