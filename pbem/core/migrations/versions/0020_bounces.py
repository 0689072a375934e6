"""bounces: hard bounces counted, an address that keeps bouncing suppressed

Revision ID: 0020
Revises: 0019

`bounce.hard` marks a permanent failure (5.x.x). `player.hard_bounces` counts the hard bounces
of our mails to the player since they last wrote; at `max_hard_bounces` `player.bounced_at` is
set: no mail is queued to them and their clocks are paused by a `vacation` row with `bounced`
set (no allowance spent), until any proven mail of theirs lifts it.
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("hard_bounces", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("bounced_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True))
    with op.batch_alter_table("bounce") as batch:
        batch.add_column(sa.Column("hard", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("vacation") as batch:
        batch.add_column(sa.Column("bounced", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("vacation") as batch:
        batch.drop_column("bounced")
    with op.batch_alter_table("bounce") as batch:
        batch.drop_column("hard")
    with op.batch_alter_table("player") as batch:
        batch.drop_column("bounced_at")
        batch.drop_column("hard_bounces")
