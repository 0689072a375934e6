"""Moving mail: the IMAP mailbox, the SMTP server, OAuth 2.0 tokens, the sandbox."""
