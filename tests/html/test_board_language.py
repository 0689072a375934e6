"""A view's board speaks the reader's language: English by str(), the legend in the speaker's
words by spoken(), and the HTML grid's legend read from that same text."""

from __future__ import annotations

import pbem_engine
from pbem.text.boards import Board, grid_for
from pbem.text.i18n import speaker
from pbem_engine.common.phrases import Phrase


class Shouting:
    """A stand-in speaker whose language writes every legend word in capitals."""

    code = "xx"

    def say(self, said: Phrase | str) -> str:
        return str(said).upper()


def test_a_board_is_english_by_default_and_spoken_in_a_speakers_words() -> None:
    rules = pbem_engine.create("capturego", {"size": 9})
    pos = rules.apply(rules.start(), rules.parse(rules.start(), "e5"))
    board = Board(rules, pos, names=("Alice", "Bob"))
    assert str(board) == rules.render(pos, names=("Alice", "Bob")) == board
    assert board.spoken(speaker("en")) == str(board)
    loud = board.spoken(Shouting())  # type: ignore[arg-type]
    assert "CAPTURES: 0 OF 1" in loud and "captures: 0 of 1" in str(board)
    legend = [line["text"] for line in board.grid(Shouting())["legend"]]  # type: ignore[arg-type]
    assert "WHITE TO PLAY" in legend
    assert grid_for({"board": board, "grid": board.grid()}, "en") is board.grid()
