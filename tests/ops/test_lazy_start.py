"""Issue 12, start-up: help and the admin group load no database, template or mail layer.

`pbem admin` imports a command's module only when it runs; its `--help` lists the commands
from a table in `pbem.cli.admin.group`, checked here against the commands themselves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.ops.test_startup import _child_cpu

HEAVY = ("sqlalchemy", "sqlmodel", "alembic", "pydantic", "jinja2", "aiosmtplib", "aiosmtpd", "imap_tools",
         "engine", "pbem.core.models", "pbem.core.db", "pbem.core.config")
HELPS = [["--help"], ["admin", "--help"], ["admin", "status", "--help"]]


def _python(code: str) -> str:
    env = {**os.environ}
    env.pop("PBEM_CONFIG", None)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("args", HELPS, ids=" ".join)
def test_help_loads_no_heavy_module(args: list[str]) -> None:
    loaded = _python(
        "import sys, json\n"
        "from pbem.cli.main import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    ).splitlines()[-1]
    assert json.loads(loaded) == []


@pytest.mark.parametrize("args", HELPS[1:], ids=" ".join)
def test_admin_help_is_cheap(args: list[str]) -> None:
    """`pbem admin --help` and `pbem admin status --help` under 0.5 s of CPU (best of three)."""
    cpu = min(_child_cpu([sys.executable, "-m", "pbem.cli.main", *args]) for _ in range(3))
    assert cpu < 0.5, f"pbem {' '.join(args)} took {cpu:.2f} s of CPU"


def test_the_admin_table_names_each_command_with_its_module_and_short_help() -> None:
    """Each loader adds exactly the commands the table lists for it, with the help it repeats."""
    found = json.loads(_python(
        "import json\n"
        "from pbem.cli.admin.group import COMMANDS, admin\n"
        "out = []\n"
        "for load, listed in COMMANDS.items():\n"
        "    before = set(admin.commands)\n"
        "    load()\n"
        "    added = {n: admin.commands[n].get_short_help_str(limit=200) for n in set(admin.commands) - before}\n"
        "    out.append([listed, added])\n"
        "out.append(sorted(admin.commands))\n"
        "print(json.dumps(out))"
    ))
    *pairs, every = found
    for listed, added in pairs:
        assert listed == added
    listed_names = {name for listed, _ in pairs for name in listed}
    assert set(every) - listed_names == {"migrate"}  # the one command of pbem.cli.admin.common itself


def test_admin_help_lists_the_same_lines_lazily_as_with_every_module_loaded() -> None:
    show = "from pbem.cli.main import main\ntry:\n    main(['admin', '--help'])\nexcept SystemExit:\n    pass\n"
    lazy = _python(show)
    eager = _python("from pbem.cli.admin.group import load_all\nload_all()\n" + show)
    assert lazy == eager
    assert "status  " in lazy and "quarantine  " in lazy


def test_each_command_s_first_sentence_ends_where_every_click_version_ends_it() -> None:
    """No period inside a command's first sentence ("e.g. after"): click up to 8.4 ends the short
    help there, click 8.5 reads on, and the table of pbem.cli.admin.group can hold only one of the two."""
    import click

    from pbem.cli.admin.group import load_all
    from pbem.cli.main import main

    load_all()
    found = []

    def walk(group: click.Group, prefix: str) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            words = [*(command.help or "").partition("\n\n")[0].split(), ""]
            first = next((i for i, word in enumerate(words) if word.endswith(".")), -1)
            if first >= 0 and words[first + 1][:1].islower():
                found.append(prefix + name)
            if isinstance(command, click.Group) and command is not group:
                walk(command, f"{prefix}{name} ")

    walk(main, "")
    assert found == []
