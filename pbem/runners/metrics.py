"""What the daemon tells a monitor: heartbeats in the database, and /metrics for Prometheus.

The daemon calls a `Monitor` at a few points (a mailbox round, a message handled, a clock
round, an outbox round). Heartbeats are always written (`pbem.core.heartbeat`, read by `pbem
admin status`); the Prometheus endpoint is served only when `metrics_port` is set, on
`metrics_host` (127.0.0.1 unless told), and prometheus-client is imported only then.
The outbox figures are read from the database when scraped: they are the service's, not
one process's, and cost one indexed query per scrape.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from pbem.core import heartbeat
from pbem.core.config import Settings
from pbem.core.models import Outbox
from pbem.core.wallclock import now

if TYPE_CHECKING:
    from pbem.runners.clock import Round

log = logging.getLogger(__name__)

STATUSES = ("processed", "silenced", "duplicate", "banned", "robot", "stopped", "quarantined")
SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class PortTaken(OSError):
    """The metrics address is in use (another daemon on this host?)."""


class _Outbox:
    """A collector that reads the outbox when scraped: depth, failed mails, oldest pending age."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        try:
            with Session(self.engine) as session:
                pending, oldest = session.exec(select(func.count(Outbox.id), func.min(Outbox.created_at))
                                               .where(Outbox.status == "pending")).one()
                failed = session.exec(select(func.count(Outbox.id)).where(Outbox.status == "failed")).one()
        except Exception as exc:  # noqa: BLE001 - a scrape must answer; the gauges are simply missing
            log.warning("metrics: cannot read the outbox: %s", exc)
            return
        age = 0.0
        if oldest is not None:
            at = now()
            age = max(0.0, (at - (oldest if oldest.tzinfo else oldest.replace(tzinfo=at.tzinfo))).total_seconds())
        yield GaugeMetricFamily("pbem_outbox_pending", "Mails waiting to be sent.", value=pending)
        yield GaugeMetricFamily("pbem_outbox_failed", "Mails that failed for good (pbem admin outbox --failed).",
                                value=failed)
        yield GaugeMetricFamily("pbem_outbox_oldest_pending_seconds", "Age of the oldest mail waiting (0: none).",
                                value=age)


class _Metrics:
    """The daemon's own counters, in a registry of their own (two daemons in one process
    never clash)."""

    def __init__(self, engine: Engine) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry()
        r = self.registry
        self.messages = Counter("pbem_messages", "Messages read, by what became of them.", ["status"], registry=r)
        for status in STATUSES:
            self.messages.labels(status)
        self.seconds = Histogram("pbem_message_seconds", "Seconds to handle one message.",
                                 buckets=SECONDS_BUCKETS, registry=r)
        self.sent = Counter("pbem_mails_sent", "Mails sent by this daemon.", registry=r)
        self.rounds = Counter("pbem_clock_rounds", "Clock rounds ended.", registry=r)
        self.reminders = Counter("pbem_reminders", "Deadline reminders sent.", registry=r)
        self.forfeits = Counter("pbem_forfeits", "Games lost on time.", registry=r)
        self.contact = Gauge("pbem_last_mailbox_contact_timestamp_seconds",
                             "Unix time of the daemon's last successful mailbox round.", registry=r)
        r.register(_Outbox(engine))


class Monitor:
    """The daemon's heartbeats and, when `metrics_port` is set, its /metrics endpoint."""

    def __init__(self, settings: Settings, engine: Engine) -> None:
        self.settings = settings
        self.pulse = heartbeat.Pulse(engine)
        self.metrics = _Metrics(engine) if settings.metrics_port is not None else None
        self._server: Any = None

    def start(self) -> None:
        """Serve /metrics (when configured); raises PortTaken when the address is in use."""
        if self.metrics is None or self._server is not None:
            return
        from prometheus_client import start_http_server

        host, port = self.settings.metrics_host, self.settings.metrics_port
        try:
            self._server, _ = start_http_server(port, addr=host, registry=self.metrics.registry)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise PortTaken(exc.errno, f"{host}:{port} is taken (metrics_port): is another pbem serving "
                                           "metrics there?") from None
            raise
        log.info("metrics on http://%s:%d/metrics", host, port)

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    async def contact(self) -> None:
        """The mailbox answered (a poll, or the end of an IDLE wait)."""
        if self.metrics is not None:
            self.metrics.contact.set(time.time())
        await self._beat(heartbeat.MAILBOX)

    def handled(self, status: str, seconds: float) -> None:
        """One message is finished with: processed, silenced, duplicate, banned, robot or quarantined."""
        if self.metrics is not None:
            self.metrics.messages.labels(status).inc()
            self.metrics.seconds.observe(seconds)

    def delivered(self, sent: int) -> None:
        if self.metrics is not None and sent:
            self.metrics.sent.inc(sent)

    async def clock_round(self, done: Round) -> None:
        """A clock round ended without failing."""
        if self.metrics is not None:
            self.metrics.rounds.inc()
            self.metrics.reminders.inc(done.reminders)
            self.metrics.forfeits.inc(done.forfeits)
        await self._beat(heartbeat.CLOCK)

    async def _beat(self, name: str) -> None:
        if not self.pulse.due(name):  # the common case: no thread, no database
            return
        try:
            await asyncio.to_thread(self.pulse.beat, name)
        except Exception as exc:  # noqa: BLE001 - a heartbeat never stops the daemon; status will show it
            log.warning("could not note the %s heartbeat: %s", name, exc)
