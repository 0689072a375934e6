"""stop epoch: a stop address from before the player took their mail back stops nothing

Revision ID: 0024
Revises: 0023

The stop address of our List-Unsubscribe header (and the web page's unsubscribe link) carries
a MAC of the player's id. It never changed, so a copy of an old mail stopped the player again
after they had taken their mail back: a replay. `player.resumes` counts the times they did;
the MAC covers it from the first one on, so the addresses of the mails before it stop nothing,
and those of a player who never resumed stay as they were.
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("resumes", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.drop_column("resumes")
