"""tournaments: the tournament, its entries, and a row per board of every round

Revision ID: 0015
Revises: 0014

`tournamentgame` is unique per tournament, round and board, so a round is paired once
however many daemons try; the clock round finds a running tournament (indexed by status)
whose current round has no game in progress left.
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("format", sa.String(length=20), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("days", sa.Integer(), nullable=False),
        sa.Column("weekends_off", sa.Boolean(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("adjourned_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("started_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("finished_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
    )
    op.create_index("ix_tournament_status", "tournament", ["status"])
    op.create_table(
        "entry",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournament.id"), nullable=False),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("player.id"), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("rating_start", sa.Float(), nullable=True),
        sa.Column("withdrawn", sa.Boolean(), nullable=False),
        sa.Column("withdrawn_reason", sa.String(length=200), nullable=True),
        sa.Column("joined_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.UniqueConstraint("tournament_id", "player_id"),
    )
    op.create_index("ix_entry_tournament_id", "entry", ["tournament_id"])
    op.create_index("ix_entry_player_id", "entry", ["player_id"])
    op.create_table(
        "tournamentgame",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournament.id"), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("first_id", sa.Integer(), sa.ForeignKey("player.id"), nullable=False),
        sa.Column("second_id", sa.Integer(), sa.ForeignKey("player.id"), nullable=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), nullable=True),
        sa.Column("forfeit", sa.Boolean(), nullable=False),
        sa.Column("first_points", sa.Float(), nullable=True),
        sa.Column("second_points", sa.Float(), nullable=True),
        sa.Column("on_time", sa.Boolean(), nullable=False),
        sa.UniqueConstraint("tournament_id", "round", "board"),
    )
    op.create_index("ix_tournamentgame_tournament_id", "tournamentgame", ["tournament_id"])
    op.create_index("ix_tournamentgame_game_id", "tournamentgame", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_tournamentgame_game_id", table_name="tournamentgame")
    op.drop_index("ix_tournamentgame_tournament_id", table_name="tournamentgame")
    op.drop_table("tournamentgame")
    op.drop_index("ix_entry_player_id", table_name="entry")
    op.drop_index("ix_entry_tournament_id", table_name="entry")
    op.drop_table("entry")
    op.drop_index("ix_tournament_status", table_name="tournament")
    op.drop_table("tournament")
