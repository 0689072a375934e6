"""The command words of every language: each command's aliases, by language.

English names are the commands' own (`Command.name`, `Command.aliases`); this table adds
the words players of the other languages write, so `сдаюсь`, `arrendersi` and `기권` all
resign. `help` lists them in the reader's language.
"""

from __future__ import annotations

#: command name -> language code -> its words in that language (the first is the main one)
WORDS: dict[str, dict[str, tuple[str, ...]]] = {}


def aliases(command: str, language: str) -> tuple[str, ...]:
    """The words of `command` in `language` (none for English: the command's own name)."""
    return WORDS.get(command, {}).get(language, ())
