"""caps: `stop`, the language of a held mail, and the take-backs asked in a day

Revision ID: 0019
Revises: 0018

`player.stopped_at` is set by `stop` (or a mail to the stop address of List-Unsubscribe) and
cleared by the player's next proven mail; while set, no mail goes to them. `heldmail.language`
is the language detected in a mail held for want of proof: stored as the player's only when
they confirm it, never from the unproven mail alone. `game.takeback_asks` counts the
take-backs each side asked today (`max_takebacks_per_game_per_day`).
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("stopped_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("takeback_asks", sa.JSON(), nullable=True))
    with op.batch_alter_table("heldmail") as batch:
        batch.add_column(sa.Column("language", sqlmodel.sql.sqltypes.AutoString(length=8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("heldmail") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("takeback_asks")
    with op.batch_alter_table("player") as batch:
        batch.drop_column("stopped_at")
