"""From letters to mails in the outbox: render, tag, thread, attach, queue.

Each mail is rendered once, here, from its letters (the data the commands, the clock and
the admin chose through `pbem.letters.notify`): the sections' templates, the subject of the
first, the `[pbem #N]` tag of the game it shows and the sender's token, the thread of
the recipient's earlier mails about that game, and the game records the letters ask
for. The row holds the final bytes (DKIM-signed here when configured), so a retry sends the
very same mail.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import Select, bindparam, func, union_all
from sqlmodel import Session, col, select

from pbem.core import compiled
from pbem.core.config import Settings
from pbem.core.models import Game, Outbox, Player
from pbem.core.rows import fresh, read, table
from pbem.core.wallclock import now
from pbem.core.work import work_of
from pbem.games import records
from pbem.games.bots import is_bot
from pbem.letters import notify, weblinks
from pbem.letters import views as present
from pbem.letters.notify import Letter, digested
from pbem.mail.message import outbound
from pbem.text import htmlmail
from pbem.text.i18n import speaker
from pbem.text.templates import Templates
from pbem.trust import proof as trust
from pbem.trust import tokens

#: the answer to `stop`: the last mail a player who stops gets
STOPPED = "stopped.txt"


def post(
    session: Session,
    settings: Settings,
    templates: Templates,
    letters: Iterable[Letter],
    *,
    ignored: Sequence[str] = (),
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    reply_game: Game | None = None,
    thread: str | None = None,
    unproven: bool = False,
    reply_language: str | None = None,
) -> list[dict[str, Any]]:
    """Queue the letters: the reply sections as one mail (threaded under the mail being
    answered, listing its `ignored` lines), every other letter grouped into one mail per
    recipient and game, so that two facts about one game reach a player in one mail. A letter
that a player in digest mode reads in their digest instead (`notify.digested`) is dropped, and so
is every letter to a bot, to a player who wrote `stop` (but the answer that says so), and to an
address that bounces (`pbem.letters.bounces`): `Player.silent`. Returns the outbox rows
as inserted (their values: no ORM object is made for a row only written)."""
    letters = list(letters)
    farewell = any(letter.reply and letter.template == STOPPED for letter in letters)
    letters = [
        letter for letter in letters
        if not is_bot(letter.player) and (letter.reply or not digested(letter.player, letter.template))
        and (not letter.player.silent or (farewell and letter.reply and letter.player.bounced_at is None))
    ]  # a bot reads no mail: its address can receive none; a silent player gets none either
    rows = []
    replies = [letter for letter in letters if letter.reply]
    _read_threads(session, [(replies[0].player, reply_game)] if replies else [],
                  [(letter.player, letter.game) for letter in letters if not letter.reply])
    if replies:
        rows.append(
            _queue(
                session, settings, templates, replies[0].player, replies,
                game=reply_game, ignored=ignored, in_reply_to=in_reply_to, references=references,
                thread=thread, unproven=unproven, language=reply_language,
            )
        )
    groups: dict[tuple[int, int] | int, list[Letter]] = {}
    for n, letter in enumerate(letters):
        if not letter.reply:  # one mail per player and game; a mail about no game stands alone
            key = (letter.player.id, letter.game.id) if letter.game is not None else -n
            groups.setdefault(key, []).append(letter)
    for group in groups.values():
        rows.append(_queue(session, settings, templates, group[0].player, group, game=group[0].game))
    if rows:  # one INSERT: the ORM would insert them one by one to read their ids back
        session.flush()  # what the letters' commands changed goes first, as the ORM's insert would flush it
        compiled.insert_rows(session, table(Outbox), rows)
    return rows

#: an outbox row's columns that a new mail leaves at their defaults (`_queue` writes the others)
_FRESH = {name: Outbox.model_fields[name].default for name in ("status", "attempts", "last_error", "sent_at", "token")}


def queue(session: Session, settings: Settings, templates: Templates, player: Player, letters: Sequence[Letter],
          **options: Any) -> Outbox:
    """One mail (`_queue`) as an outbox object not yet added to the session (for the admin and tests)."""
    return fresh(Outbox, **_queue(session, settings, templates, player, letters, **options))


def _queue(
    session: Session,
    settings: Settings,
    templates: Templates,
    player: Player,
    letters: Sequence[Letter],
    *,
    game: Game | None = None,
    ignored: Sequence[str] = (),
    in_reply_to: str | None = None,
    references: Sequence[str] = (),
    thread: str | None = None,
    unproven: bool = False,
    language: str | None = None,
) -> dict[str, Any]:
    """Render `letters` (sections of one mail to `player`) into an outbox row's values, which
    `post` inserts with the others of its post (a plain mapping: building a model object for
    a row that is only written costs more than the statement that writes it).

    `thread` is the inbound thread a reply answers (None for a mail that answers nothing),
    `unproven` marks the answer to a mail that showed no proof of receipt: both ration replies.
    `language` answers in a language the player has not chosen (what an unproven first mail
    was written in, which only its confirmation stores)."""
    letters = sorted(letters, key=lambda letter: letter.template in notify.ASIDES)  # asides last
    language = language or player.language  # every mail in its reader's language: two players of a game may differ
    # each section rendered once for both parts: the sketch gives the text and the HTML
    heads, several = headings(letters)
    extra = {"several": True} if several else {}  # its sections name their game in every example
    sketches = [templates.sketch(letter.template, language, **letter.data, **extra) for letter in letters]
    rendered = [templates.text(sketch) for sketch in sketches]
    if several:  # a reply about several games is about none: a bare move in its answer must name its game
        game = None
        text, shown = templates.render("_several.txt", language=language, ids=", ".join(f"#{g}" for g in several)).subject, None
    else:
        # the subject of the section about the game, if one is (a move confirmed among other
        # answers must come under its game's tag: a reply to it then acts on that game)
        titled = [i for i, r in enumerate(rendered) if r.subject]
        first = next((i for i in titled if letters[i].game_id is not None), titled[0] if titled else None)
        text = rendered[first].subject if first is not None else settings.name
        tagged = letters[first].game_id if first is not None else None
        shown = None
        if tagged is not None:
            shown = game if game is not None and game.id == tagged else session.get(Game, tagged)
        if letters[0].reply:
            game = shown  # the subject, the Reply-To and a reply to it all name the game whose board it shows
    token = tokens.minted(player, game)  # the mail's own: a reply to it proves which mail it answers
    names, titles = _named(player, letters, language)
    subject = trust.subject(text, player, shown, token if shown is game else None, names, titles)
    facts = {
        "ignored": list(ignored), "player": player, "game_id": game.id if game is not None else None,
        "heads": heads,
    }
    page = weblinks.game_url(settings, game if game is not None else shown)
    if page is not None:  # only with a base_url: else the mail stays as it always was
        facts["game_url"] = page
    framed = templates.frame(len(letters), language, **facts)
    frame = templates.text(framed, sections=[r.flowed for r in rendered])
    html = None
    if player.format != "text":  # the HTML part says the same words, with the boards as tables
        html = htmlmail.page(templates, sketches, framed, text, language=language,  # the title: no tag, no token
                             game_url=page)
    thread_reply, thread_refs = _thread(session, player, game)
    message_id = outbound.new_message_id(settings.domain)
    at = now()
    data = outbound.build(
        message_id=message_id,
        sender=(settings.name, settings.address),
        recipient=(player.name, player.address),
        reply_to=trust.reply_to(settings, player, game, token),
        subject=subject,
        body=frame.flowed,
        flowed=True,
        html=html,
        in_reply_to=in_reply_to or thread_reply,
        references=[*references, *thread_refs] if in_reply_to else thread_refs,
        loop_marker=settings.address,
        attachments=_records(session, letters),
        date=at,
        language=language,
        unsubscribe=trust.stop_address(settings, player) if player.proven_at is None else None,
        unsubscribe_url=weblinks.unsubscribe_url(settings, player),
        answers=letters[0].reply,  # an answer to their mail; a notice, a reminder, a digest is not one
        feedback_id=outbound.feedback_id(letters[0].template.removesuffix(".txt"), settings.domain),
    )
    if settings.dkim is not None:  # signed once: every retry sends these very bytes
        data = settings.dkim.sign(data)
    row = dict(
        _FRESH,
        message_id=message_id,
        recipient=player.address,
        template=letters[0].template.removesuffix(".txt"),
        game_id=game.id if game is not None else None,
        player_id=player.id,
        message=data,
        next_attempt_at=at,
        created_at=at,
        game_version=game.version if game is not None else None,
        thread=thread,
        unproven=unproven,
        shown=_shown(letters, game, language if language != player.language else None),
    )
    if row["shown"] is not None:  # what a reply with its token proves it saw beyond the token's own board
        row["token"] = tokens.mac(player, token)
    _threaded(session, player, game, message_id)
    return row


def _named(player: Player, letters: Sequence[Letter], language: str) -> tuple[list[str], list[str]]:
    """The players a mail may name in its subject and the titles of its games, in the reader's
    language: what `notation.fit_subject` shortens first in a long subject."""
    names, titles = [player.name], []
    for letter in letters:
        for key in ("game", "challenge"):
            view = letter.data.get(key)
            if not isinstance(view, dict):
                continue
            names.extend(view[k] for k in ("you", "opponent") if isinstance(view.get(k), str))
            names.extend(p["name"] for p in view.get("players") or () if isinstance(p, dict) and "name" in p)
            challenger = view.get("challenger")
            if isinstance(challenger, dict) and isinstance(challenger.get("name"), str):
                names.append(challenger["name"])
            if view.get("title"):
                titles.append(speaker(language).say(view["title"]))
    return names, titles


def _shown(letters: Sequence[Letter], game: Game | None, language: str | None = None) -> dict | None:
    """What a mail showed beyond its own game's board (`trust.shows`): the other games whose
    views its sections carry, at their versions now, the held mails its notices list and the
    challenges it shows; and its `language`, when it is not the reader's own."""
    games: dict[int, int] = {}
    held: list[int] = []
    challenges: list[int] = []
    for letter in letters:
        challenge = letter.data.get("challenge")
        if isinstance(challenge, dict) and challenge.get("id") is not None:
            challenges.append(challenge["id"])
        listed = letter.data.get("games")
        views = [letter.data.get("game"), *(listed if isinstance(listed, list) else ())]
        for view in views:
            if isinstance(view, dict) and view.get("version") is not None and view.get("status") == "active":
                games[view["id"]] = max(view["version"], games.get(view["id"], -1))
        if letter.game is not None and letter.game.id is not None and letter.game.status == "active":
            games[letter.game.id] = letter.game.version
        if letter.data.get("held") is not None:
            held.append(letter.data["held"])
    if game is not None and game.id is not None and games.get(game.id) == game.version:
        del games[game.id]  # the token itself says it
    return trust.shows(games, held, challenges, language)


def headings(letters: Sequence[Letter]) -> tuple[list[dict[str, Any] | None], list[int]]:
    """The heading of each section of a mail that shows several games ("Game #43: ataxx 7x7
    against bob"), where the game changes from the section before; and those games' numbers.
    A mail about one game (or none) has no headings."""
    shown = [letter.game_id for letter in letters]
    several = list(dict.fromkeys(g for g in shown if g is not None))
    if len(several) < 2:
        return [None] * len(letters), []
    heads: list[dict[str, Any] | None] = []
    before = None
    for letter, game_id in zip(letters, shown, strict=True):
        view = letter.data.get("game")
        if game_id is not None and game_id != before and isinstance(view, dict):
            heads.append({"id": game_id, "describe": view.get("describe", ""), "opponent": view.get("opponent")})
        else:
            heads.append(None)
        before = game_id if game_id is not None else before
    return heads, several


@functools.lru_cache(maxsize=32)
def _threads(pairs: int) -> Select[tuple[int, int, int, str]]:
    """The query of the threads of `pairs` (player, game) pairs (parameters `p0`, `g0`...):
    the first and the newest of our mails to each, each end found by a seek in the index on
    (game_id, player_id, id). Built once per count of pairs, so its compiled SQL is reused."""
    ends = []
    for n in range(pairs):
        pair = (col(Outbox.game_id) == bindparam(f"g{n}"), col(Outbox.player_id) == bindparam(f"p{n}"))
        ends += [select(func.min(Outbox.id)).where(*pair), select(func.max(Outbox.id)).where(*pair)]
    return select(Outbox.player_id, Outbox.game_id, Outbox.id, Outbox.message_id).where(
        col(Outbox.id).in_(union_all(*ends)))


def _read_threads(session: Session, *wanted: list[tuple[Player, Game | None]]) -> None:
    """Read the threads of every (player, game) the mails go to, in one query: the first and
    the newest of our mails to that player about that game."""
    pairs = {(player.id, game.id) for group in wanted for player, game in group if game is not None and game.id}
    cache = work_of(session).threads
    pairs -= set(cache)
    if not pairs:
        return
    found: dict[tuple[int, int], list[tuple[int, str]]] = {}
    ordered = sorted(pairs)
    params: dict[str, int | None] = {}
    for n, (player_id, game_id) in enumerate(ordered):
        params[f"p{n}"], params[f"g{n}"] = player_id, game_id
    for player_id, game_id, row_id, message_id in read(session, _threads(len(ordered)), params, (Outbox,)):
        found.setdefault((player_id, game_id), []).append((row_id, message_id))
    for pair in pairs:
        ends = sorted(found.get(pair, []))
        cache[pair] = (ends[0][1], ends[-1][1]) if ends else None


def _thread(session: Session, player: Player, game: Game | None) -> tuple[str | None, list[str]]:
    """In-Reply-To and References that keep a player's mails about one game in one thread."""
    if game is None or game.id is None:
        return None, []
    _read_threads(session, [(player, game)])
    ends = work_of(session).threads[(player.id, game.id)]
    if ends is None:
        return None, []
    return ends[1], [ends[0], ends[1]]  # the thread's first mail and the newest


def _threaded(session: Session, player: Player, game: Game | None, message_id: str) -> None:
    """A mail just queued is the newest of its thread (for a second mail of the same post)."""
    if game is not None and game.id is not None:
        cache = work_of(session).threads
        ends = cache.get((player.id, game.id))
        cache[(player.id, game.id)] = (ends[0] if ends else message_id, message_id)


def _records(session: Session, letters: Sequence[Letter]) -> list[tuple[str, str, str]]:
    """The game records the letters ask for, each attached once."""
    files = []
    for game_id in dict.fromkeys(letter.record for letter in letters if letter.record):
        game = session.get(Game, game_id)
        if game is not None:
            plays = game.side_of(letters[0].player.id) is not None  # only they (and the admin) see addresses
            key = ("record", game.id, game.version, game.status, plays)  # both players get the same file
            record = present.memo(session, key, lambda game=game, plays=plays: records.export(session, game, addresses=plays))
            files.append((record.filename, record.mimetype, record.text))
    return files
