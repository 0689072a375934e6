"""Every mail the server sends in one language, from the exchange of `test_templates.py`.

    python -m tests.samples ru          # the text part of every mail, in Russian
    python -m tests.samples ko --html   # the HTML parts' text too

For translators and reviewers: the mails as players get them, with realistic data. The
players are registered in the language before they write, as a player who chose it would be.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from sqlmodel import Session, select

from pbem.core.config import Settings
from pbem.core.db import make_engine
from pbem.core.models import Outbox
from pbem.core.wallclock import now
from pbem.games import players
from pbem.runners.inbound import Service
from tests.databases import migrated
from tests.letters.test_templates import ALICE, BOB, CAROL, SCRIPT, answered, numbered
from tests.mailer import GAME, compose, parse, reply_to
from tests.server import Server


@contextmanager
def exchange(language: str, home: Path) -> Iterator[tuple[Server, list[Outbox]]]:
    """The script of `test_templates` played by three players who read `language`."""
    settings = replace(Settings(), address=GAME, home=home, database_url=f"sqlite:///{home / 'pbem.core.db'}")
    engine = make_engine(settings.db_url)
    migrated(engine)
    try:
        with Session(engine) as session:
            for address in (ALICE, BOB, CAROL):
                players.get_or_register(session, address, now()).language = language
            session.commit()
        server = Server(Service(settings, engine))
        for sender, line, reply in SCRIPT:
            line = numbered(server, line)
            if line.startswith("language "):  # the script's own changes of language stay in this one
                line = f"language {language}"
            raw = reply_to(sender, answered(server, sender, line), line) if reply else compose(sender, line)
            assert server.send(raw) == "processed", line
        with Session(engine) as session:
            rows = list(session.exec(select(Outbox).order_by(Outbox.id)).all())
        yield server, rows
    finally:
        engine.dispose()


def main(argv: list[str]) -> int:
    language = argv[0] if argv else "en"
    html = "--html" in argv
    from tests.mailer import text

    with tempfile.TemporaryDirectory() as home, exchange(language, Path(home)) as (_, rows):
        for row in rows:
            mail = parse(row.message)
            print(f"==== {row.template} to {row.recipient}\nSubject: {mail['Subject']}\n")
            print(text(mail))
            if html:
                part = mail.get_body(("html",))
                if part is not None:
                    import inscriptis

                    print("---- html\n" + inscriptis.get_text(part.get_content()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
