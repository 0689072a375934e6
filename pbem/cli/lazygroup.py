"""A click group whose commands live in modules imported only when one of them runs.

`pbem --help` and `pbem admin --help` list every command without importing the database
layer: each lazy command is known by the function that imports it and by its short help,
repeated where the table is kept (a test checks it against the command's own).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

Loader = Callable[[], "click.Command | None"]  # returns the command, or adds it to the group itself


class LazyGroup(click.Group):
    """`lazy` maps a command's name to (its loader, its short help)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, tuple[Loader, str]] = {}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            command = self.lazy[cmd_name][0]()
            if command is not None and cmd_name not in self.commands:
                self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            command = self.commands.get(name)
            if command is None:
                # Shortened as click shortens a command's own help (its rule differs between
                # versions: click 8.5 reads "e.g. after" as one sentence, 8.4 stops at "e.g.").
                rows.append((name, click.Command(name, help=self.lazy[name][1]).get_short_help_str(limit)))
            elif not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)
