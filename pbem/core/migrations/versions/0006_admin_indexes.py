"""admin indexes: listings, statistics, pruning and the proof lookup at a million games

Revision ID: 0006
Revises: 0005

`pbem admin` pages its listings newest first and filters them by date, player and status;
`stats` counts finished games by kind and winner; `prune` deletes by age; the proof of a
mail without a token asks whether we ever wrote to the player (outbox.player_id). Each of
these read the whole table before.
"""

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

INDEXES = [
    ("ix_outbox_player_id", "outbox", ["player_id"]),
    ("ix_outbox_status_sent_at", "outbox", ["status", "sent_at"]),
    ("ix_game_updated_at", "game", ["updated_at"]),
    ("ix_game_status_kind_winner", "game", ["status", "kind", "winner"]),
    ("ix_inboundmessage_received_at", "inboundmessage", ["received_at"]),
    ("ix_adminaction_player_id", "adminaction", ["player_id"]),
]


def upgrade() -> None:
    for name, table, columns in INDEXES:
        op.create_index(name, table, columns)


def downgrade() -> None:
    for name, table, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
