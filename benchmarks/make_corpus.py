"""Build a text8-like offline corpus from Debian's dictionary packages.

text8 (the word2vec corpus) is one line of lowercase a-z words separated by
single spaces. This script makes the same kind of file, offline, from the
English prose of Debian packages:

- `dict-gcide` (GNU Collaborative International Dictionary of English, the
  1913 Webster with additions): definitions and quotations, about 4.5M words
  after cleaning; read from `/usr/share/dictd/gcide.dict.dz`;
- `dict-wn` (WordNet 3.0 glosses and usage examples), about 2M more words, if
  installed (`/usr/share/dictd/wn.dict.dz`).

Install them with:

    apt-get update && apt-get install -y dict-gcide dict-wn

Cleaning: bracketed notes (`[1913 Webster]`, etymologies `[L. ...]`),
pronunciation keys (`\\Ab*jure"\\`), citation tags (`--Shak.`) and the dictd
headers are removed, `{cross references}` keep their words, then everything
is lowercased and every run of non a-z characters becomes one space.

Usage (from the repository root):

    python benchmarks/make_corpus.py                     # -> benchmarks/data/dict8
    python benchmarks/make_corpus.py --sources gcide --max-words 3000000

The output directory is gitignored: never commit the data.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import sys

SOURCES = {
    "gcide": ("/usr/share/dictd/gcide.dict.dz", "dict-gcide"),
    "wn": ("/usr/share/dictd/wn.dict.dz", "dict-wn"),
}
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUTPUT = os.path.join(HERE, "data", "dict8")

_BRACKETS = re.compile(r"\[[^\]\n]*\]")          # [1913 Webster], [L. ablactatus ...]
_PRONUNCIATION = re.compile(r"\\[^\\\n]*\\")      # \Ab*jure"\
_CITATION = re.compile(r"--\s?[A-Z][A-Za-z.' ]{0,30}?\.")  # --Shak.  --Jer. Taylor.
_DICTD_HEADER = re.compile(r"^\s*(?:00-?database|www\.|http)\S*.*$", re.MULTILINE)
_NOT_LETTERS = re.compile(r"[^a-z]+")


def clean(text: str) -> str:
    """Dictionary markup out, then lowercase a-z words separated by single spaces."""
    text = _DICTD_HEADER.sub(" ", text)
    text = _BRACKETS.sub(" ", text)
    text = _PRONUNCIATION.sub(" ", text)
    text = _CITATION.sub(" ", text)
    text = text.replace("{", " ").replace("}", " ")
    return _NOT_LETTERS.sub(" ", text.lower()).strip()


def read_source(name: str) -> str:
    path, package = SOURCES[name]
    if not os.path.exists(path):
        raise FileNotFoundError(
            f"{path} not found: install the Debian package with "
            f"`apt-get update && apt-get install -y {package}`"
        )
    with gzip.open(path, "rb") as handle:  # dictzip files are gzip-compatible
        return handle.read().decode("utf-8", errors="replace")


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", default="gcide,wn",
                        help="comma-separated: " + ", ".join(SOURCES) + " (missing optional "
                        "sources other than the first are skipped with a note)")
    parser.add_argument("--output", default=DEFAULT_OUTPUT, help="the corpus file to write")
    parser.add_argument("--max-words", type=int, default=None, help="truncate to N words")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.sources.split(",") if n.strip()]
    unknown = [n for n in names if n not in SOURCES]
    if unknown:
        parser.error(f"unknown source(s) {unknown}; choose from {list(SOURCES)}")
    parts = []
    for i, name in enumerate(names):
        try:
            text = read_source(name)
        except FileNotFoundError as exc:
            if i == 0:
                sys.exit(f"make_corpus: {exc}")
            print(f"make_corpus: skipping {name}: {exc}")
            continue
        words = clean(text)
        print(f"make_corpus: {name}: {len(words.split()):,} words")
        parts.append(words)
    corpus = " ".join(parts)
    if args.max_words:
        corpus = " ".join(corpus.split()[: args.max_words])
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="ascii") as handle:
        handle.write(corpus)
    os.replace(tmp, args.output)
    count = corpus.count(" ") + 1 if corpus else 0
    print(f"make_corpus: wrote {args.output}: {count:,} words, {len(corpus):,} bytes")
    return args.output


if __name__ == "__main__":
    main()
