"""Acting in a game: a move, an offer, a conditional line, for a person and a bot alike."""
