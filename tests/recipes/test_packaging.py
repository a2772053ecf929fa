"""The recipes install inside the kerasish namespace: `kerasish.recipes`, never a top-level
package named `recipes`; `python -m recipes.<name>` keeps working from the repository."""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_packages_a_build_finds_are_kerasish_and_kerasish_recipes():
    setuptools = pytest.importorskip("setuptools")
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with open(ROOT / "pyproject.toml", "rb") as handle:
        find = tomllib.load(handle)["tool"]["setuptools"]["packages"]["find"]
    packages = setuptools.find_packages(str(ROOT), **find)
    assert "kerasish.recipes" in packages
    assert all(p == "kerasish" or p.startswith("kerasish.") for p in packages), packages


def test_the_recipes_are_one_folder_under_both_names():
    link = ROOT / "kerasish" / "recipes"
    assert link.is_symlink() and os.readlink(link) == os.path.join("..", "recipes")
    installed = importlib.import_module("kerasish.recipes.mnist")
    checkout = importlib.import_module("recipes.mnist")
    assert os.path.realpath(installed.__file__) == os.path.realpath(checkout.__file__)
    assert installed.__package__ == "kerasish.recipes"  # its own imports stay in its namespace


@pytest.mark.parametrize("name", ["linear_regression", "word2vec"])
def test_kerasish_name_runs_from_any_directory(name, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-m", "kerasish", name, "--help"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: kerasish {name} ")
