"""outbox names: `kind` is the template of the mail, `data` the message's bytes

Revision ID: 0007
Revises: 0006

The columns are renamed to say what they hold.
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.alter_column("kind", new_column_name="template")
        batch.alter_column("data", new_column_name="message")


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.alter_column("template", new_column_name="kind")
        batch.alter_column("message", new_column_name="data")
