"""The word2vec recipe on a tiny generated corpus: both losses, outputs, evaluation, resume."""

import math
import os
import signal
import warnings

import numpy as np
import pytest

import kerasish as ks
from recipes import word2vec

ANIMALS = ["cat", "dog", "horse", "cow", "sheep", "goat"]
COLOURS = ["red", "green", "blue", "yellow", "white", "black"]
FILLER = ["the", "a", "is", "and", "of", "very"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """~6,000 words where animals and colours keep their own company."""
    rng = np.random.default_rng(0)
    words = []
    for _ in range(600):
        group = ANIMALS if rng.random() < 0.5 else COLOURS
        for _ in range(4):
            words.append(group[rng.integers(len(group))])
            words.append(FILLER[rng.integers(len(FILLER))])
        words.append("Rare" if rng.random() < 0.01 else "the")
    path = tmp_path_factory.mktemp("corpus") / "tiny.txt"
    path.write_text(" ".join(words) + "\n")
    return str(path)


TOPICS = [[f"{name}{i}" for i in range(8)] for name in ("sea", "code", "farm")]


@pytest.fixture(scope="module")
def repetitive_corpus(tmp_path_factory):
    """~40,000 words: three topics whose words keep their own company, cut by runs of one token.

    Every 200-600 topic words comes a run of 150-400 copies of '=' or '0,', like the
    separator lines and data tables of source code and documentation: in a batch of
    1,024 pairs the terms (=, =) and (=, noise word) repeat hundreds of times.
    """
    rng = np.random.default_rng(1)
    words = []
    while len(words) < 40000:
        for _ in range(rng.integers(200, 600) // 10):
            topic = TOPICS[rng.integers(len(TOPICS))]
            words.extend(topic[i] for i in rng.integers(0, len(topic), 10))
        words.extend([("=", "0,")[rng.integers(2)]] * int(rng.integers(150, 400)))
    path = tmp_path_factory.mktemp("corpus") / "repetitive.txt"
    path.write_text(" ".join(words) + "\n")
    return str(path)


def nce_args(corpus, tmp_path, *extra):
    return ["--loss", "nce", "--corpus", corpus, "--vocab-size", "12", "--num-sampled", "4",
            "--dim", "8", "--batch-size", "32", "--log-every", "5", "--quiet",
            "--logdir", str(tmp_path / "logs"), "--probe-words", "cat,zebra", *extra]


def neg_args(corpus, tmp_path, *extra):
    return ["--loss", "neg", "--corpus", corpus, "--min-count", "1", "--dim", "8",
            "--batch-size", "256", "--window", "3", "--negatives", "3", "--learning-rate", "0.05",
            "--log-every", "5", "--quiet", "--logdir", str(tmp_path / "logs"),
            "--probe-words", "cat", *extra]


def assert_decreasing(history):
    losses = [loss for _, loss in history]
    assert len(losses) >= 3 and all(math.isfinite(v) for v in losses)
    assert losses[-1] < losses[0]


def test_help(capsys):
    with pytest.raises(SystemExit) as exc:
        word2vec.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--loss" in out and "--eval-pairs" in out and "per --loss" in out


def test_nce_trains_and_writes_projector_files(corpus, tmp_path, capsys):
    result = word2vec.main(nce_args(corpus, tmp_path, "--steps", "60", "--learning-rate", "0.5"))
    assert result["steps"] == 60
    assert_decreasing(result["history"])
    logdir = tmp_path / "logs"
    vocab = (logdir / "vocab.tsv").read_text().split("\n")
    assert vocab[0] == "UNK" and len(vocab) - 1 == result["vocab_size"] == 12  # capped, with UNK
    assert np.load(logdir / "embeddings.npy").shape == (12, 8)
    assert "word_embedding" in (logdir / "projector_config.pbtxt").read_text()
    out = capsys.readouterr().out
    assert "nearest to cat:" in out and "nearest to zebra: (not in the vocabulary)" in out
    assert out.strip().splitlines()[-1].startswith("word2vec: nce, 60 steps")
    assert set(result["neighbours"]) == {"cat", "zebra"}


def test_neg_trains_and_learns_the_groups(corpus, tmp_path, capsys):
    result = word2vec.main(neg_args(corpus, tmp_path, "--epochs", "4", "--subsample", "0"))
    assert_decreasing(result["history"])
    assert result["learning_rate"] < 0.05 * 0.5  # decayed linearly
    near = [w for w, _ in result["neighbours"]["cat"][:3]]
    assert set(near) <= set(ANIMALS), near
    assert os.path.exists(tmp_path / "logs" / "vocab.tsv")
    assert "words/s" in capsys.readouterr().out


def test_neg_converges_on_text_with_long_runs_of_one_token(repetitive_corpus, tmp_path):
    """Issue 24: batches that added up hundreds of copies of one term diverged (loss ~1e30)."""
    result = word2vec.main(["--loss", "neg", "--corpus", repetitive_corpus, "--min-count", "1",
                            "--dim", "20", "--epochs", "10", "--log-every", "10", "--quiet",
                            "--logdir", str(tmp_path / "logs"), "--probe-words", ""])
    losses = [loss for _, loss in result["history"]]
    assert all(math.isfinite(v) for v in losses) and max(losses) < 6 * math.log(2), losses
    assert np.mean(losses[-5:]) < 0.9 * np.mean(losses[:5]), losses
    norms = np.linalg.norm(result["embeddings"], axis=1)
    assert norms.max() < 10.0, norms.max()
    with open(tmp_path / "logs" / "vocab.tsv") as handle:
        id_to_word = handle.read().split("\n")
    word_to_id = {w: i for i, w in enumerate(id_to_word)}
    for topic in TOPICS:
        near = word2vec.nearest_neighbours(result["embeddings"], word_to_id, id_to_word,
                                           topic, k=5)
        for word, neighbours in near.items():
            assert {w for w, _ in neighbours} <= set(topic), (word, neighbours)


def test_repeat_step_weights_step_each_distinct_term_of_a_batch_once():
    centers = np.array([1, 1, 1, 2, 1, 0], dtype=np.int32)
    outputs = np.array([[3, 4], [3, 4], [3, 3], [3, 4], [3, 4], [0, 0]], dtype=np.int32)
    weights = np.ones((6, 2), np.float32)
    weights[2, 1] = weights[5] = 0.0  # a noise word equal to the context word; padding
    got = word2vec.repeat_step_weights(centers, outputs, weights, batch_size=3, vocab_size=5)
    # batch 1: (1, 3) three times, (1, 4) twice; batch 2: (1, 3) and (1, 4) once each
    expected = [[1 / 3, 1 / 2], [1 / 3, 1 / 2], [1 / 3, 0], [1, 1], [1, 1], [0, 0]]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@pytest.mark.parametrize("vocab_size", [50, 2**31 - 1])  # (the second: too wide to pack)
@pytest.mark.parametrize("n", [4096, 4096 - 37])  # (the second: a shorter last batch)
def test_repeat_step_weights_count_the_copies_of_each_term_in_its_batch(vocab_size, n):
    rng = np.random.default_rng(n)
    inputs = np.minimum(rng.zipf(1.5, n) - 1, 49).astype(np.int32)
    outputs = np.minimum(rng.zipf(1.5, (n, 6)) - 1, 49).astype(np.int32)
    weights = (rng.random((n, 6)) > 0.1).astype(np.float32)
    got = word2vec.repeat_step_weights(inputs, outputs, weights, 512, vocab_size)
    batch = np.arange(n)[:, None] // 512  # the definition: copies of (batch, input, output)
    terms = np.stack(np.broadcast_arrays(batch, inputs[:, None], outputs), -1).reshape(-1, 3)
    _, inverse = np.unique(terms, axis=0, return_inverse=True)
    copies = np.bincount(inverse.reshape(-1), weights=(weights != 0).reshape(-1))
    expected = weights / np.maximum(copies[inverse.reshape(-1)], 1).reshape(n, 6).astype(np.float32)
    assert np.array_equal(got, expected)


def test_neg_is_traced_once_and_warns_nothing(corpus, tmp_path):
    """Each epoch's last batch used to be shorter (a new shape, a new trace): 9 epochs, 9 traces."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = word2vec.main(neg_args(corpus, tmp_path, "--epochs", "9"))
    assert not [str(w.message) for w in caught if "traced" in str(w.message)]
    assert result["trained_pairs"] < result["steps"] * 256  # some batches were padded


def test_evaluation_files_are_parsed_with_oov_counts(corpus, tmp_path, capsys):
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("# a comment\nWord 1\tWord 2\tHuman (mean)\ncat\tdog\t9.0\n"
                     "Cat\tred\t1.0\nblue  green  8.5\nzebra\tcat\t5\n\nhorse\tcow\t8\n")
    analogies = tmp_path / "questions.txt"
    analogies.write_text(": animals\ncat dog horse cow\nCat Dog Sheep Goat\ncat zebra dog cow\n"
                         ": colours\nred green blue yellow\n")
    result = word2vec.main(neg_args(corpus, tmp_path, "--epochs", "1", "--eval-pairs", str(pairs),
                                    "--eval-analogies", str(analogies)))
    scores = result["word_pairs"]
    assert (scores["used"], scores["oov"], scores["total"]) == (4, 1, 5)
    assert -1.0 <= scores["spearman"] <= 1.0
    analogy = result["analogies"]
    assert (analogy["used"], analogy["oov"], analogy["total"]) == (3, 1, 4)
    assert set(analogy["sections"]) == {"animals", "colours"}
    out = capsys.readouterr().out
    assert "1 skipped as out of vocabulary (words lowercased" in out
    assert "1 of 4 skipped as out of vocabulary" in out


def _final(argv):
    return word2vec.main(argv)["embeddings"]


@pytest.mark.parametrize("loss", ["nce", "neg"])
def test_resume_equals_an_uninterrupted_run(corpus, tmp_path, loss):
    if loss == "nce":
        make = lambda where, *extra: nce_args(corpus, tmp_path / where, *extra)  # noqa: E731
        first, second = ["--steps", "20"], ["--steps", "40"]
    else:
        make = lambda where, *extra: neg_args(corpus, tmp_path / where, "--epochs", "2", *extra)  # noqa: E731
        first, second = ["--steps", "30"], []
    straight = _final(make("a", *second if second else []))
    ckpt = str(tmp_path / "ckpt")
    word2vec.main(make("b", "--checkpoint-dir", ckpt, *first))
    resumed = word2vec.main(make("b", "--checkpoint-dir", ckpt, *second))
    assert resumed["steps"] > 20
    np.testing.assert_array_equal(resumed["embeddings"], straight)


def test_ctrl_c_saves_and_resumes_exactly(corpus, tmp_path, capsys):
    straight = _final(neg_args(corpus, tmp_path / "a", "--epochs", "2"))
    ckpt = str(tmp_path / "ckpt")

    def interrupt(step):
        if step == 7:
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(SystemExit) as exc:
        word2vec.main(neg_args(corpus, tmp_path / "b", "--epochs", "2", "--checkpoint-dir", ckpt),
                      on_step=interrupt)
    assert exc.value.code == 130
    assert "interrupted at step 7; checkpoint saved" in capsys.readouterr().out
    resumed = word2vec.main(neg_args(corpus, tmp_path / "b", "--epochs", "2",
                                     "--checkpoint-dir", ckpt))
    np.testing.assert_array_equal(resumed["embeddings"], straight)


def test_bad_inputs_give_clear_errors(tmp_path):
    with pytest.raises(SystemExit, match="no such file"):
        word2vec.main(["--loss", "neg", "--corpus", str(tmp_path / "missing.txt")])
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n\n")
    with pytest.raises(SystemExit, match="is empty"):
        word2vec.main(["--loss", "neg", "--corpus", str(empty), "--quiet"])
    few = tmp_path / "few.txt"
    few.write_text("one two three")
    with pytest.raises(SystemExit, match="min-count"):
        word2vec.main(["--loss", "neg", "--corpus", str(few), "--quiet"])
    with pytest.raises(SystemExit, match="num-sampled"):
        word2vec.main(["--loss", "nce", "--corpus", str(few), "--quiet", "--steps", "1"])


def test_ids_are_checked_at_the_lookup():
    model = word2vec.SkipGramNeg(10, 4)
    labels = np.zeros((2, 2), np.float32)
    with pytest.raises(ks.InvalidArgumentError, match=r"indices\[1, 1\] = 10 is not in \[0, 10\)"):
        model.compute_loss(np.array([1, 2]), np.array([[1, 2], [3, 10]]), labels, labels, labels)


@pytest.mark.parametrize("group", [1, 3])
def test_negative_sampling_loss_gradient_matches_finite_differences(group):
    """Noise rows shared by groups of `group` consecutive pairs (1: a draw per pair)."""
    rng = np.random.default_rng(group)
    n, k, dim = 6, 2, 4
    positives = rng.standard_normal((n, dim))
    noise = rng.standard_normal((n // group, k, dim))
    vectors = rng.standard_normal((n, dim))
    weights = (rng.random((n, 1 + k)) > 0.2).astype(np.float64)
    ks.testing.check_gradients(
        lambda p, q, v: word2vec.negative_sampling_loss(p, q, v, weights, weights),
        [positives, noise, vectors], order=1)
    # the same loss from the generic ops, each pair scored against its group's noise rows
    rows = np.concatenate([positives[:, None], np.repeat(noise, group, axis=0)], axis=1)
    labels = np.zeros((n, 1 + k))
    labels[:, 0] = 1.0
    generic = ks.reduce_sum(ks.nn.sigmoid_cross_entropy_with_logits(
        labels, ks.reduce_sum(ks.constant(rows) * ks.expand_dims(ks.constant(vectors), 1), -1))
        * weights)
    fused = word2vec.negative_sampling_loss(positives, noise, vectors, weights, weights)
    np.testing.assert_allclose(float(fused), float(generic), rtol=1e-12)

    # the step weights scale the gradient, not the loss
    def loss_and_grads(step_weights):
        tensors = [ks.constant(a) for a in (positives, noise, vectors)]
        with ks.GradientTape() as tape:
            tape.watch(tensors)
            loss = word2vec.negative_sampling_loss(*tensors, weights, step_weights)
        return float(loss), [g.numpy() for g in tape.gradient(loss, tensors)]

    loss, grads = loss_and_grads(weights)
    halved_loss, halved = loss_and_grads(weights / 2)
    assert halved_loss == loss
    for full, half in zip(grads, halved):
        np.testing.assert_allclose(half, full / 2, rtol=1e-12)


def test_noise_words_are_shared_by_groups_of_pairs_and_batches_hold_whole_groups(capsys):
    ids = np.arange(1, 200, dtype=np.int32) % 17 + 1
    pairs = word2vec.SkipGramPairs(ids, window=3, seed=1, chunk_words=50)
    table = word2vec.noise_table(np.bincount(ids))
    for group in (1, 4):
        batches = word2vec._Batches(pairs, batch_size=8, epochs=1, table=table, negatives=3,
                                    vocab_size=18, noise_group=group)
        inputs, outputs, weights, _, n = batches._prepare(0, 0)
        centers, contexts = pairs.chunk(0, 0)
        # the context word's input vector predicts the center word, as gensim and word2vec.c
        np.testing.assert_array_equal(inputs[:n], contexts)
        np.testing.assert_array_equal(outputs[:n, 0], centers)
        assert len(inputs) % 8 == 0 and not weights[n:].any()
        noise = outputs[:, 1:].reshape(-1, group, 3)
        assert (noise == noise[:, :1]).all()  # one draw per group
        if group == 1:
            assert len({tuple(row) for row in outputs[:, 1:]}) > len(outputs) // 2
        np.testing.assert_array_equal(weights[:n, 1:], outputs[:n, 1:] != centers[:, None])
    with pytest.raises(SystemExit):
        word2vec.parse_args(["--loss", "neg", "--batch-size", "100", "--noise-group", "8"])
    assert "--noise-group 8 must divide --batch-size 100" in capsys.readouterr().err


def test_spearman_and_noise_table():
    assert word2vec.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert word2vec.spearman([1, 2, 2, 3], [3, 2, 2, 1]) == pytest.approx(-1.0)
    # ties get average ranks (scipy's value for these data)
    assert word2vec.spearman([1, 2, 2, 4, 5], [2, 1, 3, 5, 4]) == pytest.approx(0.7181848464596079)
    counts = np.array([100, 16, 1, 0])
    table = word2vec.noise_table(counts, size=1000)
    share = np.bincount(table, minlength=4) / 1000
    assert share[0] == 0 and share[3] == 0
    assert share[1] == pytest.approx(8 / 9, abs=0.002)  # 16**0.75 : 1**0.75 = 8 : 1


def test_a_diverging_run_stops_with_a_clear_message(corpus, tmp_path):
    """NaN or inf loss stops the run (exit status 1) instead of reporting `nan` as a result."""
    argv = nce_args(corpus, tmp_path, "--steps", "200", "--learning-rate", "1e30")
    with pytest.raises(SystemExit, match=r"the loss became (nan|inf) at step \d+: training "
                                          r"diverged; lower --learning-rate or --batch-size"):
        with np.errstate(all="ignore"):  # NumPy's overflow warnings on the way
            word2vec.main(argv)
