"""language at: when a player's language became theirs

Revision ID: 0025
Revises: 0024

A new player's language used to be settled by their first mail that proved their address, even
when that mail said nothing of a language: a newcomer answered in Chinese who replied "help"
(the example our Chinese mail gave them) was written to in English from then on. Now it is
settled only when they choose one (`language`), or a proven mail of theirs is written in one;
until then each answer is in the language of their words, or of the mail of ours they
answer. `player.language_at` says when it was settled; None: not yet.

The players proven before this revision, and those with a language other than English, keep
theirs as settled, as they were.
"""

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("language_at", sa.DateTime(), nullable=True))
    op.execute(
        "UPDATE player SET language_at = COALESCE(proven_at, created_at) "
        "WHERE proven_at IS NOT NULL OR language <> 'en'"
    )


def downgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.drop_column("language_at")
