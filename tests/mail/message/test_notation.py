"""The service's own notations: what we write is read back exactly, and nothing else is taken for it."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pbem.mail.message.notation import (
    MAX_SUBJECT,
    MAX_SUBJECT_TOKENS,
    PlusAddress,
    find_message_ids,
    fit_subject,
    format_message_id,
    format_reply_to,
    format_subject,
    is_token,
    parse_message_id,
    parse_reply_to,
    parse_subject,
)

tokens = st.text("0123456789abcdef", min_size=10, max_size=32)
game_ids = st.none() | st.integers(0, 10**12)
locals_ = st.from_regex(r"[a-z][a-z0-9.\-]{0,20}", fullmatch=True)
domains = st.from_regex(r"[a-z0-9]{1,10}(\.[a-z0-9]{1,10}){0,2}\.[a-z]{2,6}", fullmatch=True)
words = st.text(st.characters(whitelist_categories=("L", "N", "P", "S", "Zs"), blacklist_characters="[]"), max_size=60)


@given(locals_, domains, tokens, game_ids)
def test_reply_to_round_trip(local, domain, token, game_id):
    address = format_reply_to(local, domain, token, game_id)
    assert parse_reply_to(address, local, domain) == PlusAddress(token=token, game_id=game_id)
    assert parse_reply_to(address.upper(), local, domain) == PlusAddress(token=token, game_id=game_id)


def test_reply_to_formats():
    assert format_reply_to("game", "pbem.example", "0123456789abcdef", 42) == "game+g42-0123456789abcdef@pbem.example"
    assert format_reply_to("game", "pbem.example", "0123456789abcdef") == "game+0123456789abcdef@pbem.example"


@pytest.mark.parametrize(
    "address",
    [
        "game@pbem.example",  # no detail
        "other+0123456789abcdef@pbem.example",  # someone else's local part
        "game+0123456789abcdef@elsewhere.example",
        "game+g42-xyz@pbem.example",  # not a token
        "game+g42-0123@pbem.example",  # too short
        "game+" + "a" * 33 + "@pbem.example",  # too long
        "game+gx-0123456789abcdef@pbem.example",
        "game+0123456789abcdef@pbem.example.evil",
    ],
)
def test_reply_to_rejects_what_we_did_not_write(address):
    assert parse_reply_to(address, "game", "pbem.example") is None


@pytest.mark.parametrize("bad", ["", "ABCDEF0123", "0123", "g" * 12, "a" * 33])
def test_only_tokens_are_written(bad):
    assert not is_token(bad)
    with pytest.raises(ValueError):
        format_reply_to("game", "pbem.example", bad)
    with pytest.raises(ValueError):
        format_subject("x", 1, bad)


@given(words, game_ids, st.none() | tokens)
def test_subject_round_trip(text, game_id, token):
    subject = format_subject(text, game_id, token)
    tag = parse_subject(subject)
    assert tag.ours
    assert tag.game_id == game_id
    assert tag.tokens == ((token,) if token else ())
    written = " ".join(text.split())
    assert tag.text == written  # no names, no titles given: nothing to shorten
    # a reply keeps all of it behind its prefix
    assert parse_subject(f"Re: AW: {subject}").tokens == tag.tokens


def test_subject_formats():
    assert format_subject("Ataxx: your move", 42, "0123456789") == "[pbem #42] Ataxx: your move [k:0123456789]"
    assert format_subject("Help", None) == "[pbem] Help"
    assert parse_subject("Re: [pbem] Help") == parse_subject("[pbem] Help")
    assert parse_subject("Lunch on Friday?").ours is False


def test_subject_token_candidates_are_few_and_the_last_ones():
    guesses = " ".join(f"[k:{i:010x}]" for i in range(1000))
    tag = parse_subject(f"Re: [pbem #7] x {guesses}")
    assert len(tag.tokens) == MAX_SUBJECT_TOKENS
    assert tag.tokens == tuple(f"{i:010x}" for i in range(997, 1000))
    assert parse_subject("[pbem #7] x [K:ABCDEF0123] [k:abcdef0123]").tokens == ("abcdef0123",)


@given(domains, st.none() | st.text("0123456789abcdef", min_size=24, max_size=24))
def test_message_id_round_trip(domain, unique):
    mid = format_message_id(domain, unique)
    found = parse_message_id(mid, domain)
    assert found is not None and len(found) == 24
    assert unique is None or found == unique
    assert find_message_ids(f"References: <x@y> {mid}\r\n {mid}", domain) == [mid]
    assert parse_message_id(mid, "other.example") is None


def test_message_ids_of_others_are_not_ours():
    assert parse_message_id("<CAJ8f3kV0q2Lw@mail.gmail.com>", "pbem.example") is None
    assert parse_message_id("<pbem.42.12.alice@pbem.example>", "pbem.example") is None
    assert format_message_id("pbem.example") != format_message_id("pbem.example")
    with pytest.raises(ValueError):
        format_message_id("pbem.example", "not hex")


def test_tokens_may_carry_the_versions_they_were_written_for():
    address = format_reply_to("game", "pbem.example", "7.3.0123456789abcdef", 42)
    assert address == "game+g42-7.3.0123456789abcdef@pbem.example"
    assert parse_reply_to(address, "game", "pbem.example") == PlusAddress(token="7.3.0123456789abcdef", game_id=42)
    subject = format_subject("Ataxx: your move", 42, "7.3.0123456789abcdef")
    assert parse_subject(f"Re: {subject}").tokens == ("7.3.0123456789abcdef",)
    assert parse_reply_to("game+g42-1.2.3.0123456789abcdef@pbem.example", "game", "pbem.example") is None


TOKEN = "4.16.0123456789abcdef012345"


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("Ataxx: game on against Alexandra Liddell", ["Alexandra Liddell", "bob"],
         "Ataxx: game on against Alexandra"),  # the first word is enough
        ("Capture Go: your move, Alexandra Liddell (move 12)", ["Alexandra Liddell"],
         "your move, Alexandra (move 12)"),  # then the title, which the tag stands for
        ("Ataxx: game over, 0-1, bot-capturego-11 won", ["bot-capturego-11", "Alexandra"],
         "game over, 0-1, bot-captureg… won"),  # then a few letters of the longest name
        ("Ataxx: your move, Al (move 3)", ["Al"], "Ataxx: your move, Al (move 3)"),  # short: untouched
    ],
)
def test_a_long_subject_loses_names_and_title_first_never_its_tag_or_token(text, names, expected) -> None:
    subject = format_subject(text, 42, TOKEN, names, ["Ataxx", "Capture Go"])
    assert len(subject) <= MAX_SUBJECT
    assert subject == f"[pbem #42] {expected} [k:{TOKEN}]"
    tag = parse_subject(subject)
    assert (tag.game_id, tag.tokens) == (42, (TOKEN,))


def test_what_happened_is_never_cut_even_when_the_subject_stays_long() -> None:
    text = "Ataxx: you asked to take back your move, and more words"
    subject = format_subject(text, 42, TOKEN, [], ["Ataxx"])
    assert subject == f"[pbem #42] you asked to take back your move, and more words [k:{TOKEN}]"


def test_a_name_is_cut_only_where_it_stands_as_a_word() -> None:
    assert fit_subject("Alice Liddell and Alice Liddellson", 30, ["Alice Liddell"]) == "Alice and Alice Liddellson"
    assert fit_subject("Alice Liddell vs Bob", 12, ["Alice Liddell"]) == "Alice vs Bob"
