"""Words and looks: the languages, the templates, text widths, look-alike letters, boards drawn.

It may import only the mail layer and the engine. It knows no database and no game record."""
