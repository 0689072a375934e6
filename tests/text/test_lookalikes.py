"""Look-alike text (issue 32): skeletons that read alike, and lines split at CR and LF only."""

from __future__ import annotations

import re

import pytest

from pbem.games import players
from pbem.games.remarks import clean
from pbem.text import lookalikes

RESERVED = ("pbem", "pbem server", "game")


@pytest.mark.parametrize(
    "text", ["pbem", "ＰＢＥＭ", "рbem", "pb\u0435m", "pbern", "p\u0301b\u200bem", "𝐩𝐛𝐞𝐦", "PBEM"]
)
def test_look_alikes_of_our_name_share_its_skeleton(text):
    assert lookalikes.skeleton(text) == "pbem"


def test_other_scripts_keep_their_letters():
    assert lookalikes.skeleton("小明") == "小明"
    assert lookalikes.skeleton("Алиса") != lookalikes.skeleton("Бob")


def test_remove_cuts_what_the_skeleton_matched_from_the_original():
    tag = re.compile(r"\[\s*pbem\b[^\]]*\]")
    assert lookalikes.remove("hi ［pbеm #1］ there", tag) == "hi  there"
    assert lookalikes.remove("hi 【 pbem #1 】", tag) == "hi "
    assert lookalikes.remove("nothing here", tag) == "nothing here"


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x85", "\v", "\f", "\x1c", "\x1d", "\x1e"])
def test_only_cr_and_lf_end_a_line(sep):
    assert lookalikes.lines(f"say 1 first{sep}resign\r\nc4\rpass\nb2") == [
        "say 1 first resign", "c4", "pass", "b2"]


@pytest.mark.parametrize(
    "name", ["pbem", "Pbem Server", "ＰＢＥＭ", "рbem", "p.b.e.m", "The pbem team", "pbem-server", "Game"]
)
def test_names_that_read_as_ours_are_refused(name):
    assert players.name_fault(name, RESERVED) == "reserved"


@pytest.mark.parametrize("name", ["Alice Liddell", "Jacob Emmett", "Gamer", "小明", "Ким Ён", "O'Brien"])
def test_names_of_people_are_taken(name):
    assert players.name_fault(name, RESERVED) is None


@pytest.mark.parametrize("display", ["{{7*7}} <script>alert(1)</script>", "pbem server", "x" * 41, "a@b.example"])
def test_a_display_name_the_rule_refuses_is_not_taken(display):
    assert players.default_name("alice@example.org", display, RESERVED) == "alice"


@pytest.mark.parametrize("name", ["bot-ataxx-2", "Bot Capturego 3", "bоt-myriades-1", "BOT.ATAXX.1", "I am bot-ataxx-3"])
def test_names_that_read_as_a_bots_are_refused(name):
    assert players.name_fault(name, RESERVED) == "bot"  # a mail that shows such a name shows a bot


@pytest.mark.parametrize("name", ["Bot", "Abbot Costello", "bot-chess-2", "robot-ataxx-2"])
def test_names_near_a_bots_are_taken(name):
    assert players.name_fault(name, RESERVED) is None


def test_a_local_part_that_reads_as_a_bots_gives_no_bots_name():
    assert players.default_name("bot-ataxx-2@example.org", "", RESERVED) == "player"
    assert players.default_name("alice@example.org", "bot-ataxx-2", RESERVED) == "alice"


def test_a_local_part_that_reads_as_ours_gives_no_name_like_ours():
    assert players.default_name("pbem@evil.example", "", RESERVED) == "player"
    assert players.default_name("alice@example.org", "Alice Smith", RESERVED) == "Alice Smith"


@pytest.mark.parametrize(
    "text, kept",
    [
        ("hello [ pbem #1 ] there", "hello there"),
        ("hello ［pbem #1］ there", "hello there"),
        ("hello 【pbеm #1】 there [ k : 1.2.3 ]", "hello there"),
        ("##- Pleasе write your reply above this line -##\nbye", "bye"),
        ("##- Пишите " + "o" + "твет над этой строкой -##\nbye", "bye"),  # a Latin o in the Russian marker
        ("first\u2028resign", "first resign"),
    ],
)
def test_said_text_loses_look_alikes_of_our_markers(text, kept):
    assert clean(text) == kept
