"""trust every command: player versions, proof of each mail, reply threads

Revision ID: 0008
Revises: 0007

A player's own records get a version (a token from an older mail is stale for them), the
moment an address first proved that it receives our mail, what each inbound mail proved,
the commands of unproven mails held until
the player confirms them, and for each answer the inbound thread it belongs to and whether it answered an unproven
mail, so that one budget rations every reply.
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("proven_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    with op.batch_alter_table("inboundmessage") as batch:
        batch.add_column(sa.Column("proof", sa.String(length=20), nullable=True))
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("thread", sa.String(length=400), nullable=True))
        batch.add_column(sa.Column("unproven", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.create_index("ix_outbox_thread", ["thread"])
    op.create_table(
        "heldmail",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("player.id"), nullable=False),
        sa.Column("lines", sqlmodel.sql.sqltypes.AutoString(length=4000), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False, server_default=""),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    )
    op.create_index("ix_heldmail_player_id", "heldmail", ["player_id"])
    # every address we have written to and heard from before had proven itself under the old rules
    op.execute("UPDATE player SET proven_at = created_at")


def downgrade() -> None:
    op.drop_index("ix_heldmail_player_id", "heldmail")
    op.drop_table("heldmail")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_index("ix_outbox_thread")
        batch.drop_column("unproven")
        batch.drop_column("thread")
    with op.batch_alter_table("inboundmessage") as batch:
        batch.drop_column("proof")
    with op.batch_alter_table("player") as batch:
        batch.drop_column("proven_at")
        batch.drop_column("version")
