"""clocks: time controls beyond days per move (Fischer, bank, ICCF, delay, none)

Revision ID: 0022
Revises: 0021

`challenge.clock`, `game.clock` and `tournament.clock` hold a `clock=` notation
(pbem.games.timecontrol); NULL keeps days per move (`days`), as before. `game.clock_sides` is each
side's time left and moves made; `move.clock_left` the mover's time left after the move (the
records show it, a take-back restores it). The game's next event stays `game.clock_due_at`.
"""

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("challenge") as batch:
        batch.add_column(sa.Column("clock", sa.String(length=40), nullable=True))
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("clock", sa.String(length=40), nullable=True))
        batch.add_column(sa.Column("clock_sides", sa.JSON(), nullable=True))
    with op.batch_alter_table("move") as batch:
        batch.add_column(sa.Column("clock_left", sa.Integer(), nullable=True))
    with op.batch_alter_table("tournament") as batch:
        batch.add_column(sa.Column("clock", sa.String(length=40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournament") as batch:
        batch.drop_column("clock")
    with op.batch_alter_table("move") as batch:
        batch.drop_column("clock_left")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("clock_sides")
        batch.drop_column("clock")
    with op.batch_alter_table("challenge") as batch:
        batch.drop_column("clock")
