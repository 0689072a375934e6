"""The least CPU any Python daemon of this design spends on one move mail: a floor for issue 12's ratio.

What a move mail cannot do without, each done the cheapest way the standard library and the
project's own client libraries allow, on the run's own mails (the replies and notices the daemon
sent): fetching and parsing the inbound mail (imap-tools, `email` with compat32, the text part
decoded), fifteen SQL statements in one transaction on a SQLite file (the standard `sqlite3`
module, no ORM: the daemon's own count of statements), building the two outgoing mails from
the finished text and HTML parts (no templates rendered: the parts are taken from the mails
sent), and handing them to SMTP on one open connection (aiosmtplib). Each is timed on the CPU
clock of the thread that does it, so the mail servers' share of the same process is not counted.
`service_throughput` runs it in the same run as the daemon and the mail servers.
"""

from __future__ import annotations

import email
import sqlite3
import time
from collections.abc import Sequence
from email import charset
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from pathlib import Path

STATEMENTS = 15  # tests/runners/test_statements.py: a move mail's statements, BEGIN included


def parts(raw: bytes) -> tuple[str, str, list[tuple[str, str]]]:
    """A sent mail's text and HTML parts and its headers."""
    message = email.message_from_bytes(raw)
    text = html = ""
    for part in message.walk():
        if part.get_content_type() == "text/plain" and not text:
            text = part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")
        elif part.get_content_type() == "text/html" and not html:
            html = part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")
    keep = ("From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "References", "Reply-To")
    return text, html, [(k, v) for k, v in message.items() if k in keep]


def _charset(body: str) -> charset.Charset:
    """UTF-8 sent as it is when ASCII, else quoted-printable (as the daemon's mails are)."""
    chosen = charset.Charset("utf-8")
    chosen.body_encoding = None if body.isascii() else charset.QP
    return chosen


def build_seconds(mails: Sequence[bytes]) -> float:
    """CPU to build each mail again from its finished parts (multipart/alternative, compat32)."""
    prepared = [parts(raw) for raw in mails]
    started = time.thread_time()
    for text, html, headers in prepared:
        message = MIMEMultipart("alternative")
        for key, value in headers:
            message[key] = value
        message.attach(MIMEText(text, "plain", _charset(text)))
        if html:
            message.attach(MIMEText(html, "html", _charset(html)))
        message.as_bytes()
    return time.thread_time() - started


def parse_seconds(raws: Sequence[bytes]) -> float:
    """CPU to parse each inbound mail and decode its text part."""
    started = time.thread_time()
    for raw in raws:
        message = email.message_from_bytes(raw)
        for part in message.walk():
            if part.get_content_type() == "text/plain":
                part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")
                break
    return time.thread_time() - started


def sql_seconds(moves: int, folder: Path) -> float:
    """CPU of `STATEMENTS` plain statements per move, one transaction each, on a SQLite file in WAL
    mode: the shape of a move's (look up the message, the sender, the game and its mails, update
    the game, insert the move, the opponent, vacations, watchers, the clock, the outbox rows, the
    inbound record)."""
    path = folder / "floor.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.executescript("""
        CREATE TABLE player (id INTEGER PRIMARY KEY, address TEXT UNIQUE, name TEXT, version INT);
        CREATE TABLE game (id INTEGER PRIMARY KEY, state TEXT, ply INT, version INT, clock_due_at TEXT,
                           p0 INT, p1 INT);
        CREATE TABLE move (id INTEGER PRIMARY KEY, game_id INT, ply INT, notation TEXT, at TEXT);
        CREATE TABLE outbox (id INTEGER PRIMARY KEY, recipient TEXT, game_id INT, message BLOB, at TEXT);
        CREATE TABLE inbound (id INTEGER PRIMARY KEY, message_id TEXT UNIQUE, status TEXT, at TEXT);
        CREATE TABLE vacation (id INTEGER PRIMARY KEY, player_id INT, until TEXT);
        CREATE TABLE watch (id INTEGER PRIMARY KEY, game_id INT, player_id INT);
        CREATE INDEX ix_outbox_game ON outbox (game_id);
        CREATE INDEX ix_move_game ON move (game_id, ply);
    """)
    conn.executemany("INSERT INTO player (address, name, version) VALUES (?, ?, 0)",
                     [(f"p{i}@example.org", f"p{i}") for i in range(200)])
    conn.executemany("INSERT INTO game (state, ply, version, p0, p1) VALUES (?, 0, 0, ?, ?)",
                     [("x" * 120, i % 200 + 1, (i + 1) % 200 + 1) for i in range(200)])
    message = b"m" * 5800
    started = time.thread_time()
    for n in range(moves):
        game = n % 200 + 1
        conn.execute("BEGIN")
        conn.execute("SELECT id, status FROM inbound WHERE message_id = ?", (f"<{n}@client>",)).fetchone()
        conn.execute("SELECT id, version FROM player WHERE address = ?", (f"p{game % 200}@example.org",)).fetchone()
        conn.execute("SELECT id, game_id FROM outbox WHERE game_id = ? ORDER BY id DESC LIMIT 2", (game,)).fetchall()
        conn.execute("SAVEPOINT line")
        conn.execute("UPDATE game SET state = ?, ply = ply + 1, version = version + 1 WHERE id = ?", ("y" * 120, game))
        conn.execute("INSERT INTO move (game_id, ply, notation, at) VALUES (?, ?, 'a1-b2', '2026')", (game, n))
        conn.execute("SELECT id, address, name FROM player WHERE id = ?", (game % 200 + 1,)).fetchone()
        conn.execute("SELECT until FROM vacation WHERE player_id = ?", (game,)).fetchall()
        conn.execute("SELECT player_id FROM watch WHERE game_id = ?", (game,)).fetchall()
        conn.execute("UPDATE game SET clock_due_at = '2026' WHERE id = ?", (game,))
        conn.execute("RELEASE line")
        conn.execute("SELECT id FROM outbox WHERE game_id = ? LIMIT 1", (game,)).fetchall()
        conn.executemany("INSERT INTO outbox (recipient, game_id, message, at) VALUES (?, ?, ?, '2026')",
                         [("a@example.org", game, message), ("b@example.org", game, message)])
        conn.execute("INSERT INTO inbound (message_id, status, at) VALUES (?, 'handled', '2026')", (f"<{n}@client>",))
        conn.execute("COMMIT")
    spent = time.thread_time() - started
    conn.close()
    return spent
