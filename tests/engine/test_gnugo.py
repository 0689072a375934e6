"""Capture Go against GNU Go over GTP: same boards, same captures, same legal points.

GNU Go plays itself (genmove, fixed seed, level 0) in the "self" games; in the "mixed" games
every third move, in the "wild" games two moves in three, is instead a random point our engine
calls legal, sent with `play`: GNU Go must accept it, and the weak moves lead to many captures. After every move our board must equal GNU Go's
`list_stones`, our capture counts its `captures`, and our legal points its `all_legal`, except
where positional superko (ours) forbids what simple ko (GNU Go's) allows. The capture target is
huge so that games do not end at the first capture.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from pbem_engine.common.base import IllegalMove
from pbem_engine.go.game import PASS, CaptureGo, GoPosition, Move
from tests.needs import missing

COLUMNS = "ABCDEFGHJKLMNOPQRST"  # GTP skips I as well
MAX_MOVES = 120


def _gnugo() -> str | None:
    found = shutil.which("gnugo")
    if found:
        return found
    debian = Path("/usr/games/gnugo")
    return str(debian) if debian.exists() else None


class Gtp:
    """A minimal GTP client: one command, one response."""

    def __init__(self, program: str, seed: int) -> None:
        self.process = subprocess.Popen(
            [program, "--mode", "gtp", "--seed", str(seed), "--level", "0"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def ask(self, command: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while True:
            line = self.process.stdout.readline()
            if line == "":
                raise RuntimeError(f"GNU Go stopped while answering {command!r}")
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.strip())
        answer = " ".join(lines)
        if answer.startswith("?"):
            raise GtpRefused(f"GNU Go refused {command!r}: {answer}")
        return answer[1:].strip()

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError, ValueError):
            self.ask("quit")
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class GtpRefused(Exception):
    pass


@pytest.fixture(scope="module")
def gtp(request: pytest.FixtureRequest) -> Gtp:
    program = _gnugo()
    if program is None:
        reason = "GNU Go (gnugo) is not installed; install the Debian package gnugo to run this test"
        missing(reason, reason)
    client = Gtp(program, seed=7)
    request.addfinalizer(client.close)
    return client


def vertex(move: Move) -> str:
    return "pass" if move.is_pass else f"{COLUMNS[move.col]}{move.row + 1}"


def point(text: str) -> Move:
    text = text.strip().upper()
    if text == "PASS":
        return PASS
    return Move(COLUMNS.index(text[0]), int(text[1:]) - 1)


def their_stones(gtp: Gtp, colour: str) -> set[Move]:
    return {point(v) for v in gtp.ask(f"list_stones {colour}").split()}


def our_stones(rules: CaptureGo, pos: GoPosition, side: int) -> set[Move]:
    size = rules.size
    return {Move(c, r) for c in range(size) for r in range(size) if rules.stone(pos, Move(c, r)) == side}


def compare(gtp: Gtp, rules: CaptureGo, pos: GoPosition, ply: int) -> None:
    assert our_stones(rules, pos, 0) == their_stones(gtp, "black"), f"black stones differ after ply {ply}"
    assert our_stones(rules, pos, 1) == their_stones(gtp, "white"), f"white stones differ after ply {ply}"
    theirs = (int(gtp.ask("captures black")), int(gtp.ask("captures white")))
    assert pos.captures == theirs, f"captures differ after ply {ply}"
    if rules.outcome(pos).over:
        return
    colour = "black" if pos.turn == 0 else "white"
    ours = {m for m in rules.legal_moves(pos) if not m.is_pass}
    allowed = {point(v) for v in gtp.ask(f"all_legal {colour}").split()}
    assert ours <= allowed, f"we allow {sorted(map(vertex, ours - allowed))} after ply {ply}"
    for move in allowed - ours:  # only superko may forbid what simple ko allows
        with pytest.raises(IllegalMove, match="superko"):
            rules.parse(pos, rules.format(pos, move))


GAMES = [
    pytest.param(9, "self", 1, id="9x9 self-play"),
    pytest.param(13, "self", 2, id="13x13 self-play"),
    pytest.param(9, "mixed", 3, id="9x9 mixed"),
    pytest.param(9, "mixed", 4, id="9x9 mixed b"),
    pytest.param(13, "mixed", 5, id="13x13 mixed"),
    pytest.param(9, "wild", 6, id="9x9 wild"),
    pytest.param(9, "wild", 7, id="9x9 wild b"),
    pytest.param(13, "wild", 8, id="13x13 wild"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("size", "mode", "seed"), GAMES)
def test_boards_and_captures_match_gnugo(gtp: Gtp, size: int, mode: str, seed: int) -> None:
    rules = CaptureGo({"size": size, "target": 10**6})
    rng = random.Random(seed)
    for command in (f"boardsize {size}", "clear_board", "komi 0", f"set_random_seed {seed}"):
        gtp.ask(command)
    pos = rules.start()
    superko_note = None
    for ply in range(1, MAX_MOVES + 1):
        colour = "black" if pos.turn == 0 else "white"
        if (mode == "mixed" and ply % 3 == 0) or (mode == "wild" and ply % 3 != 0):
            choices = [m for m in rules.legal_moves(pos) if not m.is_pass]
            move = rng.choice(choices) if choices else PASS
            gtp.ask(f"play {colour} {vertex(move)}")  # GNU Go must accept every move we call legal
        else:
            answer = gtp.ask(f"genmove {colour}")
            if answer.lower() == "resign":
                break
            move = point(answer)
            if not move.is_pass and not rules.is_legal(pos, move):
                with pytest.raises(IllegalMove, match="superko") as refused:
                    rules.parse(pos, rules.format(pos, move))
                superko_note = f"ply {ply}: GNU Go (simple ko) played {answer}; {refused.value.message}"
                break
        pos = rules.apply(pos, move)
        compare(gtp, rules, pos, ply)
        if rules.outcome(pos).over:  # two passes
            break
    assert rules.ply(pos) >= 20, "the game was too short to test anything"
    if superko_note:
        pytest.xfail(f"stopped where only positional superko refuses GNU Go's move, {superko_note}")
