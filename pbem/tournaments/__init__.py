"""Tournaments and ladders: pairing, standings, places, their games and their letters."""
