"""Everything that speaks MIME, IMAP or SMTP; the rest of pbem sees bytes and Envelopes."""
