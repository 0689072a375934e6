"""termination: a game that ended by its rules keeps the engine's code and its facts

Revision ID: 0009
Revises: 0008

The mails write the sentence from these in the reader's words; `reason` stays the English
one for the records. Games that ended before keep NULL and their sentence.
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("termination", sa.String(length=20), nullable=True))
        batch.add_column(sa.Column("details", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.drop_column("details")
        batch.drop_column("termination")
