"""Scripted lines of play for tests and benchmarks that send moves by mail."""

from __future__ import annotations

import random

import engine


def script(rules: engine.Rules, rng: random.Random, plies: int) -> list[str]:
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
