"""The daemon and its runners: the inbound mail (and the command runner that owns the
dispatch of its lines), the outbox, the clock, digests, tournaments, bots and metrics."""
