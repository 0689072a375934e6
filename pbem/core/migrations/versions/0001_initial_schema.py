"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-30 11:10:34.189727
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("secret", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_player_address"), ["address"], unique=True)

    op.create_table(
        "game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("player0_id", sa.Integer(), nullable=False),
        sa.Column("player1_id", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("draw_offer", sa.Integer(), nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("result", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=True),
        sa.Column("reason", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player0_id"],
            ["player.id"],
        ),
        sa.ForeignKeyConstraint(
            ["player1_id"],
            ["player.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_player0_id"), ["player0_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_game_player1_id"), ["player1_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_game_status"), ["status"], unique=False)

    op.create_table(
        "challenge",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("colour", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("challenger_id", sa.Integer(), nullable=False),
        sa.Column("opponent_id", sa.Integer(), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["challenger_id"],
            ["player.id"],
        ),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game.id"],
        ),
        sa.ForeignKeyConstraint(
            ["opponent_id"],
            ["player.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("challenge", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_challenge_challenger_id"), ["challenger_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_challenge_opponent_id"), ["opponent_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_challenge_status"), ["status"], unique=False)

    op.create_table(
        "inboundmessage",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("digest", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("sender", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("subject", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("note", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("received_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("message_id"),
    )
    with op.batch_alter_table("inboundmessage", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_inboundmessage_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_inboundmessage_sender"), ["sender"], unique=False)

    op.create_table(
        "move",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("side", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("notation", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("raw", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game.id"],
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "ply"),
    )
    with op.batch_alter_table("move", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_move_game_id"), ["game_id"], unique=False)

    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=False),
        sa.Column("recipient", sqlmodel.sql.sqltypes.AutoString(length=320), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("last_error", sqlmodel.sql.sqltypes.AutoString(length=400), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["game.id"],
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["player.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("message_id"),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outbox_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_outbox_recipient"), ["recipient"], unique=False)
        batch_op.create_index(batch_op.f("ix_outbox_status"), ["status"], unique=False)



def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_status"))
        batch_op.drop_index(batch_op.f("ix_outbox_recipient"))
        batch_op.drop_index(batch_op.f("ix_outbox_game_id"))

    op.drop_table("outbox")
    with op.batch_alter_table("move", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_move_game_id"))

    op.drop_table("move")
    with op.batch_alter_table("inboundmessage", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_inboundmessage_sender"))
        batch_op.drop_index(batch_op.f("ix_inboundmessage_game_id"))

    op.drop_table("inboundmessage")
    with op.batch_alter_table("challenge", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_challenge_status"))
        batch_op.drop_index(batch_op.f("ix_challenge_opponent_id"))
        batch_op.drop_index(batch_op.f("ix_challenge_challenger_id"))

    op.drop_table("challenge")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_status"))
        batch_op.drop_index(batch_op.f("ix_game_player1_id"))
        batch_op.drop_index(batch_op.f("ix_game_player0_id"))

    op.drop_table("game")
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_address"))

    op.drop_table("player")
