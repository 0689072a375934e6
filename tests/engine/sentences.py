"""The English sentence of an ending, as the service writes it: templates/_termination.txt."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

import pbem_engine

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


@cache
def _macro() -> Any:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.i18n"],
    )
    env.policies["ext.i18n.trimmed"] = True  # as the service's environments
    env.install_null_translations(newstyle=True)  # English: the msgids are the words
    env.filters["side"] = str
    return env.get_template("_termination.txt").module.termination


def render(code: str, details: dict, sides: list[str]) -> str:
    """The macro's sentence for a termination code and its details."""
    return str(_macro()(code, details, sides))


def sentence(rules: pbem_engine.Rules, outcome: pbem_engine.Outcome) -> str:
    """What a player reads about a finished game ("" while it runs), as `Outcome.reason` was."""
    if outcome.termination is None:
        return ""
    return render(outcome.termination.value, dict(outcome.details), list(rules.sides))
