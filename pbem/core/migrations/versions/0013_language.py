"""player language: every mail to a player is written in their language

Revision ID: 0013
Revises: 0012

"en" (the default) for every player so far; a new player's first mail may set another
(pbem.text.i18n.LANGUAGES), and `language CODE` changes it.
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("language", sa.String(length=8), nullable=False, server_default="en"))


def downgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.drop_column("language")
