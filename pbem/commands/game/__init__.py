"""Commands that act on or read one game: move, take-back, conditional lines, say, next, records."""
