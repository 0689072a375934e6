"""mail format: a player may ask for text-only mails instead of text and HTML

Revision ID: 0012
Revises: 0011

"html" (the default) sends a multipart/alternative with the text part and an HTML part;
"text" sends the text part alone.
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("format", sa.String(length=8), nullable=False, server_default="html"))


def downgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.drop_column("format")
