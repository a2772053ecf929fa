"""The floors (docs/architecture.md): `core` imports nothing above it, every module imports
only from its floor and the floors below, few imports hide inside functions, and no import
circle spans more than two files. `lint-imports` (import-linter, run by CI) holds the same
contract from `pyproject.toml`, indirect imports included; these tests read the source with
`ast`, so they also run where import-linter is not installed."""

from __future__ import annotations

import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
pytest.importorskip("tomllib", reason="tools/floors.py reads pyproject.toml with tomllib (3.11+)")
sys.path.insert(0, str(ROOT / "tools"))
import floors  # noqa: E402

IMPORTS = floors.imports()
FLOORS = floors.contract()
MAX_IN_FUNCTION = 10


def where(imports) -> str:
    return "\n".join(f"{i.source}:{i.line} -> {i.target}" for i in imports)


def test_core_imports_nothing_outside_core():
    upward = [i for i in IMPORTS if i.source.startswith("kerasish.core")
              and not i.target.startswith("kerasish.core")]
    assert not upward, "core imports from above it:\n" + where(upward)


def test_every_module_stands_on_a_floor():
    unplaced = sorted({m for m in floors.module_files() if m != "kerasish"
                       and floors.floor_of(m, FLOORS) is None})
    assert not unplaced, f"modules on no floor of pyproject.toml's contract: {unplaced}"


def test_no_module_imports_a_higher_floor():
    upward = floors.upward(IMPORTS, FLOORS)
    assert not upward, "imports that reach a higher floor:\n" + where(upward)


def test_imports_inside_functions_are_few_and_say_why():
    inside = [i for i in IMPORTS if i.in_function]
    assert len(inside) <= MAX_IN_FUNCTION, where(inside)
    silent = [i for i in inside if not i.comment]
    assert not silent, "in-function imports without a reason comment:\n" + where(silent)


def test_no_import_circle_of_more_than_two_files():
    long = floors.long_circles(IMPORTS)
    assert not long, "import circles:\n" + "\n".join(" -> ".join(c) for c in long)


def test_the_checker_sees_an_upward_import(tmp_path):
    """The rules fail when they should: a core module that imports layers, inside a function,
    is found, placed and reported as upward."""
    package = tmp_path / "kerasish"
    (package / "core").mkdir(parents=True)
    (package / "layers").mkdir()
    for init in (package, package / "core", package / "layers"):
        (init / "__init__.py").write_text("")
    (package / "layers" / "dense.py").write_text("from kerasish.core import tensor\n")
    (package / "core" / "tensor.py").write_text(
        "def f():\n    from kerasish.layers import dense  # a reason\n")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.importlinter]\n[[tool.importlinter.contracts]]\ntype = "layers"\n'
        'layers = ["layers", "core"]\n')
    found = floors.imports(tmp_path)
    contract = floors.contract(tmp_path)
    assert contract == ["layers", "core"]
    (bad,) = floors.upward(found, contract)
    assert (bad.source, bad.target, bad.in_function, bad.comment) == (
        "kerasish.core.tensor", "kerasish.layers.dense", True, "a reason")
    assert floors.circles(found) == [["kerasish.core.tensor", "kerasish.layers.dense"]]
    assert floors.long_circles(found) == []  # two files importing each other are allowed
    # a third file closing a circle: tensor -> pool -> dense -> tensor
    (package / "layers" / "pool.py").write_text("from kerasish.layers import dense\n")
    (package / "core" / "tensor.py").write_text(
        "def f():\n    from kerasish.layers import pool  # a reason\n")
    assert floors.long_circles(floors.imports(tmp_path)) == [
        ["kerasish.core.tensor", "kerasish.layers.pool", "kerasish.layers.dense"]]
