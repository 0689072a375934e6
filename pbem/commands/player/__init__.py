"""Commands about the player: account, language, notices, stop, held mail, help and rules,
challenges, tournaments and time."""
