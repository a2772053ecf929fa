"""The package's floors, drawn from its imports.

Reads every module of `kerasish/` with `ast` (nothing is imported), resolves each
`import`/`from ... import` of a kerasish module, and places modules on the floors that
`pyproject.toml`'s import-linter contract names. Prints a text map: each floor with its
modules and line counts, the imports between floors, the imports made inside functions,
and every import circle (a strongly connected set of modules).

`tests/test_architecture.py` uses the same functions to hold the rules that import-linter
does not: at most 10 in-function imports, each with a reason, and no circle of more
than two files.

Usage (from the repository root):

    python tools/floors.py            # the map
    python tools/floors.py --imports  # plus every import between floors, module to module
"""

from __future__ import annotations

import argparse
import ast
import collections
import dataclasses
import os
import pathlib
import re
import sys

import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = "kerasish"


@dataclasses.dataclass(frozen=True)
class Import:
    """One import of a kerasish module: who imports what, at which line, and whether the
    statement sits inside a function (made when the function runs, not at import)."""

    source: str
    target: str
    line: int
    in_function: bool
    comment: str  # the comment on the import's line or the line above it, if any


def module_files(root: pathlib.Path = ROOT) -> dict[str, pathlib.Path]:
    """Dotted module name -> file, for every module of the package (symlinked
    subpackages such as `kerasish/recipes` included)."""
    files = {}
    paths = [pathlib.Path(folder, name)
             for folder, _, names in os.walk(root / PACKAGE, followlinks=True)
             for name in names if name.endswith(".py")]
    for path in sorted(paths):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        files[".".join(parts)] = path
    return files


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _owner(name: str, modules) -> str | None:
    """The module `name` refers to: itself, or its closest enclosing module."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _comment_near(lines: list[str], lineno: int) -> str:
    here = lines[lineno - 1]
    if "#" in here:
        return here.split("#", 1)[1].strip()
    above = lines[lineno - 2].strip() if lineno >= 2 else ""
    return above[1:].strip() if above.startswith("#") else ""


def _imports_of(module: str, path: pathlib.Path, modules) -> list[Import]:
    text = path.read_text()
    lines = text.splitlines()
    is_package = path.name == "__init__.py"
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # never runs
            inner = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = _resolve(module, is_package, child)
                names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                         for alias in child.names]
            else:
                visit(child, inner)
                continue
            for name in names:
                target = _owner(name, modules) if name.split(".")[0] == PACKAGE else None
                if target and target != module:
                    found.append(Import(module, target, child.lineno, in_function,
                                        _comment_near(lines, child.lineno)))

    visit(ast.parse(text), False)
    return found


def imports(root: pathlib.Path = ROOT) -> list[Import]:
    """Every import of a kerasish module by a kerasish module."""
    modules = module_files(root)
    return [imp for module, path in modules.items() for imp in _imports_of(module, path, modules)]


def contract(root: pathlib.Path = ROOT) -> list[str]:
    """The floors of pyproject.toml's layers contract, top first, as written there: the
    top-level names (`core`, `layers`, ...) on each, joined by "|" (independent) or ":"."""
    config = tomllib.loads((root / "pyproject.toml").read_text())
    for entry in config["tool"]["importlinter"]["contracts"]:
        if entry["type"] == "layers":
            return [floor.strip() for floor in entry["layers"]]
    raise LookupError("pyproject.toml has no import-linter layers contract")


def _names(floor: str) -> list[str]:
    return re.split(r"\s*[|:]\s*", floor)


def floor_of(module: str, floors: list[str]) -> int | None:
    """The floor number of `module`, counted from the bottom (core is 0). The package root
    stands with the public namespaces, on the floor under the top one (the recipes); a
    module no floor names gets None (import-linter's exhaustive contract reports those)."""
    parts = module.split(".")
    if len(parts) == 1:
        return len(floors) - 2
    for index, floor in enumerate(reversed(floors)):
        if parts[1] in _names(floor):
            return index
    return None


def circles(found: list[Import]) -> list[list[str]]:
    """The import circles: sets of two or more modules that each reach all the others
    (Tarjan's strongly connected components), largest first."""
    graph = collections.defaultdict(set)
    for imp in found:
        graph[imp.source].add(imp.target)
        graph.setdefault(imp.target, set())
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def connect(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for node in sorted(graph):
            if node not in index:
                connect(node)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(components, key=len, reverse=True)


def _simple_cycle(graph, members: set, path: list) -> list | None:
    """A simple cycle of three or more of `members` that extends `path`, or None; each cycle
    is found from its least module only."""
    for nxt in sorted(graph[path[-1]] & members):
        if nxt == path[0] and len(path) > 2:
            return path
        if nxt not in path and nxt > path[0]:
            cycle = _simple_cycle(graph, members, path + [nxt])
            if cycle:
                return cycle
    return None


def long_circles(found: list[Import]) -> list[list[str]]:
    """Import circles of more than two files: simple cycles (each module once) of three or
    more modules, one example per strongly connected set that has one. Two modules that
    import each other (a package and a submodule it completes) are allowed."""
    graph = collections.defaultdict(set)
    for imp in found:
        graph[imp.source].add(imp.target)
    examples = []
    for component in circles(found):
        for start in component:
            cycle = _simple_cycle(graph, set(component), [start])
            if cycle:
                examples.append(cycle)
                break
    return examples


def upward(found: list[Import], floors) -> list[Import]:
    """Imports that reach a higher floor than their own."""
    bad = []
    for imp in found:
        source, target = floor_of(imp.source, floors), floor_of(imp.target, floors)
        if source is not None and (target is None or target > source):
            bad.append(imp)
    return bad


def draw(show_imports: bool = False) -> str:
    """The text map of the floors (see the module docstring)."""
    floors, modules, found = contract(), module_files(), imports()
    out = []
    for index, floor in enumerate(floors):
        out.append(f"floor {len(floors) - 1 - index}: {floor}")
        for name in _names(floor):
            members = [m for m in modules if m.split(".")[1:2] == [name]]
            size = sum(len(modules[m].read_text().splitlines()) for m in members)
            out.append(f"    {name:<14} {len(members):>3} modules {size:>6} lines")
    between = collections.Counter()
    for imp in found:
        source, target = floor_of(imp.source, floors), floor_of(imp.target, floors)
        if source is not None and target is not None and source != target:
            between[source, target] += 1
    out.append("\nimports between floors (from -> to: count)")
    for (source, target), count in sorted(between.items(), reverse=True):
        arrow = "UP " if target > source else ""
        out.append(f"    {arrow}{source} -> {target}: {count}")
    if show_imports:
        for imp in sorted(found, key=lambda i: (i.source, i.line)):
            source, target = floor_of(imp.source, floors), floor_of(imp.target, floors)
            if source != target:
                out.append(f"    {imp.source}:{imp.line} -> {imp.target}")
    inside = [imp for imp in found if imp.in_function]
    out.append(f"\nimports inside functions: {len(inside)}")
    for imp in inside:
        out.append(f"    {imp.source}:{imp.line} -> {imp.target}  # {imp.comment}")
    loops = circles(found)
    out.append(f"\nimport circles (modules reaching each other): {len(loops)}")
    for loop in loops:
        out.append(f"    {len(loop)} modules: {', '.join(loop)}")
    for cycle in long_circles(found):
        out.append(f"    a circle of {len(cycle)} files: {' -> '.join(cycle + cycle[:1])}")
    return "\n".join(out)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--imports", action="store_true",
                        help="list every import between floors, module to module")
    print(draw(parser.parse_args(argv).imports))


if __name__ == "__main__":
    main()
