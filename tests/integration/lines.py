"""Scripted lines of play for tests and benchmarks that send moves by mail."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pbem_engine
from pbem.mail.message import notation
from pbem.trust import tokens


def script(rules: pbem_engine.Rules, rng: random.Random, plies: int) -> list[str]:
    """`plies` legal moves from the start (canonical texts) that leave the game in progress."""
    while True:
        pos, texts = rules.start(), []
        for _ in range(plies):
            move = rules.sample(pos, rng.choice)
            texts.append(rules.format(pos, move))
            pos = rules.apply(pos, move)
            if rules.outcome(pos).over:
                break
        if len(texts) == plies and not rules.outcome(pos).over:
            return texts


def move_address(local_part: str, domain: str, secret: str, game_id: int, ply: int) -> str:
    """The Reply-To of our mail that showed `game_id` after `ply` moves, to a player with that
    secret: where a player's reply with the next move goes, its token proving receipt.

    For games made straight in the database and only moved since: the game's version is its
    ply, and the player's own records have not changed (version 0)."""
    player = SimpleNamespace(secret=secret, version=0)
    token = tokens.format_token(player, tokens.Token(game_id, ply, 0))
    return notation.format_reply_to(local_part, domain, token, game_id)
