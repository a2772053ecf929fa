"""The documentation: every guide's code runs, every public module has a reference page,
and the site builds with `mkdocs build --strict` (when mkdocs is installed: the docs extra)."""

from __future__ import annotations

import contextlib
import inspect
import io
import pathlib
import re
import subprocess
import sys

import pytest

import kerasish as ks

# the APIs the issue names first, and the TF-habit ones: documented arguments and an example
DOCUMENTED = [
    ks.layers.Dense, ks.layers.Embedding, ks.Model.fit, ks.Model.evaluate, ks.Model.predict,
    ks.Checkpoint.restore, ks.Checkpoint.read, ks.CheckpointManager, ks.GradientTape,
    ks.GradientTape.gradient, ks.optimizers.Optimizer, ks.optimizers.SGD, ks.optimizers.Adam,
    ks.optimizers.AdamW, ks.optimizers.RMSprop, ks.optimizers.Adagrad,
    ks.data.Dataset.from_tensor_slices, ks.data.Dataset.batch, ks.data.Dataset.map,
    ks.data.Dataset.shuffle, ks.summary.create_file_writer, ks.summary.scalar,
    ks.callbacks.ReduceLROnPlateau, ks.callbacks.LambdaCallback, ks.callbacks.BackupAndRestore,
    ks.linalg.matrix_transpose, ks.linalg.diag_part, ks.config.list_physical_devices,
    ks.TensorShape, ks.print, ks.debugging.assert_near, ks.debugging.check_numerics,
    ks.Module, ks.name_scope,
]

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDES = sorted((DOCS / "guides").glob("*.md")) + [DOCS / "index.md"]
# modules that are implementation detail, not API (the CLI and the
# recipes it runs: programs, described in README's "Recipes")
INTERNAL = {"__main__", "recipes"}


def python_blocks(page: pathlib.Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("page", GUIDES, ids=lambda p: p.name)
def test_every_guide_snippet_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks(page)
    assert blocks, f"{page.name} has no python example"
    namespace: dict = {"__name__": f"guide_{page.stem}"}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for block in blocks:  # one namespace per page: later blocks continue earlier ones
            exec(compile(block, str(page), "exec"), namespace)
    assert output.getvalue()


def test_guides_show_the_outputs_they_claim():
    """The results written in comments next to print() calls, for the guides' key claims."""
    x = ks.Variable(3.0)
    with ks.GradientTape() as outer:
        with ks.GradientTape() as inner:
            y = x * x * x
        dy_dx = inner.gradient(y, x)
    assert (float(dy_dx), float(outer.gradient(dy_dx, x))) == (27.0, 18.0)
    grad = ks.gradients_function(lambda v: v * v)
    assert float(ks.gradients_function(lambda v: grad(v)[0])(3.0)[0]) == 2.0


@pytest.mark.parametrize("api", DOCUMENTED, ids=lambda api: api.__qualname__)
def test_key_apis_document_their_arguments_with_an_example(api):
    doc = api.__doc__ or ""
    assert "Args:" in doc and ">>>" in doc, f"{api.__qualname__}: needs Args: and an example"


def test_every_public_module_has_a_reference_page():
    documented = set()
    for page in (DOCS / "api").glob("*.md"):
        documented |= set(re.findall(r"^::: (kerasish[\w.]*)$", page.read_text(), re.M))
    package = ROOT / "kerasish"
    public = {p.stem for p in package.glob("*.py") if not p.stem.startswith("_")}
    public |= {p.parent.name for p in package.glob("*/__init__.py")}
    public -= INTERNAL | {"core"}  # core is documented by its modules (tensor, tape, ops, ...)
    missing = sorted(m for m in public if f"kerasish.{m}" not in documented)
    assert not missing, f"modules without a page under docs/api: {missing}"
    nav = (ROOT / "mkdocs.yml").read_text()
    unlisted = sorted(p.name for p in (DOCS / "api").glob("*.md") if f"api/{p.name}" not in nav)
    assert not unlisted, f"pages missing from mkdocs.yml's nav: {unlisted}"


def test_docs_build_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert (tmp_path / "api" / "layers" / "index.html").exists()


# Packages in which every public class and function that takes arguments documents them
# (`Args:`) with an example (`>>>`, run as a doctest): the rule of issue 15, kept from
# regressing. An override without a docstring shows its base method's (inspect.getdoc), so a
# hook documented once in Layer, Callback or Metric covers every subclass's.
FULLY_DOCUMENTED = ("kerasish.layers", "kerasish.losses", "kerasish.metrics",
                    "kerasish.optimizers", "kerasish.callbacks", "kerasish.saving",
                    "kerasish.models", "kerasish.distribute",
                    # the eager core and the TF-style namespaces (ks., ks.nn, ks.ops, ks.math,
                    # ks.random, ks.data, ks.datasets.*, ...)
                    "kerasish.core", "kerasish.ops", "kerasish.nn", "kerasish.math",
                    "kerasish.linalg", "kerasish.debugging", "kerasish.random", "kerasish.data",
                    "kerasish.datasets", "kerasish.utils", "kerasish.activations",
                    "kerasish.initializers", "kerasish.regularizers", "kerasish.constraints",
                    "kerasish.testing", "kerasish.summary", "kerasish.checkpoint",
                    "kerasish.module", "kerasish.printing", "kerasish.config", "kerasish.train",
                    "kerasish.applications")


def _takes_arguments(function) -> bool:
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    return any(name not in ("self", "cls") for name in parameters)


def _public_callables(packages: tuple) -> dict:
    """{qualified name: docstring} of the public callables with arguments those packages
    define, reached from the public namespaces (each object once)."""
    found, seen = {}, set()
    namespaces = [ks, ks.layers, ks.losses, ks.metrics, ks.optimizers, ks.optimizers.schedules,
                  ks.callbacks, ks.saving, ks.models, ks.nn, ks.ops, ks.math, ks.linalg,
                  ks.debugging, ks.random, ks.data, ks.utils, ks.summary, ks.constraints,
                  ks.initializers, ks.regularizers, ks.activations, ks.testing, ks.config,
                  ks.datasets, ks.distribute]
    namespaces += [value for name, value in vars(ks.datasets).items()
                   if inspect.ismodule(value) and not name.startswith("_")]
    namespaces += [ks.applications] + [value for name, value in vars(ks.applications).items()
                                       if inspect.ismodule(value) and not name.startswith("_")]
    for space in namespaces:
        for attr in dir(space):
            value = getattr(space, attr)
            module = getattr(value, "__module__", None) or ""
            if attr.startswith("_") or id(value) in seen or not module.startswith(packages):
                continue
            seen.add(id(value))
            if inspect.isfunction(value):
                if _takes_arguments(value):
                    found[f"{module}.{value.__qualname__}"] = value.__doc__ or ""
                continue
            if not inspect.isclass(value):
                continue
            if _takes_arguments(value):
                init = vars(value).get("__init__")
                found[f"{module}.{value.__qualname__}"] = (
                    (value.__doc__ or "") + (getattr(init, "__doc__", None) or ""))
            for base in value.__mro__:
                if not base.__module__.startswith(packages):
                    continue
                for name, member in vars(base).items():
                    if isinstance(member, (staticmethod, classmethod)):
                        member = member.__func__
                    if name.startswith("_") or not inspect.isfunction(member) \
                            or id(member) in seen:
                        continue
                    seen.add(id(member))
                    if _takes_arguments(member):
                        doc = inspect.getdoc(getattr(base, name)) or ""
                        found[f"{base.__module__}.{base.__qualname__}.{name}"] = doc
    return found


def test_fully_documented_packages_document_every_argument_with_an_example():
    callables = _public_callables(FULLY_DOCUMENTED)
    assert len(callables) > 800  # the walk reaches the layers, losses, metrics, core ops, ...
    missing = sorted(name for name, doc in callables.items()
                     if "Args:" not in doc or ">>>" not in doc)
    assert not missing, f"public callables without Args: or a >>> example: {missing}"
