"""trust: the schema for issue 4 (trust and faults)

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("game_version", sa.Integer(), nullable=True))
    op.create_table(
        "bounce",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("outbox_message_id", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=True),
        sa.Column("inbound_message_id", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("bounce", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_bounce_player_id"), ["player_id"], unique=False)
    op.create_table(
        "quarantine",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("sender", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("subject", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("error", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("message_id"),
    )
    with op.batch_alter_table("quarantine", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_quarantine_status"), ["status"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("quarantine", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_quarantine_status"))
    op.drop_table("quarantine")
    with op.batch_alter_table("bounce", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_bounce_player_id"))
    op.drop_table("bounce")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("game_version")
