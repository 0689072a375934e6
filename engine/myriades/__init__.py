"""Myriades and Infinito."""
