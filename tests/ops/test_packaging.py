"""Packaging: the wheel carries every module, template and migration; templates load from it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from pbem.text.templates import PACKAGE, TEMPLATES, Templates, packaged

ROOT = Path(__file__).resolve().parents[2]


def _listed_packages() -> set[str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return set(data["tool"]["setuptools"]["packages"])


def test_every_code_folder_is_a_listed_package() -> None:
    """pyproject.toml lists the packages by hand (for `templates/`): a new folder must be added."""
    folders = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for top in ("pbem", "engine")
        for path in (ROOT / top).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert folders <= _listed_packages(), sorted(folders - _listed_packages())
    assert {PACKAGE, f"{PACKAGE}.rules"} <= _listed_packages()


def test_the_container_copies_every_folder_the_wheel_is_built_from() -> None:
    """deploy/Containerfile builds the wheel from copied folders: one left out fails the build
    ("package directory 'bots' does not exist"), and nothing else would build it."""
    containerfile = (ROOT / "deploy" / "Containerfile").read_text(encoding="utf-8")
    copied = {line.split()[1] for line in containerfile.splitlines() if line.startswith("COPY ") and "--from" not in line}
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders = {name.split(".")[0] for name in data["tool"]["setuptools"]["packages"]}
    folders = {data["tool"]["setuptools"]["package-dir"].get(name, name) for name in folders}
    assert folders <= copied, sorted(folders - copied)
    assert "constraints.txt" in containerfile  # the image installs the locked versions too


def test_from_a_checkout_the_checkouts_templates_are_used() -> None:
    assert packaged() == TEMPLATES == ROOT / "templates"
    assert "help.txt" in Templates().names() and "rules/capturego.txt" in Templates().names()


def test_templates_dir_overrides_the_packaged_templates(tmp_path: Path) -> None:
    (tmp_path / "help.txt").write_text("{% set subject %}Local help{% endset %}\nAsk {{ who }}.\n", encoding="utf-8")
    templates = Templates(tmp_path)
    assert templates.names() == ["help.txt"]
    assert templates.render("help.txt", who="the operator").subject == "Local help"


def test_the_service_renders_from_the_templates_dir_setting(tmp_path: Path) -> None:
    from pbem.core.config import Settings
    from pbem.core.db import make_engine
    from pbem.runners.inbound import Service

    shutil.copytree(ROOT / "templates", tmp_path / "mine")
    settings = Settings(home=tmp_path, templates_dir=tmp_path / "mine")
    service = Service(settings, make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}"))
    assert service.templates.root == tmp_path / "mine"


@pytest.mark.slow
def test_the_built_wheel_carries_every_template_and_migration(tmp_path: Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(
        ROOT, src, ignore=shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".venv")
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(src)],
        check=True, capture_output=True, stdin=subprocess.DEVNULL,
    )
    (wheel,) = tmp_path.glob("pbem-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {f"{PACKAGE}/{p.relative_to(ROOT / 'templates').as_posix()}"
              for pattern in ("*.txt", "*.html") for p in (ROOT / "templates").rglob(pattern)}
    wanted |= {p.relative_to(ROOT).as_posix() for p in (ROOT / "pbem" / "migrations").rglob("*") if p.is_file()
               and "__pycache__" not in p.parts}
    wanted |= {p.relative_to(ROOT).as_posix() for top in ("pbem", "engine") for p in (ROOT / top).rglob("*.py")
               if "__pycache__" not in p.parts}
    wanted |= {p.relative_to(ROOT).as_posix() for p in (ROOT / "pbem" / "locale").rglob("*.[mp]o")}
    assert any(name.endswith("/ru/LC_MESSAGES/messages.mo") for name in wanted)
    assert len(wanted) > 100
    assert wanted <= names, sorted(wanted - names)
    assert not any(name.startswith(("tests/", "benchmarks/", "templates/")) for name in names)
    metadata = next(zipfile.ZipFile(wheel).read(n) for n in names if n.endswith(".dist-info/METADATA")).decode()
    assert "License-Expression: MIT" in metadata.splitlines()  # the SPDX string, not the deprecated table
