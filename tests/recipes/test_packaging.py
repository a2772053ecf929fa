"""The recipes install inside the kerasish namespace: `kerasish.recipes`, never a top-level
package named `recipes`; `python -m recipes.<name>` keeps working from the repository."""

import importlib
import os
import subprocess
import sys
import warnings
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


def test_the_metadata_states_the_license_as_spdx_and_ships_its_text(monkeypatch):
    """PEP 639's form (setuptools deprecates the table form); the LICENSE file is the text."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pytest.importorskip("setuptools", minversion="77")  # what the build requires
    from setuptools.config import pyprojecttoml
    from setuptools.dist import Distribution

    with open(ROOT / "pyproject.toml", "rb") as handle:
        config = tomllib.load(handle)
    assert "setuptools>=77" in config["build-system"]["requires"]  # reads license-files
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0" in text
    monkeypatch.chdir(ROOT)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no SetuptoolsDeprecationWarning about the license
        dist = pyprojecttoml.apply_configuration(Distribution(), ROOT / "pyproject.toml")
    assert dist.metadata.license_expression == "Apache-2.0"
    assert dist.metadata.license_files == ["LICENSE"]
