"""correspondence play: relayed messages, take-backs, conditional moves, digests

Revision ID: 0014
Revises: 0013

`remark` keeps what players relay with `say`; `conditional` their `if X then Y` lines.
A player's notification preference (`notify`, a daily digest's time and when it is due
next) and `say off` (`relay`); a game's `takebacks=` and the side asking for one.
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("relay", sa.Boolean(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("notify", sa.String(length=8), nullable=False, server_default="each"))
        batch.add_column(sa.Column("digest_at", sa.String(length=5), nullable=True))
        batch.add_column(sa.Column("digest_due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("digest_sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("watch_mail", sa.Boolean(), nullable=False, server_default="1"))
    op.create_index("ix_player_digest_due_at", "player", ["digest_due_at"])
    with op.batch_alter_table("challenge") as batch:
        batch.add_column(sa.Column("takebacks", sa.Boolean(), nullable=False, server_default="1"))
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("takebacks", sa.Boolean(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("takeback_offer", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("lines_waiting", sa.Boolean(), nullable=False, server_default="0"))
    op.create_table(
        "remark",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("player.id"), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("text", sa.String(length=2000), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("message_id", sa.String(length=400), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    )
    op.create_index("ix_remark_game_id", "remark", ["game_id"])
    op.create_table(
        "conditional",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("player.id"), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("moves", sa.JSON(), nullable=False),
        sa.Column("raw", sa.String(length=400), nullable=False),
        sa.Column("message_id", sa.String(length=400), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    )
    op.create_index("ix_conditional_game_id", "conditional", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_conditional_game_id", table_name="conditional")
    op.drop_table("conditional")
    op.drop_index("ix_remark_game_id", table_name="remark")
    op.drop_table("remark")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("lines_waiting")
        batch.drop_column("takeback_offer")
        batch.drop_column("takebacks")
    with op.batch_alter_table("challenge") as batch:
        batch.drop_column("takebacks")
    op.drop_index("ix_player_digest_due_at", table_name="player")
    with op.batch_alter_table("player") as batch:
        for column in ("watch_mail", "digest_sent_at", "digest_due_at", "digest_at", "notify", "relay"):
            batch.drop_column(column)
