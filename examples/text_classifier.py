"""Text classification two ways: Embedding + Bidirectional(LSTM), and a one-block Transformer.

Both models read padded sequences of word ids (0 = padding, 1 = a word outside
the vocabulary) and are trained with `model.fit`:

- `bilstm`: Embedding(mask_zero=True) -> Bidirectional(LSTM) -> Dropout -> Dense;
  the padding mask keeps the recurrent layers from reading the padding.
- `transformer`: token + position embeddings -> one Transformer block
  (MultiHeadAttention with the padding mask, residual connections and
  LayerNormalization, a Dense feed-forward) -> GlobalAveragePooling1D (over the
  real words only) -> Dropout -> Dense.

The corpus, whichever is available offline:

- IMDB movie reviews (`--imdb-dir`): either the `aclImdb` folder of the
  original release (`train/pos`, `train/neg`, `test/pos`, `test/neg`, one
  review per `.txt` file) or Keras's `imdb.npz` (reviews as word ranks, 1 =
  the most frequent word). Two classes: negative, positive.
- Otherwise, paragraphs of the manual pages installed on this machine
  (`/usr/share/man`, or `--man-dir`), labelled with their manual section:
  1 user commands, 2 system calls, 3 library functions, 5 file formats,
  7 overviews and conventions, 8 administration. It is real English written by
  many authors, every Debian or Ubuntu system has it, and the classes overlap
  in vocabulary (a system call and the C library function around it, a command
  and the daemon it talks to), so word order and context matter. Training and
  test paragraphs come from DIFFERENT pages (a page's own words, such as its
  name, cannot carry a paragraph to its label), with the same number of
  paragraphs per class.

`ks.layers.TextVectorization`, adapted to the training texts, turns the texts
into ids (its standardization: lower case, punctuation stripped; the
`--vocab-size` - 2 most frequent training words).

Usage (from the repository root):

    python examples/text_classifier.py                        # manual pages, both models
    python examples/text_classifier.py --imdb-dir ~/aclImdb --maxlen 200
    python examples/text_classifier.py --model transformer --epochs 2 --train-per-class 200
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT))

import kerasish as ks  # noqa: E402
from recipes.common import blas_threads  # noqa: E402

PAD, OOV = 0, 1
MAN_SECTIONS = {
    "1": "user commands",
    "2": "system calls",
    "3": "library functions",
    "5": "file formats",
    "7": "overviews",
    "8": "administration",
}
PARAGRAPHS_PER_PAGE = 8  # at most, so that a few very long pages do not fill a class
MIN_WORDS = 12  # shorter paragraphs (option lists, one-line notes) are left out


# ---------------------------------------------------------------- corpora


def read_aclimdb(folder: Path, limit: int | None):
    """(train_texts, train_labels), (test_texts, test_labels), class names from aclImdb."""
    splits = []
    for split in ("train", "test"):
        texts, labels = [], []
        for label, polarity in enumerate(("neg", "pos")):
            files = sorted((folder / split / polarity).glob("*.txt"))
            for path in files[: limit // 2 if limit else None]:
                texts.append(path.read_text(encoding="utf-8").replace("<br />", " "))
                labels.append(label)
        if not texts:
            raise FileNotFoundError(
                f"no reviews in {folder / split}/{{neg,pos}}/*.txt: --imdb-dir must be the "
                "aclImdb folder (train/ and test/, each with neg/ and pos/) or an imdb.npz file"
            )
        splits.append((texts, np.array(labels, dtype=np.int32)))
    return splits[0], splits[1], ["negative", "positive"]


def read_imdb_npz(path: Path, vocab_size: int, maxlen: int, limit: int | None):
    """Keras's imdb.npz through `ks.datasets.imdb` as (ids, labels) pairs: word rank r
    becomes id r + 1 (0 stays padding, 1 is the out-of-vocabulary id, as TextVectorization
    numbers them), no start mark, each review cut or padded at the end to `maxlen` ids."""
    splits = ks.datasets.imdb.load_data(str(path), num_words=vocab_size, start_char=None,
                                        oov_char=OOV, index_from=1, download=False)
    result = []
    for reviews, labels in splits:
        reviews, labels = reviews[:limit], labels[:limit]  # the loader shuffled them
        ids = ks.utils.pad_sequences(list(reviews), maxlen=maxlen, padding="post",
                                     truncating="post", value=PAD)
        result.append((ids.astype(np.int32), np.asarray(labels, dtype=np.int32)))
    return result[0], result[1], ["negative", "positive"]


_ESCAPES = [
    (re.compile(r"\\f(\(..|\[[^\]]*\]|.)"), ""),  # font changes
    (re.compile(r"\\\*(\(..|\[[^\]]*\]|.)"), ""),  # predefined strings
    (re.compile(r"\\s[-+]?\d"), ""),  # size changes
    (re.compile(r"\\\(..|\\\[[^\]]*\]"), " "),  # special characters
    (re.compile(r"\\-"), "-"),
    (re.compile(r"\\."), ""),  # everything else (\&, \e, \c, ...)
]
_BREAKS = {"PP", "P", "LP", "TP", "IP", "HP", "SH", "SS", "sp", "br", "RS", "RE", "TH", "Sh"}
_TEXT_MACROS = {"B", "I", "BR", "BI", "IB", "IR", "RB", "RI", "SM", "SB"}


def man_paragraphs(source: str) -> list[str]:
    """The prose paragraphs of a roff manual page (not NAME, SYNOPSIS or preformatted text)."""
    paragraphs, words, section, preformatted = [], [], "", False

    def flush():
        if len(words) >= MIN_WORDS and section not in ("NAME", "SYNOPSIS"):
            paragraphs.append(" ".join(words))
        words.clear()

    for line in source.splitlines():
        if line.startswith((".", "'")):
            macro, _, rest = line[1:].strip().partition(" ")
            if macro in ("nf", "EX"):
                preformatted = True
            elif macro in ("fi", "EE"):
                preformatted = False
            if macro in _BREAKS:
                flush()
                if macro in ("SH", "Sh"):
                    section = rest.strip().strip('"').upper()
            elif macro in _TEXT_MACROS and not preformatted:
                words.extend(_clean(rest.replace('"', "")).split())
            continue
        if preformatted:
            continue
        if not line.strip():
            flush()
            continue
        words.extend(_clean(line).split())
    flush()
    return paragraphs


def _clean(text: str) -> str:
    for pattern, replacement in _ESCAPES:
        text = pattern.sub(replacement, text)
    return text


def read_man_pages(man_dir: Path, train_per_class: int, test_per_class: int, seed: int):
    """Paragraphs labelled with their manual section; test pages and training pages differ."""
    rng = np.random.default_rng(seed)
    train_texts, train_labels, test_texts, test_labels = [], [], [], []
    for label, section in enumerate(MAN_SECTIONS):
        folder = man_dir / f"man{section}"
        pages = sorted(folder.glob("*.gz")) if folder.is_dir() else []
        quota = {"test": test_per_class, "train": train_per_class}
        chosen = {"test": [], "train": []}
        for index in rng.permutation(len(pages)):
            split = "test" if len(chosen["test"]) < quota["test"] else "train"
            if len(chosen[split]) >= quota[split]:
                break
            try:
                with gzip.open(pages[index], "rt", encoding="utf-8", errors="replace") as page:
                    source = page.read()
            except (OSError, EOFError):
                continue
            if source.lstrip().startswith(".so "):  # a link to another page
                continue
            found = man_paragraphs(source)
            if len(found) > PARAGRAPHS_PER_PAGE:
                found = [found[i] for i in sorted(
                    rng.choice(len(found), PARAGRAPHS_PER_PAGE, replace=False))]
            chosen[split].extend(found[: quota[split] - len(chosen[split])])
        if len(chosen["train"]) < train_per_class or len(chosen["test"]) < test_per_class:
            raise SystemExit(
                f"text_classifier: {folder} gave {len(chosen['train'])} training and "
                f"{len(chosen['test'])} test paragraphs, fewer than the "
                f"{train_per_class} + {test_per_class} asked for: lower --train-per-class "
                "and --test-per-class, or pass --imdb-dir"
            )
        train_texts += chosen["train"]
        train_labels += [label] * train_per_class
        test_texts += chosen["test"]
        test_labels += [label] * test_per_class
    names = [f"man{section} ({title})" for section, title in MAN_SECTIONS.items()]
    return ((train_texts, np.array(train_labels, dtype=np.int32)),
            (test_texts, np.array(test_labels, dtype=np.int32)), names)


# ---------------------------------------------------------------- tokenizer


def vectorize(train_texts, test_texts, vocab_size: int, maxlen: int):
    """Both splits as (n, maxlen) int32 word ids, with a vocabulary of the training texts only.

    TextVectorization lower-cases, strips punctuation and splits on whitespace; its
    vocabulary holds the padding (id 0), the unknown word (id 1) and the
    `vocab_size - 2` most frequent training words; each text is cut or padded at the
    end to `maxlen` ids.
    """
    vectorizer = ks.layers.TextVectorization(max_tokens=vocab_size,
                                             output_sequence_length=maxlen)
    vectorizer.adapt(list(train_texts))
    return tuple(vectorizer(np.array(texts, dtype=object)).numpy().astype(np.int32)
                 for texts in (train_texts, test_texts))


# ---------------------------------------------------------------- models


class TokenAndPositionEmbedding(ks.layers.Layer):
    """A word's embedding plus its position's; the mask marks the real (non-zero) ids."""

    def __init__(self, maxlen: int, vocab_size: int, embed_dim: int, **kwargs):
        super().__init__(**kwargs)
        self.maxlen, self.vocab_size, self.embed_dim = maxlen, vocab_size, embed_dim
        self.tokens = ks.layers.Embedding(vocab_size, embed_dim)
        self.positions = ks.layers.Embedding(maxlen, embed_dim)

    def call(self, ids):
        return self.tokens(ids) + self.positions(ks.range(ids.shape[-1]))

    def compute_mask(self, ids, mask=None):
        return ks.not_equal(ids, PAD)

    def get_config(self) -> dict:
        return {**super().get_config(), "maxlen": self.maxlen, "vocab_size": self.vocab_size,
                "embed_dim": self.embed_dim}


class TransformerBlock(ks.layers.Layer):
    """Self-attention and a feed-forward network, each with a residual connection,
    dropout and layer normalization (the post-norm block of "Attention is all you need")."""

    def __init__(self, embed_dim: int, num_heads: int, ff_dim: int, rate: float = 0.1,
                 **kwargs):
        super().__init__(**kwargs)
        self.embed_dim, self.num_heads, self.ff_dim, self.rate = embed_dim, num_heads, ff_dim, rate
        self.attention = ks.layers.MultiHeadAttention(num_heads, key_dim=embed_dim // num_heads)
        self.feed_forward = ks.Sequential([ks.layers.Dense(ff_dim, activation="relu"),
                                           ks.layers.Dense(embed_dim)])
        self.norm1 = ks.layers.LayerNormalization(epsilon=1e-6)
        self.norm2 = ks.layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = ks.layers.Dropout(rate)
        self.dropout2 = ks.layers.Dropout(rate)

    def call(self, x, mask=None, training=None):
        attended = self.attention(x, x, query_mask=mask, value_mask=mask, training=training)
        x = self.norm1(x + self.dropout1(attended, training=training))
        return self.norm2(x + self.dropout2(self.feed_forward(x), training=training))

    def compute_mask(self, x, mask=None):
        return mask

    def get_config(self) -> dict:
        return {**super().get_config(), "embed_dim": self.embed_dim,
                "num_heads": self.num_heads, "ff_dim": self.ff_dim, "rate": self.rate}


def build_model(kind: str, vocab_size: int, maxlen: int, classes: int, embed_dim: int,
                units: int) -> ks.Model:
    """The `bilstm` or `transformer` classifier, giving logits for `classes` classes."""
    ids = ks.Input((maxlen,), dtype="int32", name="ids")
    if kind == "bilstm":
        x = ks.layers.Embedding(vocab_size, embed_dim, mask_zero=True)(ids)
        x = ks.layers.Bidirectional(ks.layers.LSTM(units))(x)
    elif kind == "transformer":
        x = TokenAndPositionEmbedding(maxlen, vocab_size, embed_dim)(ids)
        x = TransformerBlock(embed_dim, num_heads=4, ff_dim=2 * embed_dim)(x)
        x = ks.layers.GlobalAveragePooling1D()(x)
    else:
        raise ValueError(f"model must be 'bilstm' or 'transformer', got {kind!r}")
    x = ks.layers.Dropout(0.3)(x)
    logits = ks.layers.Dense(classes)(x)
    return ks.Model(ids, logits, name=kind)


# ---------------------------------------------------------------- main


def load_corpus(args):
    """(x_train, y_train), (x_test, y_test), class names, and a line saying what was read."""
    if args.imdb_dir:
        path = Path(args.imdb_dir).expanduser()
        if path.is_file():
            train, test, names = read_imdb_npz(path, args.vocab_size, args.maxlen, args.limit)
            return train, test, names, f"IMDB reviews from {path} (word ranks)"
        train, test, names = read_aclimdb(path, args.limit)
        source = f"IMDB reviews from {path}"
    else:
        train, test, names = read_man_pages(Path(args.man_dir), args.train_per_class,
                                            args.test_per_class, args.seed)
        source = f"manual-page paragraphs from {args.man_dir}"
    train_ids, test_ids = vectorize(train[0], test[0], args.vocab_size, args.maxlen)
    return (train_ids, train[1]), (test_ids, test[1]), names, source


def train_and_evaluate(kind: str, train, test, classes: int, args, log) -> dict:
    ks.random.set_seed(args.seed)
    model = build_model(kind, args.vocab_size, args.maxlen, classes, args.embed_dim, args.units)
    model.compile(optimizer=ks.optimizers.Adam(args.learning_rate),
                  loss=ks.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    started = time.perf_counter()
    history = model.fit(*train, batch_size=args.batch_size, epochs=args.epochs, shuffle=True,
                        verbose=0)
    seconds = time.perf_counter() - started
    test_loss, test_accuracy = model.evaluate(*test, batch_size=256, verbose=0)
    result = {"train_accuracy": history.history["accuracy"][-1], "test_loss": test_loss,
              "test_accuracy": test_accuracy, "seconds_per_epoch": seconds / args.epochs,
              "parameters": model.count_params()}
    log(f"{kind}: {result['parameters']:,} parameters, {args.epochs} epochs "
        f"({result['seconds_per_epoch']:.1f} s each): train accuracy "
        f"{result['train_accuracy']:.4f}, test accuracy {test_accuracy:.4f}, "
        f"test loss {test_loss:.4f}")
    return result


def parse_args(argv=None) -> argparse.Namespace:
    """The example's options (also read by benchmarks/text_classifier_keras.py)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("both", "bilstm", "transformer"), default="both",
                        help="which model(s) to train (default: %(default)s)")
    parser.add_argument("--imdb-dir", default=None,
                        help="the aclImdb folder or Keras's imdb.npz (default: manual pages)")
    parser.add_argument("--man-dir", default="/usr/share/man",
                        help="manual pages to read (default: %(default)s)")
    parser.add_argument("--train-per-class", type=int, default=1000,
                        help="training paragraphs per manual section (default: %(default)s)")
    parser.add_argument("--test-per-class", type=int, default=250,
                        help="test paragraphs per manual section, from other pages "
                        "(default: %(default)s)")
    parser.add_argument("--limit", type=int, default=None,
                        help="IMDB: use this many reviews per split (half of each class "
                        "from aclImdb, the first of the shuffled npz reviews)")
    parser.add_argument("--vocab-size", type=int, default=10000,
                        help="words kept, counting the padding and unknown ids "
                        "(default: %(default)s)")
    parser.add_argument("--maxlen", type=int, default=100,
                        help="words per text, cut or padded (default: %(default)s)")
    parser.add_argument("--embed-dim", type=int, default=64,
                        help="embedding size, also the Transformer's width "
                        "(default: %(default)s)")
    parser.add_argument("--units", type=int, default=32,
                        help="LSTM units per direction (default: %(default)s)")
    parser.add_argument("--epochs", type=int, default=4, help="default: %(default)s")
    parser.add_argument("--batch-size", type=int, default=64, help="default: %(default)s")
    parser.add_argument("--learning-rate", type=float, default=2e-3,
                        help="Adam's step size (default: %(default)s)")
    parser.add_argument("--blas-threads", type=int, default=1,
                        help="BLAS threads, needs threadpoolctl; 0 leaves them as they are "
                        "(default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0,
                        help="picks the manual pages and paragraphs, the initial weights and "
                        "the shuffles (default: %(default)s)")
    return parser.parse_args(argv)


def main(argv=None) -> dict:
    """Train and test the chosen models; returns their figures by model name."""
    args = parse_args(argv)
    log = print
    train, test, names, source = load_corpus(args)
    log(f"{source}: {len(train[1])} training and {len(test[1])} test texts, "
        f"{len(names)} classes ({', '.join(names)}); {args.maxlen} words each, "
        f"vocabulary {args.vocab_size}")
    kinds = ("bilstm", "transformer") if args.model == "both" else (args.model,)
    with blas_threads(args.blas_threads):
        return {kind: train_and_evaluate(kind, train, test, len(names), args, log)
                for kind in kinds}


if __name__ == "__main__":
    main()
