"""How much of Keras 3's public API kerasish has, per namespace, with Keras's parameter names.

Keras is read in its own environment (a venv with `pip install keras`; Keras 3 imports with
`KERAS_BACKEND=numpy`, no TensorFlow needed): this script runs itself there with `--dump`,
which writes every public name of the namespaces below with its parameter names as JSON,
then compares with `kerasish` in this environment.

A name is *present* when kerasish has it at the same path. It *has Keras's parameters*
when every named parameter of Keras's signature (a class's `__init__`, a function's own)
is accepted by kerasish's: named in its signature, or, where it takes `**kwargs`, named by
a base class's `__init__` it passes them to. Submodules are counted as namespaces of their
own, not as names.

Usage (repository root):

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras
    python benchmarks/keras_api_coverage.py --keras-python /tmp/kvenv/bin/python \\
        [--missing missing.txt]
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import subprocess
import sys
import types
from pathlib import Path

NAMESPACES = (
    "", "layers", "ops", "ops.nn", "ops.numpy", "ops.linalg", "ops.image", "losses", "metrics",
    "optimizers", "optimizers.schedules", "callbacks", "utils", "backend", "config",
    "initializers", "regularizers", "constraints", "activations", "random", "saving", "models",
    "preprocessing", "mixed_precision", "tree", "applications",
)
_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def _signature(obj):
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        return inspect.signature(target)
    except (TypeError, ValueError):
        return None


def parameters(obj) -> tuple[list, bool] | None:
    """(the named parameters, whether it also takes **kwargs), or None when unknown."""
    signature = _signature(obj)
    if signature is None:
        return None
    names = [p.name for p in signature.parameters.values()
             if p.kind in _NAMED and p.name not in ("self", "cls")]
    takes_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD
                       for p in signature.parameters.values())
    return names, takes_kwargs


def accepted(obj) -> set | None:
    """Every parameter name `obj` accepts: its own, and through **kwargs its bases' too."""
    found = parameters(obj)
    if found is None:
        return None
    names, takes_kwargs = found
    result = set(names)
    if takes_kwargs and inspect.isclass(obj):
        for base in obj.__mro__[1:]:
            if base is object:
                break
            own = parameters(base)
            if own is not None:
                result.update(own[0])
                if not own[1]:
                    break
    return result


def public_names(module) -> dict:
    """{name: [parameter names] or None} of a namespace module, submodules left out."""
    names = {}
    for name in sorted(dir(module)):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            continue
        found = parameters(value) if callable(value) else None
        names[name] = None if found is None else found[0]
    return names


def dump() -> dict:
    import keras

    result = {"version": keras.__version__, "namespaces": {}}
    for path in NAMESPACES:
        try:
            module = importlib.import_module("keras" + ("." + path if path else ""))
        except ImportError:
            continue
        result["namespaces"][path] = public_names(module)
    return result


def _ours(path: str):
    module = importlib.import_module("kerasish")
    for part in path.split(".") if path else []:
        module = getattr(module, part, None)
        if module is None:
            return None
    return module


def compare(keras_api: dict) -> tuple[list, list]:
    """Rows (namespace, Keras names, present, with parameters) and the missing entries."""
    rows, missing = [], []
    for path, names in keras_api["namespaces"].items():
        ours = _ours(path)
        present = with_parameters = 0
        for name, keras_parameters in names.items():
            mine = None if ours is None else getattr(ours, name, None)
            label = f"keras.{path + '.' if path else ''}{name}"
            if mine is None:
                missing.append(f"{label}: missing")
                continue
            present += 1
            if keras_parameters is None or not callable(mine):
                with_parameters += 1
                continue
            have = accepted(mine)
            lacking = [p for p in keras_parameters if have is not None and p not in have]
            if have is None:
                with_parameters += 1  # (a builtin without a signature: not checked)
            elif lacking:
                missing.append(f"{label}: lacks parameters {', '.join(lacking)}")
            else:
                with_parameters += 1
        rows.append((path or "(top level)", len(names), present, with_parameters))
    return rows, missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dump", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--keras-python", default=sys.executable,
                        help="the Python of an environment with Keras 3 installed")
    parser.add_argument("--missing", default=None, help="write the missing names there")
    args = parser.parse_args()
    if args.dump:
        json.dump(dump(), sys.stdout)
        return
    env = dict(os.environ, KERAS_BACKEND=os.environ.get("KERAS_BACKEND", "numpy"))
    done = subprocess.run([args.keras_python, __file__, "--dump"], capture_output=True,
                          text=True, env=env, check=True)
    keras_api = json.loads(done.stdout)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    rows, missing = compare(keras_api)
    total = sum(r[1] for r in rows)
    present = sum(r[2] for r in rows)
    full = sum(r[3] for r in rows)
    print(f"Keras {keras_api['version']} public API against kerasish")
    print("| namespace | Keras names | present | with Keras's parameters |")
    print("|---|---|---|---|")
    for path, count, have, complete in rows:
        print(f"| {path} | {count} | {have} ({have / count:.0%}) | "
              f"{complete} ({complete / count:.0%}) |")
    print(f"| **all** | {total} | {present} ({present / total:.0%}) | "
          f"{full} ({full / total:.0%}) |")
    if args.missing:
        Path(args.missing).write_text("\n".join(missing) + "\n")


if __name__ == "__main__":
    main()
