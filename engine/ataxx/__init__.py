"""Ataxx and its variants (Infection, Assimilation)."""
