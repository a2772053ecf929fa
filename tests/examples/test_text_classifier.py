"""examples/text_classifier.py: its corpora readers, tokenizer and both models, on tiny
corpora written here (aclImdb folders, an imdb.npz, gzipped manual pages)."""

import gzip
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import kerasish as ks

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "text_classifier.py"


@pytest.fixture(scope="module")
def tc():
    spec = importlib.util.spec_from_file_location("text_classifier_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


POSITIVE = ["a wonderful film with great acting", "great story and a wonderful cast",
            "i loved it, a superb and moving film", "superb, moving and great fun"]
NEGATIVE = ["an awful film with boring acting", "boring story and an awful cast",
            "i hated it, a dull and tedious film", "dull, tedious and awful to watch"]


@pytest.fixture
def aclimdb(tmp_path):
    """An aclImdb folder: train/ and test/, each with 12 reviews in neg/ and pos/."""
    rng = np.random.default_rng(0)
    for split in ("train", "test"):
        for polarity, phrases in (("neg", NEGATIVE), ("pos", POSITIVE)):
            folder = tmp_path / "aclImdb" / split / polarity
            folder.mkdir(parents=True)
            for i in range(12):
                picks = rng.choice(len(phrases), 2)
                text = f"{phrases[picks[0]]}.<br /><br />{phrases[picks[1]]}."
                (folder / f"{i}_{7 if polarity == 'pos' else 2}.txt").write_text(text)
    return tmp_path / "aclImdb"


def test_both_models_learn_a_tiny_aclimdb_corpus(tc, aclimdb, capsys):
    results = tc.main(["--imdb-dir", str(aclimdb), "--maxlen", "16", "--embed-dim", "16",
                       "--units", "8", "--epochs", "8", "--batch-size", "8",
                       "--learning-rate", "0.01", "--vocab-size", "100"])
    assert set(results) == {"bilstm", "transformer"}
    for kind, result in results.items():
        assert result["test_accuracy"] >= 0.9, (kind, result)
    out = capsys.readouterr().out
    assert "24 training and 24 test texts, 2 classes (negative, positive)" in out
    assert "transformer:" in out and "test accuracy" in out


def test_aclimdb_reader_labels_and_strips_line_breaks(tc, aclimdb):
    (texts, labels), (test_texts, test_labels), names = tc.read_aclimdb(aclimdb, limit=6)
    assert names == ["negative", "positive"]
    assert labels.tolist() == [0, 0, 0, 1, 1, 1] and test_labels.tolist() == labels.tolist()
    assert all("<br" not in text for text in texts + test_texts)
    assert any(word in texts[0] for word in ("awful", "boring", "dull", "tedious"))


def test_aclimdb_reader_names_the_expected_layout(tc, tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no reviews in .*train/\{neg,pos\}/\*\.txt"):
        tc.read_aclimdb(tmp_path, limit=None)


def test_imdb_npz_ranks_become_ids_after_padding_and_unknown(tc, tmp_path):
    path = tmp_path / "imdb.npz"
    reviews = np.empty(3, dtype=object)
    reviews[0], reviews[1], reviews[2] = [1, 2, 3, 50, 4], [7], [5, 5]
    np.savez(path, x_train=reviews, y_train=np.array([1, 0, 1]), x_test=reviews[:2],
             y_test=np.array([0, 1]))
    (ids, labels), (test_ids, test_labels), names = tc.read_imdb_npz(
        path, vocab_size=10, maxlen=4, limit=None)
    # rank r -> r + 1; rank 50 is outside a vocabulary of 10 -> 1; cut to 4, padded with 0
    # (the loader shuffles, so the rows are compared with their labels, in any order)
    assert sorted(zip(ids.tolist(), labels.tolist())) == [
        ([2, 3, 4, 1], 1), ([6, 6, 0, 0], 1), ([8, 0, 0, 0], 0)]
    assert sorted(zip(test_ids.tolist(), test_labels.tolist())) == [
        ([2, 3, 4, 1], 0), ([8, 0, 0, 0], 1)]
    assert ids.dtype == np.int32 and names == ["negative", "positive"]
    (ids, _), (test_ids, _), _ = tc.read_imdb_npz(path, vocab_size=10, maxlen=4, limit=1)
    assert len(ids) == len(test_ids) == 1


PAGE = r""".TH LS 1
.SH NAME
ls \- list directory contents and more words to make a long name line here
.SH SYNOPSIS
.B ls
[\fIOPTION\fR]... [\fIFILE\fR]... with enough words to count as a paragraph of text
.SH DESCRIPTION
List information about the FILEs (the current directory by default). Sort entries
alphabetically if none of \fB\-cftuvSUX\fR nor \fB\-\-sort\fR is specified.
.PP
Too short.
.nf
for f in a b c d e f g h i j k l m n o p q r s t u v w x y z; do echo $f; done
.fi
.TP
.B \-a
do not ignore entries starting with a dot, \(em which are hidden by default on most systems
"""


def test_man_paragraphs_keep_prose_only(tc):
    paragraphs = tc.man_paragraphs(PAGE)
    assert paragraphs == [
        "List information about the FILEs (the current directory by default). Sort entries "
        "alphabetically if none of -cftuvSUX nor --sort is specified.",
        "-a do not ignore entries starting with a dot, which are hidden by default on most "
        "systems",
    ]


def _write_man_dir(root: Path, pages_per_section: int) -> None:
    for section in ("1", "2", "3", "5", "7", "8"):
        folder = root / f"man{section}"
        folder.mkdir(parents=True)
        for i in range(pages_per_section):
            words = " ".join([f"word{section}"] * 12)
            body = "\n.PP\n".join(f"Page {section}.{i} paragraph {j}: {words}" for j in range(3))
            with gzip.open(folder / f"page{i}.{section}.gz", "wt") as handle:
                handle.write(f".TH P{i} {section}\n.SH DESCRIPTION\n{body}\n")
        with gzip.open(folder / f"link.{section}.gz", "wt") as handle:
            handle.write(f".so man{section}/page0.{section}\n")


def test_man_pages_are_balanced_and_test_pages_differ_from_training_pages(tc, tmp_path):
    _write_man_dir(tmp_path, pages_per_section=4)
    (texts, labels), (test_texts, test_labels), names = tc.read_man_pages(tmp_path, 6, 3, 0)
    assert len(names) == 6 and names[0] == "man1 (user commands)"
    assert np.bincount(labels).tolist() == [6] * 6
    assert np.bincount(test_labels).tolist() == [3] * 6

    def page(text):
        return text.split(" paragraph")[0]

    assert not {page(t) for t in texts} & {page(t) for t in test_texts}
    for text, label in zip(texts, labels):
        assert text.startswith(f"Page {list(tc.MAN_SECTIONS)[label]}.")


def test_man_pages_too_few_paragraphs_say_what_to_lower(tc, tmp_path):
    _write_man_dir(tmp_path, pages_per_section=2)
    with pytest.raises(SystemExit, match=r"man1 gave 3 training and 3 test paragraphs, fewer "
                       r"than the 6 \+ 3 asked for: lower --train-per-class"):
        tc.read_man_pages(tmp_path, 6, 3, 0)


def test_vectorize_uses_the_training_vocabulary_for_both_splits(tc):
    train_ids, test_ids = tc.vectorize(["b a b", "c b a", "d"], ["B, a-c!", "a a a a a a"],
                                       vocab_size=4, maxlen=4)
    # 0 padding, 1 unknown, then the training words by count: b (3), a (2)
    assert train_ids.tolist() == [[2, 3, 2, 0], [1, 2, 3, 0], [1, 0, 0, 0]]
    assert test_ids.tolist() == [[2, 1, 0, 0], [3, 3, 3, 3]]
    assert test_ids.dtype == np.int32


def test_transformer_ignores_the_padding(tc):
    model = tc.build_model("transformer", vocab_size=20, maxlen=6, classes=3, embed_dim=8,
                           units=4)
    ids = np.array([[5, 6, 7, 0, 0, 0]], dtype=np.int32)
    embedding = model.layers[1]
    mask = embedding.compute_mask(ks.constant(ids))
    assert mask.numpy().tolist() == [[True, True, True, False, False, False]]
    # the padding positions' values do not reach the pooled output
    pooled = ks.Model(model.inputs, model.layers[3].output)
    base = pooled(ids).numpy()
    embedding.positions.embeddings.assign(
        embedding.positions.embeddings.numpy() + np.arange(6)[:, None] * (np.arange(6) >= 3)
        [:, None])
    np.testing.assert_allclose(pooled(ids).numpy(), base, atol=1e-6)
