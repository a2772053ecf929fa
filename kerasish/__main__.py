"""`kerasish <recipe> [options]`: run a training recipe (see `kerasish --help`)."""

from __future__ import annotations

import importlib
import sys

from kerasish.recipes import NAMES


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: kerasish <recipe> [options]\n\nrecipes: " + ", ".join(NAMES))
        print("run `kerasish <recipe> --help` for a recipe's options")
        return
    name = argv[0].replace("-", "_")
    if name not in NAMES:
        sys.exit(f"kerasish: unknown recipe {argv[0]!r}; choose one of: {', '.join(NAMES)}")
    importlib.import_module(f"kerasish.recipes.{name}").main(argv[1:])


if __name__ == "__main__":
    main()
