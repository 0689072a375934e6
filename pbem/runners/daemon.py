"""The daemon: runners that each do one step, until a signal stops them.

- the inbound runner reads the mailbox, hands each message to the service (one
  transaction each), and only then marks it done in the mailbox;
- the outbox runner delivers what the transactions queued, with retries;
- the clock runner sends reminders and ends games on time;
- the bot runner plays the moves of the bots, each search in a worker thread of its own.
In the sandbox, an SMTP listener on 127.0.0.1 takes the place of the mail servers.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import threading
import time
from dataclasses import replace
from pathlib import Path

from sqlalchemy import Engine

from pbem.core import faults
from pbem.core.config import Settings
from pbem.core.db import make_engine, migrate
from pbem.mail.message import language
from pbem.mail.message.source import MailSource, RawMail
from pbem.mail.transport.imap import ImapSource, MailboxUnavailable
from pbem.mail.transport.sandbox import MaildirSource, SandboxServer
from pbem.mail.transport.smtp import SmtpSettings
from pbem.runners import (
    bots as botrunner,
)
from pbem.runners import (
    clock as timekeeper,
)
from pbem.runners import (
    digests,
    outbox,
    quarantine,
)
from pbem.runners import (
    tournaments as tournament_rounds,
)
from pbem.runners.inbound import Service
from pbem.runners.metrics import Monitor

log = logging.getLogger(__name__)

MAX_TRIES = quarantine.MAX_TRIES  # a message that makes processing fail this often is quarantined


def settle() -> None:
    """Set what the daemon has built so far (its modules, settings, engine, templates and
    caches) beside the cyclic garbage collector's work: it is never garbage, yet every full
    collection walked all of it, some 160,000 objects, about 90 ms each time on the benchmark's
    machine. Collected first, so no garbage is frozen with it."""
    gc.collect()
    gc.freeze()


def _warm() -> None:
    """The language model loaded beside the loops, then settled with what the daemon built
    in its first minute (templates compiled, statements cached)."""
    language.warm()
    settle()


def sandbox_root(settings: Settings) -> Path:
    """Where the sandbox keeps one Maildir per address."""
    return settings.home / "sandbox"


BOT_INTERVAL = 2.0  # seconds between two looks for games where a bot is on move (a mail wakes it at once)
WARM_AFTER = 60.0  # seconds of running before the language model is loaded beside the loops


class Daemon:
    """Owns the mailbox, the database and the runners; `run` until `stop` is set."""

    def __init__(self, settings: Settings, engine: Engine | None = None, source: MailSource | None = None):
        self.sandbox: SandboxServer | None = None
        if settings.sandbox:
            self.sandbox = SandboxServer(sandbox_root(settings), port=settings.sandbox_port)
            self.sandbox.start()
            smtp = SmtpSettings(host="127.0.0.1", port=self.sandbox.port, security="none")
            settings = replace(settings, smtp=smtp)
            source = source or MaildirSource(sandbox_root(settings), settings.address)
        self.settings = settings
        self.engine = engine or make_engine(settings.db_url)
        migrate(self.engine)
        self.source = source or ImapSource(settings.imap)
        self.service = Service(settings, self.engine)
        self.monitor = Monitor(settings, self.engine)  # heartbeats, and /metrics when configured
        self.journal = quarantine.Journal(settings.home / "trying")  # what a SIGKILL must not forget
        quarantine.recover(self.engine, self.journal)
        self.gate = quarantine.Gate(self.journal, MAX_TRIES)
        faults.install()  # a test hook; does nothing unless PBEM_CRASH_AT is set
        self.stop = asyncio.Event()
        self.outbox_wake = asyncio.Event()
        self.bot_wake = asyncio.Event()  # set after every batch of messages: a move may have put a bot on move
        self._warmed = False
        self._started = time.monotonic()
        self.web = None
        if settings.web_settings.enabled:  # the read-only pages, in this event loop (pbem.web)
            from pbem.web.server import WebServer

            self.web = WebServer(settings, self.engine)

    async def run(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.stop.set)
        self.monitor.start()
        settle()
        log.info("pbem serving %s (%s)", self.settings.address, "sandbox" if self.sandbox else "IMAP")
        stopper = asyncio.ensure_future(self._close_on_stop())
        try:
            await asyncio.gather(*(runner() for runner in self.runners()))
        finally:
            stopper.cancel()
            self.close()

    def runners(self) -> list:
        """The loops the daemon runs side by side; each does one step."""
        runners = [self._inbound, self._outbox, self._clock, self._bots]
        return [*runners, self._web] if self.web is not None else runners

    async def _web(self) -> None:
        if self.web is not None:
            await self.web.run(self.stop)

    async def _close_on_stop(self) -> None:
        await self.stop.wait()
        self.source.close()  # ends an IMAP IDLE at once instead of at its timeout

    def close(self) -> None:
        gc.unfreeze()  # a daemon run inside another program (the tests) leaves its heap as it found it
        self.source.close()
        self.monitor.close()
        self.journal.close()
        if self.sandbox is not None:
            self.sandbox.stop()
            self.sandbox = None

    async def _inbound(self) -> None:
        reached = False
        while not self.stop.is_set():
            try:
                mails = await asyncio.to_thread(self.source.fetch, 50)
            except MailboxUnavailable as exc:
                log.warning("mailbox unavailable: %s", exc)
                await self._sleep(1.0)
                continue
            await self.monitor.contact()
            if not reached:  # the readiness line: migrated, serving, and the mailbox answers
                reached = True
                log.info("mailbox reached: %d messages waiting", len(mails))
            if not mails and not self._warmed and time.monotonic() - self._started > WARM_AFTER:
                # the language model, loaded once the daemon has run a while and the mailbox is
                # empty: a new player's first mail finds it ready, the start-up's first answers
                # do not wait for it, and a daemon restarted often does not load it each time
                self._warmed = True
                threading.Thread(target=_warm, name="pbem-language", daemon=True).start()
            handled, troubled = await asyncio.to_thread(self._handle_batch, mails) if mails else ([], False)
            if mails:  # once a batch, not once a message: each look is a transaction of its own
                self.bot_wake.set()
            if troubled:
                await self._sleep(1.0)
            if handled:  # one IMAP command for the batch, after every one of its commits
                await asyncio.to_thread(self._done, handled)
            if not mails:
                await asyncio.to_thread(self.source.wait, 5.0)

    def process(self, key: str, data: bytes) -> bool:
        """Handle one message; True when it is finished with (handled, a repeat, or quarantined)
        and may be marked done in the mailbox. A try is counted in the message's own
        transaction, or in one of its own when it raises; one that kills the process is
        counted from the journal when the daemon starts again (`pbem.runners.quarantine`)."""
        result, started = None, time.perf_counter()
        envelope = self.service.parse(data)  # parsed once, for the quarantine and the service
        try:
            result = self.service.handle(data, envelope, self.gate)
        except Exception as exc:
            log.exception("message %s failed", key)
            if not quarantine.failed(self.engine, envelope, data, f"{type(exc).__name__}: {exc}", MAX_TRIES):
                return False
            log.error("message %s quarantined after %d tries", key, MAX_TRIES)
            self.service.set_aside(data, "quarantined", envelope)
            result = None
        finally:
            self.journal.end()
        faults.crash_point("after-commit")
        if result is not None:
            log.info("message %s: %s", result.message_id, result.status)
        self.monitor.handled(result.status if result else "quarantined", time.perf_counter() - started)
        self._loop.call_soon_threadsafe(self.outbox_wake.set)
        return True

    def _handle_batch(self, mails: list[RawMail]) -> tuple[list[str], bool]:
        """Process a batch of mails one after the other in one worker thread (a thread hop per
        mail cost more than some of the mails); returns the keys finished with, and whether one
        failed. Each is its own transaction; the stop signal ends the batch between two."""
        handled: list[str] = []
        troubled = False
        for mail in mails:
            if self.stop.is_set():
                break
            try:
                if self.process(mail.key, mail.data):
                    handled.append(mail.key)
            except Exception:  # e.g. the database went away: log, and read the message again later
                log.exception("message %s could not be handled", mail.key)
                troubled = True  # one message's trouble does not abandon the others of the batch
        return handled, troubled

    def _done(self, keys: list[str]) -> None:
        try:
            self.source.done_all(keys)
        except MailboxUnavailable as exc:  # read again later; the store drops the repeats
            log.warning("could not mark %d messages done: %s", len(keys), exc)

    async def _clock(self) -> None:
        """Reminders and forfeits: one round at start (catching up after downtime), then periodically."""
        first = True
        while not self.stop.is_set():
            try:
                done = await asyncio.to_thread(timekeeper.tick, self.engine, self.settings, self.service.templates)
                mailed = await asyncio.to_thread(digests.send_due, self.engine, self.settings, self.service.templates)
                # after the clock: a loss on time may have been the last game of a round
                paired = await asyncio.to_thread(
                    tournament_rounds.advance_due, self.engine, self.settings, self.service.templates)
                if done.reminders or done.forfeits or mailed or paired:
                    self.outbox_wake.set()
                if paired:
                    log.info("tournament round: %d tournaments moved on", paired)
                if mailed:
                    log.info("digest round: %d digests", mailed)
                if first or done.reminders or done.forfeits:  # progress the operator (and tests) can see
                    log.info("clock round%s: %d reminders, %d forfeits", " (start)" * first,
                             done.reminders, done.forfeits)
                first = False
                await self.monitor.clock_round(done)
            except Exception:
                log.exception("clock round failed")
            await self._sleep(self.settings.clock_interval)

    async def _bots(self) -> None:
        """The bots' answers and moves: the games where a bot is on move or has an offer to
        answer, each judged and searched in a worker thread (no transaction is open while it
        thinks) and stored in a transaction of its own."""
        while not self.stop.is_set():
            self.bot_wake.clear()
            played = 0
            try:
                for game_id in await asyncio.to_thread(botrunner.due, self.engine, self.settings):
                    if self.stop.is_set():
                        break
                    played += await asyncio.to_thread(
                        botrunner.play_one, self.engine, self.settings, self.service.templates, game_id
                    )
            except Exception:
                log.exception("bot round failed")
            if played:
                self.outbox_wake.set()
                continue  # a bot's move may have put another bot on move, or more games wait
            await self._sleep(BOT_INTERVAL, self.bot_wake)

    async def _outbox(self) -> None:
        sender = outbox.Sender(self.engine, self.settings)  # its SMTP sessions last from round to round
        try:
            while not self.stop.is_set():
                try:
                    self.monitor.delivered(await sender.deliver_due())
                except Exception:
                    log.exception("outbox round failed")
                self.outbox_wake.clear()
                if not sender.more:  # a full round: the next one starts at once
                    await self._sleep(self.settings.outbox_interval, self.outbox_wake)
        finally:
            await sender.close()

    async def _sleep(self, seconds: float, wake: asyncio.Event | None = None) -> None:
        waiters = [asyncio.ensure_future(self.stop.wait())]
        if wake is not None:
            waiters.append(asyncio.ensure_future(wake.wait()))
        _, pending = await asyncio.wait(waiters, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()


def serve(settings: Settings) -> None:
    """Run the daemon in the foreground until SIGTERM or SIGINT."""

    async def main() -> None:
        daemon = Daemon(settings)
        await daemon.run()

    asyncio.run(main())
