"""Tables line up on a terminal when names are Chinese or Korean: cells are padded and cut by
display columns (a wide letter takes two), not by characters."""

from __future__ import annotations

from sqlmodel import select

from pbem.core.db import transaction
from pbem.core.models import Player, Quarantine
from pbem.text.textwidth import width
from tests.cli.admin.conftest import NOW, run

NAMES = {"alice@example.org": "Alice", "zhang@example.org": "张伟", "kim@example.org": "김민준"}


def _from_column(line: str, column: int) -> str:
    """What `line` shows from display column `column` on; the column must start a letter."""
    for at in range(len(line) + 1):
        if width(line[:at]) == column:
            return line[at:]
        assert width(line[:at]) < column, f"column {column} falls inside a wide letter: {line!r}"
    return ""


def _named_players(db) -> None:
    db.game("ataxx", ["f2"], first="zhang@example.org", second="kim@example.org")
    db.game("ataxx", [], first="alice@example.org", second="kim@example.org")
    with transaction(db.engine) as session:
        for player in session.exec(select(Player)):
            player.name = NAMES[player.address]
            session.add(player)


def test_the_players_table_lines_up_with_chinese_and_korean_names(db) -> None:
    _named_players(db)
    heading, *rows = run("players").splitlines()
    starts = [width(heading[: heading.index(h)]) for h in ("address", "name", "games", "active", "since")]
    assert len(rows) == 3
    for row in rows:
        address = _from_column(row, starts[0]).split()[0]
        assert _from_column(row, starts[1]).startswith(NAMES[address] + "  ")  # the name, then the gap
        assert _from_column(row, starts[2])[:1].isdigit()
        assert _from_column(row, starts[3])[:1].isdigit()
        assert _from_column(row, starts[4]).startswith("2026-")
    # the name column is as wide as its widest name shows, 김민준 (six columns), not three letters
    assert starts[2] - starts[1] == width("김민준") + 2


def test_the_quarantine_list_cuts_a_chinese_subject_to_its_columns_and_lines_up(db) -> None:
    subjects = {
        "<a@x>": "a回复：对局 #12 你的着法已经收到，轮到对手走了，请稍候",  # column 30 falls inside a letter
        "<b@x>": "Re: game #12",
        "<c@x>": "김민준: 무승부를 제안합니다 그리고 더 긴 제목입니다",
    }
    with transaction(db.engine) as session:
        for message_id, subject in subjects.items():
            session.add(Quarantine(message_id=message_id, sender="zhang@example.org", subject=subject,
                                   raw=b"Subject: x\r\n\r\nbody\r\n", tries=5, status="quarantined",
                                   error="解析失败 boom", created_at=NOW, updated_at=NOW))
    lines = run("quarantine", "list").splitlines()
    assert len(lines) == 3
    starts = {width(line[: line.index("解析失败")]) for line in lines}
    assert len(starts) == 1  # the error column starts at the same display column in every row
    (start,) = starts
    for line in lines:
        rest = _from_column(line, start - 31)  # the subject's column: 30 wide, then a space
        shown = rest[: rest.index(" 解析失败")]
        assert width(shown) == 30
        assert any(s.startswith(shown.rstrip()) for s in subjects.values())  # cut, never a half letter
