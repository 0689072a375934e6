"""pbem.mail is the layer below the service: MIME, IMAP and SMTP, and nothing of the game (issue 10)."""

import ast
from pathlib import Path

import pbem.mail

MAIL = Path(pbem.mail.__file__).parent


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at module level or inside functions."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_the_mail_layer_imports_nothing_of_pbem_above_it():
    for path in sorted(MAIL.glob("*.py")):
        ours = {m for m in imported_modules(path) if m == "pbem" or m.startswith(("pbem.", "engine"))}
        assert all(m.startswith("pbem.mail") for m in ours), (path.name, ours)


def test_no_module_of_the_mail_layer_is_over_500_lines():
    for path in sorted(MAIL.glob("*.py")):
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 500, path.name
