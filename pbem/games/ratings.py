"""Ratings per game type with Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013).

Each finished game is one rating period for both players, the usual choice of servers
where games end one by one: both are updated from the other's rating before the game.
A game cancelled or without a result never rates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam
from sqlmodel import Session, select

from pbem.core.models import Game, Player, Rating

SCALE = 173.7178  # Glicko-2's ratio between the Glicko scale and its own
TAU = 0.5  # how fast volatility may change; Glickman suggests 0.3 to 1.2
EPSILON = 0.000001


@dataclass(frozen=True)
class Glicko:
    """A rating on the Glicko scale (1500 start, deviation 350, volatility 0.06)."""

    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi**2)


def update(player: Glicko, results: list[tuple[Glicko, float]], tau: float = TAU) -> Glicko:
    """The player's rating after one period of `results` (opponent, score 1, 0.5 or 0)."""
    mu, phi, sigma = (player.rating - 1500) / SCALE, player.deviation / SCALE, player.volatility
    if not results:
        return Glicko(player.rating, min(math.sqrt(phi * phi + sigma * sigma) * SCALE, 350.0), sigma)
    v_inv = 0.0
    delta_sum = 0.0
    for opponent, score in results:
        mu_j, phi_j = (opponent.rating - 1500) / SCALE, opponent.deviation / SCALE
        g = _g(phi_j)
        expected = 1 / (1 + math.exp(-g * (mu - mu_j)))
        v_inv += g * g * expected * (1 - expected)
        delta_sum += g * (score - expected)
    v = 1 / v_inv
    delta = v * delta_sum
    sigma = _volatility(delta, phi, v, sigma, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Glicko(mu_new * SCALE + 1500, phi_new * SCALE, sigma)


def _volatility(delta: float, phi: float, v: float, sigma: float, tau: float) -> float:
    """Step 5 of the paper: the Illinois algorithm for the new volatility."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


_ROWS = (  # built once: every game that ends reads both players' rows in one query
    select(Rating).where(Rating.player_id.in_(bindparam("players", expanding=True)), Rating.kind == bindparam("kind"))
)


def _rows(session: Session, game: Game, now: datetime) -> list[Rating]:
    """The rows of the game's two players in its type, made for a player who has none yet."""
    found = {row.player_id: row for row in session.exec(
        _ROWS, params={"players": [game.player0_id, game.player1_id], "kind": game.kind})}
    return [found.get(player_id) or Rating(player_id=player_id, kind=game.kind, updated_at=now)
            for player_id in (game.player0_id, game.player1_id)]


def rate_game(session: Session, game: Game, now: datetime) -> None:
    """Update both players' ratings in the game's type from its result (finished games only)."""
    if game.status != "finished" or game.result is None:
        return
    pair = [session.get(Player, game.player0_id), session.get(Player, game.player1_id)]
    if all(p is not None and p.bot_level is not None for p in pair):
        return  # bots are rated against people only
    rows = _rows(session, game, now)
    before = [Glicko(r.rating, r.deviation, r.volatility) for r in rows]
    scores = (0.5, 0.5) if game.winner is None else ((1.0, 0.0) if game.winner == 0 else (0.0, 1.0))
    for side, row in enumerate(rows):
        after = update(before[side], [(before[1 - side], scores[side])])
        row.rating, row.deviation, row.volatility = after.rating, after.deviation, after.volatility
        row.games += 1
        row.updated_at = now
        session.add(row)


def table(session: Session, kind: str) -> list[dict[str, object]]:
    """The rating list of one game type, best first: rank, name, address, rating, deviation, games."""
    rows = session.exec(
        select(Rating, Player).join(Player, Player.id == Rating.player_id).where(Rating.kind == kind)
    ).all()
    ordered = sorted(rows, key=lambda pair: (-pair[0].rating, pair[1].name))
    return [
        {
            "rank": rank,
            "name": player.name,
            "address": player.address,
            "rating": round(rating.rating),
            "deviation": round(rating.deviation),
            "games": rating.games,
            "bot": player.bot_level is not None,  # marked "(bot)" in the list
        }
        for rank, (rating, player) in enumerate(ordered, start=1)
    ]
