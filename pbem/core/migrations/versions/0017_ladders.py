"""ladders: a ladder tournament's reach, and who challenged in each of its games

Revision ID: 0017
Revises: 0016

`tournament.reach` is how many places above a ladder's player may challenge;
`tournament_game.challenger_id` names the challenger of a ladder game (the places live in
`entry.seed`, 1 the top).
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tournament") as batch:
        batch.add_column(sa.Column("reach", sa.Integer(), nullable=True))
    with op.batch_alter_table("tournamentgame") as batch:
        batch.add_column(sa.Column("challenger_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_tournamentgame_challenger_id_player", "player", ["challenger_id"], ["id"])


def downgrade() -> None:
    with op.batch_alter_table("tournamentgame") as batch:
        batch.drop_constraint("fk_tournamentgame_challenger_id_player", type_="foreignkey")
        batch.drop_column("challenger_id")
    with op.batch_alter_table("tournament") as batch:
        batch.drop_column("reach")
