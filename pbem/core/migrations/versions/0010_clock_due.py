"""clock due: each game's next clock event, so that a clock round reads only the games due

Revision ID: 0010
Revises: 0009

`game.clock_due_at` holds the earliest of a game's deadline and its next reminder point not
yet sent for the current turn (`pbem.games.clock.next_event`); NULL for a game with no clock
running. The clock round selects `status = 'active' AND clock_due_at <= now` through the
new index instead of computing every active game's deadline every round.

The backfill marks every active game due at once (at its turn's start) rather than
computing the real event here: the reminder points are the daemon's settings, which a
migration does not see. The first clock round after the upgrade therefore looks at every
active game once, as every round did before, and stores each one's next event.
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("clock_due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    op.create_index("ix_game_status_clock_due_at", "game", ["status", "clock_due_at"])
    op.execute(
        "UPDATE game SET clock_due_at = turn_started_at WHERE status = 'active' AND turn_started_at IS NOT NULL"
    )


def downgrade() -> None:
    op.drop_index("ix_game_status_clock_due_at", table_name="game")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("clock_due_at")
