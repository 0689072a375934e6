"""Who is told what, with which mail: the views templates see, the table of events, the
outbox rows, the digests and the bounces. It may import the games, trust and every layer below."""
