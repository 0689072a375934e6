"""outbox lookups: indexes that answer a move mail's two outbox reads by a seek

Revision ID: 0023
Revises: 0022

A move mail reads the first and the newest of our mails to each player about its game (its
thread) and the mail whose token it carries. Both were answered by the index on
`player_id` alone, which walks every mail the player was ever sent: a cost that grew with
the player's history, a few hundred microseconds a move after a few hundred mails.
`(game_id, player_id, id)` finds a thread's ends by a seek and serves the reads by game as
`game_id` alone did; `(token, player_id)` finds a token's mail whichever index the planner
would have weighed first.
"""

from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_index("ix_outbox_game_id")
        batch.create_index("ix_outbox_game_player", ["game_id", "player_id", "id"])
        batch.drop_index("ix_outbox_token")
        batch.create_index("ix_outbox_token_player", ["token", "player_id"])


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_index("ix_outbox_token_player")
        batch.create_index("ix_outbox_token", ["token"])
        batch.drop_index("ix_outbox_game_player")
        batch.create_index("ix_outbox_game_id", ["game_id"])
