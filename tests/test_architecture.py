"""The shape of the code: folders that are the layers, layers with one direction, no import cycle.

import-linter checks the layers (the contracts are in pyproject.toml; CI runs them too); the
contracts name packages only, and every module lives in one, so where a file is put says what it
may import. This test also walks every import of pbem, the engine and the bots, at module level,
inside functions and under TYPE_CHECKING, and finds no cycle, which modules of one package
could still form.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


#: The folders of the checkout and the names they install as (pyproject.toml's package-dir).
PACKAGES = {"pbem": "pbem", "engine": "pbem_engine", "bots": "pbem_bots"}


def _modules() -> dict[str, Path]:
    found = {}
    for folder, package in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            name = ".".join((package, *parts))
            found[name.removesuffix(".__init__")] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every pbem module `name` imports, wherever the import stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            targets |= {f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names}
    resolved = set()
    for target in targets:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != name:
            resolved.add(target)
    return resolved


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_anywhere_even_inside_functions() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert {name.split(".")[0] for name in graph} == set(PACKAGES.values())
    assert len(graph) > 100  # the walk found the packages
    assert _cycles(graph) == []


def _layers() -> list[str]:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (top,) = [c for c in contracts["contracts"] if c["type"] == "layers" and "containers" not in c]
    return [name.strip() for layer in top["layers"] for name in layer.replace(":", "|").split("|")]


def test_the_top_folders_are_the_layers_and_the_contract_names_them_all() -> None:
    """pbem/ holds packages only (its __init__ aside), about a dozen; each is a layer of the
    contract, so a new module is covered by the folder it is put in."""
    entries = sorted(p.name for p in (ROOT / "pbem").iterdir() if p.name != "__pycache__")
    loose = [name for name in entries if name.endswith(".py") and name != "__init__.py"]
    assert loose == [], f"modules at pbem's top: put each in the package of its layer: {loose}"
    packages = {f"pbem.{name}" for name in entries if (ROOT / "pbem" / name / "__init__.py").is_file()}
    assert len(entries) <= 14
    layers = _layers()
    assert packages <= set(layers), sorted(packages - set(layers))
    assert set(layers) <= packages | {"pbem_engine", "pbem_bots"}  # packages only, no module


def test_no_package_is_a_crowd() -> None:
    """Each package is a room of a few modules: past about a dozen, it wants splitting."""
    for folder in PACKAGES:
        for init in (ROOT / folder).rglob("__init__.py"):
            if "migrations" in init.parts:
                continue
            modules = [p for p in init.parent.glob("*.py") if p.name != "__init__.py"]
            assert len(modules) <= 12, f"{init.parent.relative_to(ROOT)} holds {len(modules)} modules"


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


# The one installed beside the Python running the suite (a virtual environment need not be on PATH).
LINT_IMPORTS = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")


@pytest.mark.skipif(LINT_IMPORTS is None, reason="import-linter is not installed")
def test_the_layer_contracts_hold() -> None:
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": str(Path(sys.executable).parent)},
    )
    assert done.returncode == 0, done.stdout[-3000:]
