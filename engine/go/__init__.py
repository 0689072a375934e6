"""Capture Go: first to N captures."""
