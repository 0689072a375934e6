"""web: each game's unguessable page key, and whether a player lets their games be listed

Revision ID: 0021
Revises: 0020

`game.web_key` is the secret part of the game's page address (pbem.web): whoever has the
link sees the game, nobody can guess it. Existing games get one here. `player.public` is the
player's `public yes|no`: a game is listed on the public pages only when both its players
said yes (off by default). `ratingpoint` keeps each player's rating after each rated game,
for the rating plot of their page (from now on: the history before it was never kept).
"""

import secrets

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("web_key", sa.String(length=32), nullable=True))
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("public", sa.Boolean(), nullable=False, server_default="0"))  # "0": false in SQLite and PostgreSQL alike; an expression would make SQLite rebuild the table
    op.create_table(
        "ratingpoint",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.Integer(), sa.ForeignKey("player.id"), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
    )
    op.create_index("ix_ratingpoint_player_kind", "ratingpoint", ["player_id", "kind"])
    bind = op.get_bind()
    game = sa.table("game", sa.column("id", sa.Integer), sa.column("web_key", sa.String))
    ids = [row[0] for row in bind.execute(sa.select(game.c.id).where(game.c.web_key.is_(None)))]
    update = game.update().where(game.c.id == sa.bindparam("gid")).values(web_key=sa.bindparam("key"))
    for start in range(0, len(ids), 1000):
        bind.execute(update, [{"gid": gid, "key": secrets.token_hex(10)} for gid in ids[start:start + 1000]])


def downgrade() -> None:
    op.drop_index("ix_ratingpoint_player_kind", table_name="ratingpoint")
    op.drop_table("ratingpoint")
    with op.batch_alter_table("player") as batch:
        batch.drop_column("public")
    with op.batch_alter_table("game") as batch:
        batch.drop_column("web_key")
