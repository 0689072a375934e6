"""trust line by line: what each mail showed, each mail's acts, a player's personal address

Revision ID: 0018
Revises: 0017

`outbox.token` is the MAC of the token a mail carries and `outbox.shown` what the mail showed
(the games and their versions, the held mails it listed), so a reply proves exactly what its
sender saw; `inboundmessage.acts` fingerprints what a proven mail did, so a copy of it sent
again with a new Message-ID does nothing; `player.contact` is the secret of the player's
personal address.
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("token", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("shown", sa.JSON(), nullable=True))
    op.create_index("ix_outbox_token", "outbox", ["token"])
    with op.batch_alter_table("inboundmessage") as batch:
        batch.add_column(sa.Column("acts", sa.String(length=64), nullable=True))
    op.create_index("ix_inboundmessage_acts", "inboundmessage", ["acts"])
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("contact", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.drop_column("contact")
    op.drop_index("ix_inboundmessage_acts", table_name="inboundmessage")
    with op.batch_alter_table("inboundmessage") as batch:
        batch.drop_column("acts")
    op.drop_index("ix_outbox_token", table_name="outbox")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("shown")
        batch.drop_column("token")
