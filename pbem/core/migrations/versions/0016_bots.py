"""bots as players: a player's bot level, and when a bot came on move in a game

Revision ID: 0016
Revises: 0015

`player.bot_level` marks a bot (None: a person); `game.bot_due_at` is set while a bot is on
move, so the bot runner finds its games through one index. `switch` keeps what the operator
switched off while the daemon runs (`pbem admin bots off`).
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("bot_level", sa.Integer(), nullable=True))
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("bot_due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.create_index("ix_game_status_bot_due_at", "game", ["status", "bot_due_at"])
    op.create_table(
        "switch",
        sa.Column("name", sa.String(length=40), primary_key=True),
        sa.Column("on", sa.Boolean(), nullable=False),
        sa.Column("changed_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("switch")
    op.drop_index("ix_game_status_bot_due_at", table_name="game")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("bot_due_at")
    with op.batch_alter_table("player") as batch:
        batch.drop_column("bot_level")
