"""The translation catalogs: extract the msgids, update each language, compile, check.

    python -m pbem.text.catalogs extract   # pbem/text/locale/messages.pot from the code and templates
    python -m pbem.text.catalogs update    # every language's .po brought up to the .pot
    python -m pbem.text.catalogs compile   # every .po to its .mo (the wheel carries the .mo)
    python -m pbem.text.catalogs check     # what a test checks: complete, placeholders kept, .mo current

Babel's own `pybabel` does the same steps; this module fixes their options in one place
(the keywords of `pbem_engine.common.phrases`, Jinja's trimmed new-style blocks, no line numbers, so
a template edited elsewhere leaves the catalogs alone) and adds the checks pybabel lacks:
every `{name}` field kept, every plural form written, the .mo built from the .po.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po, write_po

from pbem.text.i18n import DEFAULT, DOMAIN, LANGUAGES, LOCALES

ROOT = LOCALES.parent.parent  # the checkout: engine/, pbem/, templates/
JINJA = "jinja2.ext:babel_extract"
_JINJA_OPTIONS = {
    "extensions": "jinja2.ext.i18n", "trimmed": "true", "newstyle_gettext": "true",
    "trim_blocks": "true", "lstrip_blocks": "true",
}
METHODS = [
    ("engine/**.py", "python"),
    ("pbem/**.py", "python"),
    ("templates/**.txt", JINJA),
    ("templates/**.html", JINJA),
]
OPTIONS = {"templates/**.txt": _JINJA_OPTIONS, "templates/**.html": _JINJA_OPTIONS}
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "NP_": ((1, "c"), 2), "phrase": None, "nphrase": (1, 2)}
POT = LOCALES / f"{DOMAIN}.pot"


def po_path(code: str) -> Path:
    return LOCALES / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(code: str) -> Path:
    return po_path(code).with_suffix(".mo")


def translated() -> list[str]:
    """The languages with a catalog (all but the source language)."""
    return [code for code in LANGUAGES if code != DEFAULT]


def extracted() -> Catalog:
    """Every msgid of the code and the templates, as a template catalog."""
    catalog = Catalog(project="pbem", version="", msgid_bugs_address="", charset="utf-8")
    found = extract_from_dir(
        str(ROOT), METHODS, OPTIONS, KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
    )
    for filename, _lineno, message, comments, context in found:
        catalog.add(message, None, [(filename, None)], auto_comments=comments, context=context)
    return catalog


def _write(catalog: Catalog, path: Path) -> None:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=100, include_lineno=False, omit_header=False, sort_output=True)
    data = re.sub(rb'"POT-Creation-Date: [^"]*"\n', b"", buffer.getvalue())  # no churn per run
    data = re.sub(rb'"PO-Revision-Date: [^"]*"\n', b"", data)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


#: the dates a catalog's header says: fixed, so a .mo compiled from the same .po is the same
#: bytes whenever it is built (the .po files keep no dates, or they would churn each run)
DATED = datetime(2026, 1, 1, tzinfo=UTC)


def read(path: Path, code: str | None = None) -> Catalog:
    with path.open("rb") as f:
        catalog = read_po(f, locale=code, domain=DOMAIN)
    catalog.creation_date = catalog.revision_date = DATED
    return catalog


def extract() -> Catalog:
    catalog = extracted()
    _write(catalog, POT)
    return catalog


def update() -> None:
    template = read(POT)
    for code in translated():
        path = po_path(code)
        catalog = read(path, code) if path.exists() else Catalog(locale=code, domain=DOMAIN, project="pbem")
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        _write(catalog, path)


def compiled(code: str) -> bytes:
    buffer = io.BytesIO()
    write_mo(buffer, read(po_path(code), code), use_fuzzy=False)
    return buffer.getvalue()


def compile_all() -> None:
    for code in translated():
        mo_path(code).write_bytes(compiled(code))


_PERCENT = re.compile(r"%\((\w+)\)[sd]")
_BRACES = re.compile(r"(?<!\{)\{(\w+)\}(?!\})")


def fields(text: str) -> set[str]:
    """The placeholders of a msgid or msgstr: Jinja's `%(name)s` and the phrases' `{name}`."""
    return set(_PERCENT.findall(text)) | set(_BRACES.findall(text))


def problems(code: str) -> Iterable[str]:
    """What is wrong with one language's catalog; nothing when it is complete and current."""
    path = po_path(code)
    if not path.exists():
        yield f"{code}: no catalog at {path.relative_to(ROOT)}"
        return
    catalog = read(path, code)
    template = read(POT)
    forms = get_plural(Locale.parse(code)).num_plurals
    for message in template:
        if not message.id:
            continue
        found = catalog.get(message.id, message.context)
        name = message.id if isinstance(message.id, str) else message.id[0]
        if found is None:
            yield f"{code}: missing {name!r}"
            continue
        if found.fuzzy:
            yield f"{code}: fuzzy {name!r}"
        strings = found.string if isinstance(found.string, tuple | list) else (found.string,)
        if isinstance(message.id, tuple | list) and len(strings) != forms:
            yield f"{code}: {name!r} has {len(strings)} plural forms, {code} has {forms}"
        wanted = fields(message.id if isinstance(message.id, str) else message.id[-1])
        for string in strings:
            if not string:
                yield f"{code}: untranslated {name!r}"
            elif fields(string) - wanted or (wanted - fields(string) - {"n", "num"}):
                yield f"{code}: {name!r} has fields {sorted(fields(string))}, wants {sorted(wanted)}"
    if mo_path(code).exists() and mo_path(code).read_bytes() != compiled(code):
        yield f"{code}: {mo_path(code).relative_to(ROOT)} is not compiled from the current .po"
    elif not mo_path(code).exists():
        yield f"{code}: no compiled catalog (python -m pbem.text.catalogs compile)"


def stale() -> list[str]:
    """The msgids the code and templates have that the .pot lacks, and the other way round."""
    have = {(m.id, m.context) for m in read(POT) if m.id}
    want = {(m.id, m.context) for m in extracted() if m.id}
    return [f"not in the .pot: {m[0]!r}" for m in want - have] + [f"gone: {m[0]!r}" for m in have - want]


def check() -> list[str]:
    return stale() + [p for code in translated() for p in problems(code)]


def main(argv: list[str]) -> int:
    step = argv[0] if argv else "check"
    if step == "extract":
        print(f"{len(extract())} messages in {POT.relative_to(ROOT)}")
    elif step == "update":
        update()
    elif step == "compile":
        compile_all()
    elif step == "check":
        found = check()
        for problem in found:
            print(problem)
        for code in translated():
            if po_path(code).exists():
                catalog = read(po_path(code), code)
                done = sum(1 for m in catalog if m.id and m.string and not m.fuzzy)
                print(f"{code}: {done} of {len([m for m in catalog if m.id])} messages translated")
        return 1 if found else 0
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
