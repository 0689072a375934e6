"""Issue 11: everything the admin CLI prints that came from outside is made visible, not obeyed."""

from __future__ import annotations

import json

from click.testing import CliRunner
from sqlmodel import select

from pbem.cli.admin.common import visible
from pbem.cli.main import main
from pbem.core.db import transaction
from pbem.core.models import AdminAction, Bounce, Player, Quarantine
from tests.cli.admin.conftest import NOW, run, run_json

HOSTILE = "Eve\u202egnp.exe\x1b[2J\x1b]0;owned\x07\u200b\u2066x\u2069\r\nfake row"
RAW_BAD = ("\u202e", "\x1b", "\x07", "\u200b", "\u2066", "\u2069", "\r")


def _clean(text: str) -> None:
    for ch in RAW_BAD:
        assert ch not in text, f"{ch!r} reached the terminal: {text!r}"


def _hostile_records(db) -> int:
    gid = db.game("ataxx", ["f2"], first="eve@example.org")
    with transaction(db.engine) as session:
        eve = session.exec(select(Player).where(Player.address == "eve@example.org")).one()
        eve.name = HOSTILE
        session.add(eve)
        session.add(AdminAction(actor="ops", action="note", reason=HOSTILE, game_id=gid, player_id=eve.id,
                                created_at=NOW))
        session.add(Quarantine(message_id="<q@x>", sender="eve@example.org", subject=HOSTILE,
                               raw=f"Subject: {HOSTILE}\r\n\r\nbody\x1b[31m red\r\n".encode(), tries=5,
                               status="quarantined", error=HOSTILE, created_at=NOW, updated_at=NOW))
        session.add(Bounce(player_id=None, address="eve@example.org", inbound_message_id="<b@x>", reason=HOSTILE,
                           created_at=NOW))
    return gid


def test_visible_escapes_controls_format_and_bidi_but_keeps_text() -> None:
    assert visible("Jörg Müller 王") == "Jörg Müller 王"
    assert visible("a\u202eb\x1b[31mc\x00") == "a\\u202eb\\x1b[31mc\\x00"
    assert visible("one\ntwo", keep="\n") == "one\ntwo" and visible("one\ntwo") == "one\\x0atwo"
    assert visible("\U000e0041") == "\\U000e0041"  # a tag character (format, outside the BMP)


def test_text_listings_show_hostile_names_subjects_and_reasons_escaped(db) -> None:
    gid = _hostile_records(db)
    outputs = {
        "players": run("players"),
        "player": run("player", "eve@example.org"),
        "game": run("game", str(gid)),
        "audit": run("audit"),
        "quarantine list": run("quarantine", "list"),
        "quarantine show": run("quarantine", "show", "1"),
        "bounces": run("bounces"),
        "export": run("export", str(gid)),
    }
    for name, out in outputs.items():
        _clean(out)
        assert "\\u202e" in out, name
    assert "\\x1b[2J" in outputs["players"] and "\\x0d\\x0afake row" in outputs["players"]  # still one row
    assert len(outputs["players"].strip().splitlines()) == 3  # heading, bob, eve: no forged line
    assert "body\\x1b[31m red" in outputs["quarantine show"]


def _strings(data: object):
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)


def test_json_output_is_escaped_alike(db) -> None:
    gid = _hostile_records(db)
    for args in (["players"], ["player", "eve@example.org"], ["game", str(gid)], ["audit"],
                 ["quarantine", "list"], ["bounces"]):
        raw = CliRunner().invoke(main, ["admin", *args, "--json"], catch_exceptions=False).output
        _clean(raw)
        values = list(_strings(json.loads(raw)))  # what a consumer of the JSON gets
        for value in values:
            _clean(value)
        assert any("\\u202e" in v for v in values), args  # the value itself holds the visible escape
    (eve,) = [p for p in run_json("players") if p["address"] == "eve@example.org"]
    assert eve["name"].startswith("Eve\\u202egnp.exe\\x1b[2J")
