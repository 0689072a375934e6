"""records: the schema for issue 6 (admin, records, ratings)

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_STR = sqlmodel.sql.sqltypes.AutoString
_TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(sa.Column("banned", sa.Boolean(), nullable=False, server_default=sa.false()))

    op.create_table(
        "adminaction",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("actor", _STR(length=80), nullable=False),
        sa.Column("action", _STR(length=40), nullable=False),
        sa.Column("detail", _STR(length=400), nullable=False),
        sa.Column("reason", _STR(length=400), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("adminaction", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_adminaction_action"), ["action"], unique=False)
        batch_op.create_index(batch_op.f("ix_adminaction_game_id"), ["game_id"], unique=False)

    op.create_table(
        "rating",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("kind", _STR(length=40), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("deviation", sa.Float(), nullable=False),
        sa.Column("volatility", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", _TIME(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("player_id", "kind"),
    )
    with op.batch_alter_table("rating", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_rating_player_id"), ["player_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_rating_kind"), ["kind"], unique=False)

    op.create_table(
        "watcher",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("created_at", _TIME(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "player_id"),
    )
    with op.batch_alter_table("watcher", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_watcher_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_watcher_player_id"), ["player_id"], unique=False)


def downgrade() -> None:
    op.drop_table("watcher")
    op.drop_table("rating")
    op.drop_table("adminaction")
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("banned")
