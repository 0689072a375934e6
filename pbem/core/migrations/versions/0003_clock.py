"""clock: the schema for issue 5 (correspondence time)

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_TIME = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("timezone", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False, server_default="UTC")
        )
    with op.batch_alter_table("challenge", schema=None) as batch_op:
        batch_op.add_column(sa.Column("days", sa.Integer(), nullable=False, server_default="7"))
        batch_op.add_column(sa.Column("weekends_off", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("days", sa.Integer(), nullable=False, server_default="7"))
        batch_op.add_column(sa.Column("weekends_off", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("turn_started_at", _TIME(), nullable=True))
        batch_op.add_column(sa.Column("clock_credit", sa.Integer(), nullable=False, server_default="0"))
    # games older than the clock start their current turn now-ish: at their last change
    op.execute("UPDATE game SET turn_started_at = updated_at WHERE turn_started_at IS NULL")

    op.create_table(
        "vacation",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("starts_at", _TIME(), nullable=False),
        sa.Column("ends_at", _TIME(), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(op.f("ix_vacation_player_id"), "vacation", ["player_id"], unique=False)
    op.create_table(
        "reminder",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("hours", sa.Float(), nullable=False),
        sa.Column("sent_at", _TIME(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["game.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "ply", "hours"),
    )
    op.create_index(op.f("ix_reminder_game_id"), "reminder", ["game_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_reminder_game_id"), table_name="reminder")
    op.drop_table("reminder")
    op.drop_index(op.f("ix_vacation_player_id"), table_name="vacation")
    op.drop_table("vacation")
    with op.batch_alter_table("game", schema=None) as batch_op:
        batch_op.drop_column("clock_credit")
        batch_op.drop_column("turn_started_at")
        batch_op.drop_column("weekends_off")
        batch_op.drop_column("days")
    with op.batch_alter_table("challenge", schema=None) as batch_op:
        batch_op.drop_column("weekends_off")
        batch_op.drop_column("days")
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("timezone")
