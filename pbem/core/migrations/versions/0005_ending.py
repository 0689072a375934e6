"""ending: how a game ended (rules, resignation, agreement, time, adjudication)

Revision ID: 0005
Revises: 0004

Records and statistics read the kind of ending from here instead of guessing it from the
sentence players read. Games that ended before this column existed keep NULL.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("ending", sa.String(length=20), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.drop_column("ending")
