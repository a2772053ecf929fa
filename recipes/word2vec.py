"""word2vec: skip-gram word embeddings with NCE (the TF eager recipe) or negative sampling.

`--loss nce` is the CS20 lecture's eager word2vec: vocabulary 50,000 ('UNK' at
id 0), batches of 128 (center, target) pairs from a skip window of 1, 128-d
embeddings, `ks.nn.nce_loss` with 64 log-uniform samples, SGD at learning
rate 1.0, 100,000 steps, the average loss printed every 5,000 steps.

`--loss neg` is word2vec's negative sampling as gensim and the original C
tool do it: a context word's input vector predicts its center word's output
vector against noise words from a unigram^0.75 table, 5 per pair,
frequent-word subsampling (gensim's formula, sample=1e-3), a random reduced
window of up to 5, a learning rate decaying linearly from 0.025 to 0.0001 of
it over all epochs, 100-d vectors, but with batches of pairs (1024) so that
each step is a handful of vectorised kerasish ops: `embedding_lookup`s whose
sparse gradients (`ks.IndexedSlices`) SGD applies to the touched rows only.
Groups of `--noise-group` (8) consecutive pairs, mostly the pairs of one
center word's window, share one draw of noise words, as Intel's and
BlazingText's word2vec do (Ji et al., 2016): every pair is still scored
against 5 noise words, but a batch gathers and updates 1/8 as many noise
rows, and the products become small matrix products
(`negative_sampling_loss`). `--noise-group 1` draws for every pair, as
gensim does. Either loss's training step is compiled with ks.function;
--eager runs it op by op.
A batch adds up the updates that word2vec applies one after another; a term
(input row, output row) repeated m times in a batch, as a run of one token
makes hundreds of times, is stepped once instead of m times (see
`repeat_step_weights`), which keeps the sum close to the sequential updates
on repetitive text. A diverging loss still stops the run with a message.
Every step of a run has the batch's shape (neg pads the last batch of a
chunk with pairs of weight 0), so the compiled step is traced once.

Corpus: text8 (downloaded once and cached, see `ks.datasets.text8`) or any
plain-text `--corpus FILE`. Randomness is derived from (seed, epoch, chunk,
batch), so a run resumed from a checkpoint ends with exactly the embeddings
of an uninterrupted one. At the end: nearest neighbours of `--probe-words`,
optional WordSim353-style (`--eval-pairs`) and Google-analogy-style
(`--eval-analogies`) evaluation, the embedding and its vocabulary written
for the TensorBoard projector and as `embeddings.npy` + `vocab.tsv` in the
log directory.

Many processes: `mpiexec -n N python -m recipes.word2vec` with the same flags splits each
batch of pairs across N ranks (ks.distribute); the sparse gradients of the touched rows
are gathered from every rank and applied as one (averaged for nce's mean loss, summed
for neg's summed one), so the run follows the single-process one. Rank 0 alone prints,
logs (its share of each batch's loss) and writes checkpoints and the embedding.
"""

from __future__ import annotations

import concurrent.futures
import math
import os
import time

import numpy as np

import kerasish as ks
from kerasish.datasets import text as text_data

from .common import (
    Session,
    blas_threads,
    check_device,
    compiled_step,
    parser_for,
    progress_bar,
    tensorboard_hint,
)

#: Defaults per loss: (nce = the seeds' constants, neg = gensim's / word2vec.c's).
DEFAULTS = {
    "nce": dict(vocab_size=50000, min_count=1, batch_size=128, dim=128, window=1, negatives=64,
                learning_rate=1.0, epochs=None, steps=100000, subsample=0.0, print_every=5000,
                log_every=100, save_every=10000, noise_group=1),
    "neg": dict(vocab_size=None, min_count=5, batch_size=1024, dim=100, window=5, negatives=5,
                learning_rate=0.025, epochs=5, steps=None, subsample=1e-3, print_every=None,
                log_every=50, save_every=2000, noise_group=8),
}
PROBE_WORDS = "one,king,france,water,good,computer"
CHUNK_WORDS = 1 << 18  # corpus words per chunk: pairs are generated (and resumed) chunk by chunk
NOISE_TABLE_SIZE = 10_000_000  # entries of the unigram^0.75 table (word2vec.c uses 1e8)
NOISE_POWER = 0.75


class CorpusError(SystemExit):
    """A corpus that cannot be used: the message says which file and why (exit status 1)."""


# ---------------------------------------------------------------- data


def load_tokens(corpus: str | None, lowercase: bool, log=print) -> tuple[list, str]:
    """(tokens, description) of `corpus` (any text file), or of text8 when it is None."""
    if corpus is None:
        try:
            path = ks.datasets.text8.locate()
        except (OSError, ks.datasets.CorruptFileError) as exc:  # not found: an OSError
            raise CorpusError(f"word2vec: text8 is not available: {exc}\n"
                              "(or train on any plain-text file with --corpus FILE)") from None
        tokens = ks.datasets.text8.load_corpus(path, lowercase=lowercase)
        name = f"text8 ({path})"
    else:
        if not os.path.exists(corpus):
            raise CorpusError(f"word2vec: --corpus {corpus}: no such file")
        if os.path.isdir(corpus):
            raise CorpusError(f"word2vec: --corpus {corpus} is a directory; give a text file")
        try:
            tokens = text_data.load_corpus(corpus, lowercase=lowercase)
        except (OSError, text_data.CorruptFileError) as exc:
            raise CorpusError(f"word2vec: --corpus {corpus}: {exc}") from None
        name = corpus
    if not tokens:
        raise CorpusError(f"word2vec: the corpus {name} is empty (no words to train on)")
    return tokens, name


def keep_probabilities(counts: np.ndarray, sample: float) -> np.ndarray | None:
    """Per-id probability of keeping a word occurrence (gensim's subsampling formula).

    With ``t = sample * (number of in-vocabulary words)``, a word seen ``c``
    times is kept with probability ``min(1, (sqrt(c / t) + 1) * t / c)``.
    None when `sample` is 0 (no subsampling). UNK (id 0) is not counted.
    """
    if not sample:
        return None
    counts = counts.astype(np.float64)
    threshold = sample * counts[1:].sum()
    with np.errstate(divide="ignore"):
        prob = (np.sqrt(counts / threshold) + 1.0) * (threshold / counts)
    prob[~np.isfinite(prob)] = 1.0
    return np.minimum(prob, 1.0)


def noise_table(counts: np.ndarray, size: int = NOISE_TABLE_SIZE, power: float = NOISE_POWER):
    """word2vec's negative-sampling table: id k fills a share count[k]**0.75 / Z of `size` slots.

    UNK (id 0) never appears. Drawing a uniform slot gives a noise word.
    """
    weights = counts.astype(np.float64) ** power
    weights[0] = 0.0
    total = weights.sum()
    if total <= 0:
        raise CorpusError("word2vec: the vocabulary has no word to sample negatives from")
    cumulative = np.cumsum(weights / total)
    cumulative[-1] = 1.0
    slots = (np.arange(size, dtype=np.float64) + 0.5) / size
    table = np.searchsorted(cumulative, slots, side="right").astype(np.int32)
    return np.minimum(table, len(counts) - 1)


def repeat_step_weights(inputs, outputs, weights, batch_size: int, vocab_size: int):
    """`weights` divided, in each batch of `batch_size` pairs, by how often its term repeats there.

    A term is an (input row, output row) pair of ids: inputs (n,) against
    outputs (n, 1 + K). word2vec applies its pairs one after another, and a
    batch adds up their updates taken from the same point. For terms with
    different partner rows the two agree to first order (each update moves
    the row along its own partner's direction). A term repeated m times in a
    batch (m copies of weight > 0) is the same update m times along one direction: applied in turn,
    the logistic gradient shrinks as the score grows and the m updates
    saturate; added up, they make one step m times larger, which overshoots
    once m * learning_rate * |partner|**2 / 4 exceeds 2. A run of one token
    in the text (a separator line, a data table) repeats (w, w) and (w, noise)
    terms hundreds of times per batch, and the recipe diverged on such text
    (issue 24). Weighting each copy by 1/m steps each distinct term of a
    batch once. With ordinary text repeats are rare and few, and the update
    is nearly the plain sum.

    The copies are counted batch by batch: one sort per batch of its terms, packed with their
    positions into one int64 where that fits (a plain sort is some 3x faster than `argsort`).

    Returns float32 (n, 1 + K): the gradient's weights (the loss keeps `weights`).
    """
    n, columns = outputs.shape
    terms = inputs[:, None].astype(np.int64) * vocab_size + outputs
    counted = weights != 0
    tail = -n % batch_size
    if tail:  # a shorter last batch: padded with terms of their own that are not counted
        terms = np.concatenate([terms, vocab_size * vocab_size
                                + np.arange(tail * columns).reshape(tail, columns)])
        counted = np.concatenate([counted, np.zeros((tail, columns), bool)])
    width = batch_size * columns
    rows = terms.reshape(-1, width)  # one row per batch
    shift = (width - 1).bit_length()  # bits for a position in the batch
    if (vocab_size * vocab_size + width) << shift < 2**63:
        packed = (rows << shift) | np.arange(width)
        packed.sort(axis=1)
        order, ordered = packed & ((1 << shift) - 1), packed >> shift
    else:
        order = np.argsort(rows, axis=1, kind="stable")
        ordered = np.take_along_axis(rows, order, axis=1)
    starts = np.empty(ordered.shape, bool)  # where a run of one term begins
    starts[:, 0] = True
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=starts[:, 1:])
    run = np.cumsum(starts.reshape(-1)) - 1
    copies = np.bincount(run, weights=np.take_along_axis(counted.reshape(-1, width), order,
                                                         axis=1).reshape(-1))
    counts = np.empty(rows.shape)
    np.put_along_axis(counts, order, copies.take(run).reshape(rows.shape), axis=1)
    return weights / np.maximum(counts.reshape(-1, columns)[:n], 1).astype(np.float32)


class SkipGramPairs:
    """(center, context) skip-gram pairs, generated chunk by chunk from corpus ids.

    Chunk `c` of epoch `e` covers corpus words [c * chunk_words, (c + 1) * chunk_words);
    its randomness (which words subsampling drops, each center's reduced window)
    comes from a generator seeded with (seed, e, c), so any chunk can be rebuilt
    on its own, which is what makes resuming exact. Pairs come in corpus order,
    center by center, contexts left to right, as in the seeds' `generate_sample`
    and gensim.

    Args:
        ids: int32 corpus ids (UNK = 0).
        window: maximum window; each center uses a window drawn uniformly from 1..window.
        keep_prob: per-id keep probabilities (subsampling), or None.
        drop_unk: remove UNK occurrences before windowing (gensim drops unknown words).
    """

    def __init__(self, ids, window: int, keep_prob=None, drop_unk: bool = False, seed: int = 0,
                 chunk_words: int = CHUNK_WORDS):
        self.ids = ids
        self.window = int(window)
        self.keep_prob = keep_prob
        self.drop_unk = drop_unk
        self.seed = int(seed)
        self.chunk_words = int(chunk_words)
        self.num_chunks = max(1, -(-len(ids) // self.chunk_words))
        self.offsets = np.concatenate([np.arange(-self.window, 0), np.arange(1, self.window + 1)])

    def chunk_span(self, chunk: int) -> tuple[int, int]:
        start = chunk * self.chunk_words
        return start, min(len(self.ids), start + self.chunk_words)

    def chunk(self, epoch: int, chunk: int):
        """(centers, contexts) int32 arrays of chunk `chunk` in epoch `epoch`."""
        start, stop = self.chunk_span(chunk)
        rng = np.random.default_rng([self.seed & 0xFFFFFFFF, epoch, chunk])
        words = self.ids[start:stop]
        if self.drop_unk:
            words = words[words != 0]
        if self.keep_prob is not None:
            words = words[rng.random(len(words)) < self.keep_prob[words]]
        n = len(words)
        if n < 2:
            empty = np.zeros(0, dtype=np.int32)
            return empty, empty
        if self.window > 1:
            reach = self.window - rng.integers(0, self.window, n, dtype=np.int32)
        else:
            reach = np.ones(n, dtype=np.int32)
        positions = np.arange(n, dtype=np.int32)[:, None] + self.offsets[None, :].astype(np.int32)
        valid = np.abs(self.offsets)[None, :] <= reach[:, None]
        valid &= (positions >= 0) & (positions < n)
        centers = np.broadcast_to(words[:, None], positions.shape)[valid]
        contexts = words[positions[valid]]
        return centers.astype(np.int32, copy=False), contexts.astype(np.int32, copy=False)


# ---------------------------------------------------------------- models


class SkipGramNCE(ks.Model):
    """The seeds' Word2Vec: an embedding matrix and NCE output weights and biases."""

    def __init__(self, vocab_size: int, embed_size: int, num_sampled: int):
        super().__init__()
        self.vocab_size = vocab_size
        self.num_sampled = num_sampled
        self.embed_matrix = ks.Variable(ks.random.uniform([vocab_size, embed_size]),
                                        name="embed_matrix")
        self.nce_weight = ks.Variable(
            ks.random.truncated_normal([vocab_size, embed_size], stddev=1.0 / embed_size ** 0.5),
            name="nce_weight")
        self.nce_bias = ks.Variable(ks.zeros([vocab_size]), name="nce_bias")

    @property
    def embeddings(self):
        return self.embed_matrix

    def compute_loss(self, center_words, target_words):
        embed = ks.nn.embedding_lookup(self.embed_matrix, center_words)
        return ks.reduce_mean(ks.nn.nce_loss(
            weights=self.nce_weight, biases=self.nce_bias, labels=target_words, inputs=embed,
            num_sampled=self.num_sampled, num_classes=self.vocab_size))


def _softplus(x):
    """log(1 + e**x), stable: max(x, 0) + log(1 + e**-|x|)."""
    return ks.nn.relu(x) + ks.log1p(ks.exp(-ks.abs(x)))


@ks.custom_gradient
def negative_sampling_loss(positive_rows, noise_rows, vectors, weights, step_weights):
    """Summed negative-sampling loss, noise words shared by groups of pairs (a fused op).

    For n pairs, vectors (n, D) are the input vectors, positive_rows (n, D)
    the output vectors they predict, and noise_rows (G, K, D) the output
    vectors of the K noise words shared by each group of g = n / G
    consecutive pairs. With the scores p[i] = positive_rows[i] . vectors[i]
    and q[i, k] = noise_rows[i // g, k] . vectors[i], the loss is

        sum(weights[:, 0] * softplus(-p)) + sum(weights[:, 1:] * softplus(q))

    (sigmoid cross-entropy with label 1 for the positive, 0 for noise), and
    its gradient is written out with `step_weights` (n, 1 + K) in the place
    of `weights` (the loss's gradient when they are equal; the recipe passes
    `repeat_step_weights`). Sharing makes the noise scores and their
    gradients three small matrix products per group, (g, D) x (D, K), and a
    batch gathers and updates G * K noise rows instead of n * K; with g = 1
    (a draw per pair, as gensim) the noise rows' gradient is one broadcast
    product (a batched product with one row per matrix is slow in NumPy).
    The same loss from the generic ops records about 25 ops. Weights get no
    gradient. Checked against finite differences in tests/recipes/test_word2vec.py.
    """
    n, dim = vectors.shape
    groups, k = noise_rows.shape[0], noise_rows.shape[1]
    grouped = ks.reshape(vectors, (groups, n // groups, dim))
    positive = ks.reduce_sum(positive_rows * vectors, axis=1, keepdims=True)  # (n, 1)
    noise = ks.reshape(ks.matmul(grouped, noise_rows, transpose_b=True), (n, k))
    loss = (ks.reduce_sum(_softplus(-positive) * weights[:, :1])
            + ks.reduce_sum(_softplus(noise) * weights[:, 1:]))

    def grad(dloss):
        g_positive = (ks.sigmoid(positive) - 1.0) * (step_weights[:, :1] * dloss)  # (n, 1)
        g_noise = ks.sigmoid(noise) * (step_weights[:, 1:] * dloss)  # (n, K)
        g_grouped = ks.reshape(g_noise, (groups, n // groups, k))
        if groups == n:
            d_noise = ks.expand_dims(g_noise, -1) * ks.expand_dims(vectors, 1)
        else:
            d_noise = ks.matmul(g_grouped, grouped, transpose_a=True)  # (G, K, D)
        d_vectors = g_positive * positive_rows + ks.reshape(
            ks.matmul(g_grouped, noise_rows), (n, dim))
        return g_positive * vectors, d_noise, d_vectors, None, None

    return loss, grad


class SkipGramNeg(ks.Model):
    """word2vec's two matrices: input vectors (the embedding) and output vectors.

    Initialised as in word2vec.c and gensim: inputs uniform in
    [-0.5/dim, 0.5/dim), outputs zero.
    """

    def __init__(self, vocab_size: int, dim: int):
        super().__init__()
        self.embed_matrix = ks.Variable(
            ks.random.uniform([vocab_size, dim], -0.5 / dim, 0.5 / dim), name="embed_matrix")
        self.output_weights = ks.Variable(ks.zeros([vocab_size, dim]), name="output_weights")

    @property
    def embeddings(self):
        return self.embed_matrix

    def compute_loss(self, inputs, positives, noise, weights, step_weights):
        """Summed negative-sampling loss of a batch.

        inputs (n,) the context words (input vectors); positives (n,) the
        center words they predict; noise (G, K) the noise words of each group
        of n / G consecutive pairs; weights (n, 1 + K): 0 where a noise word
        equals the pair's center word (skipped, as gensim does) or the pair
        pads a batch; step_weights: the weights of the gradient (see
        `negative_sampling_loss`). The loss is summed, not averaged, so the
        learning rate is per pair as in word2vec.
        """
        vectors = ks.nn.embedding_lookup(self.embed_matrix, inputs)
        positive_rows = ks.nn.embedding_lookup(self.output_weights, positives)
        noise_rows = ks.nn.embedding_lookup(self.output_weights, noise)
        return negative_sampling_loss(positive_rows, noise_rows, vectors, weights, step_weights)


# ---------------------------------------------------------------- evaluation


def _lookup_table(word_to_id: dict, limit: int | None) -> dict:
    """Lowercased word -> id (the most frequent spelling wins), UNK and ids >= limit left out."""
    table = {}
    for word, index in word_to_id.items():
        if index == 0 or (limit is not None and index >= limit):
            continue
        key = word.lower()
        if key not in table or index < table[key]:
            table[key] = index
    return table


def read_word_pairs(path: str) -> list:
    """(word1, word2, score) triples of a WordSim353-style file.

    Fields are separated by tabs or spaces; blank lines, comments (`#`, `//`)
    and header lines (whose third field is not a number) are skipped.
    """
    pairs = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            text = line.strip()
            if not text or text.startswith(("#", "//")):
                continue
            fields = text.split("\t") if "\t" in text else text.split()
            fields = [f.strip() for f in fields if f.strip()]
            if len(fields) < 3:
                continue
            try:
                score = float(fields[2])
            except ValueError:
                continue  # a header line
            pairs.append((fields[0], fields[1], score))
    if not pairs:
        raise CorpusError(f"word2vec: --eval-pairs {path}: no 'word1 word2 score' lines found")
    return pairs


def read_analogies(path: str) -> list:
    """(section, a, b, c, d) tuples of a Google questions-words file (': section' lines)."""
    questions, section = [], ""
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            if text.startswith(":"):
                section = text[1:].strip()
                continue
            words = text.split()
            if len(words) == 4:
                questions.append((section, *words))
    if not questions:
        raise CorpusError(f"word2vec: --eval-analogies {path}: no 'a b c d' questions found")
    return questions


def _ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, ties getting their average rank (as scipy.stats.rankdata)."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    new = np.r_[True, sorted_values[1:] != sorted_values[:-1]]
    group = np.cumsum(new) - 1
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], len(values)]
    average = (starts + ends + 1) / 2.0
    ranks = np.empty(len(values))
    ranks[order] = average[group]
    return ranks


def spearman(x, y) -> float:
    """Spearman's rank correlation (Pearson correlation of the tie-averaged ranks)."""
    rx, ry = _ranks(np.asarray(x, dtype=np.float64)), _ranks(np.asarray(y, dtype=np.float64))
    rx -= rx.mean()
    ry -= ry.mean()
    denominator = math.sqrt(float((rx * rx).sum() * (ry * ry).sum()))
    return float((rx * ry).sum() / denominator) if denominator else float("nan")


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)


def evaluate_word_pairs(embeddings, word_to_id: dict, pairs: list, limit=None) -> dict:
    """Spearman rho between cosine similarity and the human scores, on in-vocabulary pairs.

    Words are lowercased (case-insensitive, like gensim's default); a pair with a
    word outside the vocabulary (or outside the `limit` most frequent ids) is
    skipped and counted in `oov`.
    """
    table = _lookup_table(word_to_id, limit)
    unit = unit_rows(np.asarray(embeddings))
    model, human, oov = [], [], 0
    for a, b, score in pairs:
        ia, ib = table.get(a.lower()), table.get(b.lower())
        if ia is None or ib is None:
            oov += 1
            continue
        model.append(float(unit[ia] @ unit[ib]))
        human.append(score)
    rho = spearman(model, human) if len(model) > 1 else float("nan")
    return {"spearman": rho, "used": len(model), "oov": oov, "total": len(pairs)}


def evaluate_analogies(embeddings, word_to_id: dict, questions: list, limit=None,
                       batch: int = 256) -> dict:
    """Accuracy on a: b :: c: d questions by 3CosAdd (argmax of cos(x, b - a + c), x not a, b, c).

    Case-insensitive; questions with a word outside the vocabulary (or the
    `limit` most frequent ids) are skipped and counted in `oov`. The search runs
    over every in-vocabulary word (UNK excluded), as gensim's
    `evaluate_word_analogies` does over its `restrict_vocab` words.
    """
    table = _lookup_table(word_to_id, limit)
    unit = unit_rows(np.asarray(embeddings))
    candidates = np.array(sorted(set(table.values())), dtype=np.int64)
    cand_unit = unit[candidates]
    position = np.full(len(unit), -1, dtype=np.int64)
    position[candidates] = np.arange(len(candidates))
    known, sections, oov = [], [], 0
    for section, *words in questions:
        found = [table.get(w.lower()) for w in words]
        if any(i is None for i in found):
            oov += 1
            continue
        known.append(found)
        sections.append(section)
    per_section: dict = {}
    correct_flags = np.zeros(len(known), dtype=bool)
    ids = np.asarray(known, dtype=np.int64).reshape(-1, 4)
    for begin in range(0, len(ids), batch):
        block = ids[begin:begin + batch]
        target = unit[block[:, 1]] - unit[block[:, 0]] + unit[block[:, 2]]
        scores = target @ cand_unit.T
        rows = np.arange(len(block))
        for column in range(3):
            scores[rows, position[block[:, column]]] = -np.inf
        predicted = candidates[np.argmax(scores, axis=1)]
        correct_flags[begin:begin + len(block)] = predicted == block[:, 3]
    for section, ok in zip(sections, correct_flags):
        entry = per_section.setdefault(section, [0, 0])
        entry[0] += int(ok)
        entry[1] += 1
    used = len(known)
    correct = int(correct_flags.sum())
    return {"accuracy": correct / used if used else float("nan"), "correct": correct,
            "used": used, "oov": oov, "total": len(questions), "sections": per_section}


def nearest_neighbours(embeddings, word_to_id: dict, id_to_word: list, words, k: int = 8) -> dict:
    """{word: [(neighbour, cosine), ...]} for the in-vocabulary `words` (UNK never listed)."""
    unit = unit_rows(np.asarray(embeddings))
    result = {}
    for word in words:
        index = word_to_id.get(word)
        if index is None or index == 0:
            result[word] = None
            continue
        sims = unit @ unit[index]
        sims[index] = -np.inf
        sims[0] = -np.inf
        top = np.argpartition(-sims, min(k, len(sims) - 1))[:k]
        top = top[np.argsort(-sims[top])]
        result[word] = [(id_to_word[i], float(sims[i])) for i in top if np.isfinite(sims[i])]
    return result


# ---------------------------------------------------------------- training


class _Batches:
    """Iterates the batches of the run from a saved position (epoch, chunk, batch).

    With a noise `table` (neg), a pair's input is its context word and its
    outputs are [center, noise_1..noise_K], with weight 0 where a noise word
    equals the center word. Each chunk's noise words are drawn at once, one
    draw of K per group of `noise_group` consecutive pairs, from a generator
    seeded with (seed, epoch, chunk, 1); the chunk's last batch is filled up
    to `batch_size` with pairs of weight 0 (UNK against UNK), so every batch
    has one shape. A batch is (inputs, outputs, weights, step weights,
    pairs), `pairs` counting the real ones. Without a table (nce) a batch is
    (centers, contexts, None, None, pairs).
    """

    def __init__(self, pairs: SkipGramPairs, batch_size: int, epochs: int | None,
                 table=None, negatives: int = 0, vocab_size: int = 0, noise_group: int = 1):
        self.pairs = pairs
        self.batch_size = batch_size
        self.epochs = epochs  # None: cycle forever (nce stops after --steps)
        self.table = table
        self.negatives = negatives
        self.vocab_size = vocab_size
        self.noise_group = noise_group

    def _prepare(self, epoch: int, chunk: int):
        centers, contexts = self.pairs.chunk(epoch, chunk)
        n = len(centers)
        if self.table is None:
            return centers, contexts.reshape(-1, 1), None, None, n
        rng = np.random.default_rng([self.pairs.seed & 0xFFFFFFFF, epoch, chunk, 1])
        padded, k = -(-n // self.batch_size) * self.batch_size, self.negatives
        inputs = np.concatenate([contexts, np.zeros(padded - n, dtype=np.int32)])
        outputs = np.zeros((padded, k + 1), dtype=np.int32)
        outputs[:n, 0] = centers
        draws = rng.integers(0, len(self.table), (padded // self.noise_group, k))
        outputs[:, 1:] = np.repeat(self.table.take(draws), self.noise_group, axis=0)
        weights = np.zeros((padded, k + 1), dtype=np.float32)
        np.not_equal(outputs[:n, 1:], centers[:, None], out=weights[:n, 1:], casting="unsafe")
        weights[:n, 0] = 1.0
        step_weights = repeat_step_weights(inputs, outputs, weights, self.batch_size,
                                           self.vocab_size)
        return inputs, outputs, weights, step_weights, n

    def _chunks(self, epoch: int, chunk: int):
        """(epoch, chunk) from the given one on, in training order."""
        while self.epochs is None or epoch < self.epochs:
            while chunk < self.pairs.num_chunks:
                yield epoch, chunk
                chunk += 1
            epoch, chunk = epoch + 1, 0

    def __call__(self, epoch: int, chunk: int, batch: int):
        """Yield the batches from (epoch, chunk, batch) on.

        The next chunk is prepared in a background thread while this one
        trains (NumPy releases the GIL in the vectorised work), as gensim's
        producer thread prepares jobs for its worker.
        """
        order = self._chunks(epoch, chunk)
        with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="word2vec-data") as pool:
            current = next(order, None)
            pending = pool.submit(self._prepare, *current) if current else None
            while current is not None:
                centers, outputs, weights, step_weights, n = pending.result()
                epoch, chunk = current
                current = next(order, None)
                pending = pool.submit(self._prepare, *current) if current else None
                count = -(-n // self.batch_size)
                start, stop = self.pairs.chunk_span(chunk)
                words_per_batch = (stop - start) / max(count, 1)
                for b in range(batch, count):
                    sl = slice(b * self.batch_size, (b + 1) * self.batch_size)
                    yield ((epoch, chunk, b), centers[sl], outputs[sl],
                           None if weights is None else weights[sl],
                           None if step_weights is None else step_weights[sl],
                           min(self.batch_size, n - sl.start),
                           start + b * words_per_batch, words_per_batch)
                batch = 0


def _shard_groups(group: int, *arrays):
    """This rank's part of each array of a batch, cut between groups of `group` pairs."""
    grouped = (None if a is None else a.reshape((-1, group) + a.shape[1:]) for a in arrays)
    return tuple(None if a is None else a.reshape((-1,) + a.shape[2:])
                 for a in ks.distribute.shard_batch(*grouped))


def train(args, log=print, on_step=None) -> dict:
    """Build the vocabulary and pairs, train, evaluate, write the embedding; return a summary."""
    loss_kind = args.loss
    tokens, corpus_name = load_tokens(args.corpus, lowercase=not args.keep_case, log=log)
    started = time.perf_counter()
    ids, word_to_id, id_to_word, counts = text_data.encode(
        tokens, max_size=args.vocab_size, min_count=args.min_count)
    num_words = len(tokens)
    del tokens
    vocab_size = len(id_to_word)
    if vocab_size < 2:
        raise CorpusError(
            f"word2vec: no word of {corpus_name} occurs at least --min-count={args.min_count} "
            "times; lower --min-count or use a larger corpus")
    if loss_kind == "nce" and args.negatives >= vocab_size:
        raise CorpusError(
            f"word2vec: --num-sampled {args.negatives} needs a vocabulary of more words, got "
            f"{vocab_size}; lower --num-sampled or --min-count")
    cutoff = (f"the {vocab_size - 1:,} words seen at least {args.min_count} time(s)"
              + (f", capped at --vocab-size {args.vocab_size:,} (with UNK)" if args.vocab_size
                 else ""))
    case = "case kept" if args.keep_case else "lowercased"
    log(f"corpus: {corpus_name}: {num_words:,} words, {case}; "
        f"vocabulary: {vocab_size:,} ids = UNK + {cutoff}; UNK covers {int(counts[0]):,} words "
        f"({time.perf_counter() - started:.1f} s)")

    keep = keep_probabilities(counts, args.subsample) if loss_kind == "neg" else None
    pairs = SkipGramPairs(ids, args.window, keep, drop_unk=(loss_kind == "neg"), seed=args.seed)
    table = noise_table(counts) if loss_kind == "neg" else None
    batches = _Batches(pairs, args.batch_size, args.epochs if loss_kind == "neg" else None,
                       table, args.negatives, vocab_size, args.noise_group)

    ks.random.set_seed(args.seed)
    if loss_kind == "nce":
        model = SkipGramNCE(vocab_size, args.dim, args.negatives)
    else:
        model = SkipGramNeg(vocab_size, args.dim)
    # in an MPI job: the ranks' gradients combined (nce's loss is a mean, neg's a sum)
    optimizer = ks.distribute.DistributedOptimizer(ks.optimizers.SGD(args.learning_rate),
                                                   op="mean" if loss_kind == "nce" else "sum")
    position = ks.Variable(np.zeros(3, dtype=np.int64), name="position", trainable=False)
    # the sampler draws nce's negatives from the global generator: checkpointed, a resumed
    # run draws what the uninterrupted one would have
    session = Session("word2vec", args, model=model, optimizer=optimizer, position=position,
                      rng=ks.random.get_global_generator())
    if session.resumed_from:
        epoch, chunk, batch = (int(v) for v in position.numpy())
        log(f"resumed from {session.resumed_from} at step {int(session.step)} "
            f"(epoch {epoch + 1}, chunk {chunk + 1}/{pairs.num_chunks}, batch {batch})")
    ks.distribute.broadcast_variables(model.variables)  # every rank starts from rank 0's

    total_words = (args.epochs or 0) * num_words
    min_lr = args.min_learning_rate if args.min_learning_rate is not None \
        else 1e-4 * args.learning_rate
    if loss_kind == "nce":
        grad_fn = ks.implicit_value_and_gradients(model.compute_loss)

        def train_step(centers, outputs):
            loss, grads = grad_fn(centers, outputs)
            optimizer.apply_gradients(grads)
            return loss
    else:
        variables = [model.embed_matrix, model.output_weights]

        def train_step(inputs, positives, noise, weights, step_weights):
            with ks.GradientTape() as tape:
                loss = model.compute_loss(inputs, positives, noise, weights, step_weights)
            grads = tape.gradient(loss, variables)
            optimizer.apply_gradients(zip(grads, variables))
            return loss

    train_step = compiled_step(train_step, args.eager)
    history = []  # (step, mean loss per pair) at each log point
    stats = {"pairs": 0, "words": 0.0, "seconds": 0.0}
    # loss and pairs: this rank's (the mean loss per pair); all_pairs: every rank's (rates)
    interval = {"loss": 0.0, "pairs": 0, "all_pairs": 0, "words": 0.0,
                "start": time.perf_counter()}
    last_lr = float(args.learning_rate)

    step = int(session.step)
    target_steps = args.steps
    done = target_steps is not None and step >= target_steps
    if loss_kind == "nce":
        bar = progress_bar(target_steps, "train", args.quiet, unit="step",
                           initial=min(step, target_steps or 0), smoothing=0.05)
    else:
        bar = progress_bar(total_words, "train", args.quiet, unit="word", unit_scale=True,
                           smoothing=0.05)
    epoch_loss = {"loss": 0.0, "pairs": 0}  # for the line printed at the end of each epoch
    # the bar closes (and clears its line) before an interrupt's message is printed
    with blas_threads(args.blas_threads), session.saving_on_interrupt(), bar:
        epoch0, chunk0, batch0 = (int(v) for v in position.numpy())
        loop_start = time.perf_counter()
        source = batches(epoch0, chunk0, batch0) if not done else iter(())
        first = True
        for ((epoch, chunk, b), inputs, outputs, weights, step_weights, batch_pairs, done_words,
             batch_words) in source:
            if first:  # the clock starts when the first chunk's pairs are ready
                loop_start = time.perf_counter()
                interval["start"] = loop_start
                if loss_kind == "neg":
                    bar.update(epoch * num_words + done_words)  # where a resumed run starts
                first = False
            group = args.noise_group
            if len(inputs) // group < ks.distribute.size():
                continue  # too small to give every rank a group of pairs (alone: never)
            # this rank's part of the batch (alone: all of it); batch_pairs: of all ranks
            inputs, outputs, weights, step_weights = _shard_groups(
                group, inputs, outputs, weights, step_weights)
            n = len(inputs)
            optimizer.gradient_exchange.local_weight = n
            if loss_kind == "nce":
                loss = train_step(inputs, outputs)
                loss_sum = float(loss) * n
            else:
                progress = (epoch * num_words + done_words) / total_words
                last_lr = max(min_lr, args.learning_rate - (args.learning_rate - min_lr) * progress)
                optimizer.learning_rate.assign(last_lr)
                loss = train_step(inputs, outputs[:, 0], outputs[::group, 1:], weights,
                                  step_weights)
                loss_sum = float(loss)
                n = int(np.count_nonzero(weights[:, 0]))  # the real pairs, not the padding
            session.check_finite(loss_sum, "lower --learning-rate or --batch-size")
            if loss_kind == "neg" and chunk == 0 and b == 0 and epoch_loss["pairs"]:
                _epoch_line(epoch - 1, args.epochs, epoch_loss, bar, log)
            epoch_loss["loss"] += loss_sum
            epoch_loss["pairs"] += n
            step += 1
            session.step.assign(step)
            position.assign(np.array([epoch, chunk, b + 1], dtype=np.int64))
            interval["loss"] += loss_sum
            interval["pairs"] += n
            interval["all_pairs"] += batch_pairs
            interval["words"] += batch_words
            stats["pairs"] += batch_pairs
            stats["words"] += batch_words
            bar.update(1 if loss_kind == "nce" else batch_words)
            if step % args.log_every == 0 or (args.print_every and step % args.print_every == 0):
                now = time.perf_counter()
                seconds = max(now - interval["start"], 1e-9)
                mean_loss = interval["loss"] / max(interval["pairs"], 1)
                words_per_sec = interval["words"] / seconds
                history.append((step, mean_loss))
                ks.summary.scalar("loss", mean_loss, step=step)
                ks.summary.scalar("words_per_sec", words_per_sec, step=step)
                ks.summary.scalar("pairs_per_sec", interval["all_pairs"] / seconds, step=step)
                ks.summary.scalar("learning_rate", last_lr, step=step)
                bar.set_postfix(loss=f"{mean_loss:.3f}",
                                pairs_s=f"{interval['all_pairs'] / seconds:,.0f}",
                                words_s=f"{words_per_sec:,.0f}", refresh=False)
                if args.print_every and step % args.print_every == 0:
                    message = f"Average loss at step {step}: {mean_loss:5.3f}"
                    (bar.write if not args.quiet else log)(message)
                interval.update(loss=0.0, pairs=0, all_pairs=0, words=0.0, start=now)
            if on_step is not None:
                on_step(step)
            if args.save_every and step % args.save_every == 0:
                session.save()
            session.check_interrupt()
            if target_steps is not None and step >= target_steps:
                break
        bar.close()
        if loss_kind == "neg" and epoch_loss["pairs"] and not (
                target_steps is not None and step >= target_steps):
            _epoch_line(args.epochs - 1, args.epochs, epoch_loss, bar, log)
        stats["seconds"] = time.perf_counter() - loop_start
        if interval["pairs"]:
            history.append((step, interval["loss"] / interval["pairs"]))
        session.save()
        if session.chief:
            result = finish(args, model, word_to_id, id_to_word, session, step, log)
        else:  # the other ranks of an MPI job write nothing
            result = {"embeddings": model.embeddings.numpy(), "logdir": None,
                      "embedding_path": None}
    result.update(
        loss=history[-1][1] if history else float("nan"), history=history, steps=step,
        vocab_size=vocab_size, corpus_words=num_words, cutoff=cutoff,
        pairs_per_sec=stats["pairs"] / stats["seconds"] if stats["seconds"] else float("nan"),
        words_per_sec=stats["words"] / stats["seconds"] if stats["seconds"] else float("nan"),
        train_seconds=stats["seconds"], trained_pairs=stats["pairs"], learning_rate=last_lr,
    )
    return result


def _epoch_line(epoch: int, epochs: int, epoch_loss: dict, bar, log) -> None:
    """Print the mean loss per pair of the epoch that ended (neg), and start the next one."""
    mean = epoch_loss["loss"] / epoch_loss["pairs"]
    message = f"epoch {epoch + 1}/{epochs}: mean loss per pair {mean:.4f}"
    (bar.write if not bar.disable else log)(message)
    epoch_loss.update(loss=0.0, pairs=0)


def finish(args, model, word_to_id, id_to_word, session, step, log) -> dict:
    """Write the embedding (projector + .npy + vocab.tsv), print neighbours and evaluations."""
    embeddings = model.embeddings.numpy()
    os.makedirs(session.logdir, exist_ok=True)
    npy_path = os.path.join(session.logdir, "embeddings.npy")
    np.save(npy_path + ".tmp.npy", embeddings)
    os.replace(npy_path + ".tmp.npy", npy_path)
    with open(os.path.join(session.logdir, "vocab.tsv"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(id_to_word) + "\n")
    ks.summary.embedding(embeddings, metadata=id_to_word, tag="word_embedding", step=step)
    session.writer.flush()
    result = {"embeddings": embeddings, "logdir": session.logdir, "embedding_path": npy_path}

    probes = [w.strip() for w in (args.probe_words or "").split(",") if w.strip()]
    if not args.keep_case:
        probes = [w.lower() for w in probes]
    neighbours = nearest_neighbours(embeddings, word_to_id, id_to_word, probes)
    for word, near in neighbours.items():
        if near is None:
            log(f"nearest to {word}: (not in the vocabulary)")
        else:
            log(f"nearest to {word}: " + ", ".join(f"{w} ({s:.2f})" for w, s in near))
    result["neighbours"] = neighbours
    limit = args.eval_vocab + 1 if args.eval_vocab else None  # + 1: id 0 is UNK
    scope = (f"the {args.eval_vocab:,} most frequent words" if args.eval_vocab
             else f"all {len(id_to_word) - 1:,} vocabulary words")
    if args.eval_pairs:
        pairs = read_word_pairs(args.eval_pairs)
        scores = evaluate_word_pairs(embeddings, word_to_id, pairs, limit)
        log(f"word pairs ({os.path.basename(args.eval_pairs)}): Spearman rho "
            f"{scores['spearman']:.4f} on {scores['used']} of {scores['total']} pairs; "
            f"{scores['oov']} skipped as out of vocabulary (words lowercased; vocabulary: {scope})")
        ks.summary.scalar("eval/word_pairs_spearman", scores["spearman"], step=step)
        result["word_pairs"] = scores
    if args.eval_analogies:
        questions = read_analogies(args.eval_analogies)
        scores = evaluate_analogies(embeddings, word_to_id, questions, limit)
        log(f"analogies ({os.path.basename(args.eval_analogies)}): accuracy "
            f"{scores['accuracy']:.4f} ({scores['correct']} of {scores['used']} questions); "
            f"{scores['oov']} of {scores['total']} skipped as out of vocabulary (words "
            f"lowercased; answers searched among {scope})")
        ks.summary.scalar("eval/analogy_accuracy", scores["accuracy"], step=step)
        result["analogies"] = scores
    return result


# ---------------------------------------------------------------- command line


def build_parser():
    parser = parser_for("word2vec", __doc__.splitlines()[0])
    parser.add_argument("--loss", choices=("nce", "neg"), default="nce",
                        help="nce: the TF eager recipe; neg: negative sampling (gensim-style)")
    parser.add_argument("--corpus", default=None, metavar="FILE",
                        help="a plain-text corpus (.txt, .gz or .zip); default: text8, "
                        "downloaded once and cached")
    parser.add_argument("--keep-case", action="store_true",
                        help="do not lowercase the corpus (evaluation words are matched "
                        "case-insensitively either way)")
    parser.add_argument("--vocab-size", type=int, default=argparse_default(),
                        help="at most this many ids including UNK (nce: 50000; neg: no cap)")
    parser.add_argument("--min-count", type=int, default=argparse_default(),
                        help="words seen fewer times map to UNK (nce: 1; neg: 5)")
    parser.add_argument("--epochs", type=int, default=argparse_default(),
                        help="passes over the corpus (neg: 5; nce stops after --steps)")
    parser.add_argument("--steps", type=int, default=argparse_default(),
                        help="stop after this many training steps in all (nce: 100000; neg: "
                        "no limit, the epochs decide; a later run with the same "
                        "--checkpoint-dir continues from there)")
    parser.add_argument("--batch-size", type=int, default=argparse_default(),
                        help="(center, context) pairs per step (nce: 128; neg: 1024)")
    parser.add_argument("--window", "--skip-window", dest="window", type=int,
                        default=argparse_default(),
                        help="maximum context distance; each center draws its window from "
                        "1..window (nce: 1; neg: 5)")
    parser.add_argument("--negatives", "--num-sampled", dest="negatives", type=int,
                        default=argparse_default(),
                        help="noise words per pair (neg: 5) / sampled classes per batch (nce: 64)")
    parser.add_argument("--dim", "--embed-size", dest="dim", type=int, default=argparse_default(),
                        help="embedding size (nce: 128; neg: 100)")
    parser.add_argument("--learning-rate", type=float, default=argparse_default(),
                        help="SGD step (nce: 1.0, constant; neg: 0.025, decaying linearly)")
    parser.add_argument("--min-learning-rate", type=float, default=None,
                        help="neg: the final learning rate (default: 0.0001 x --learning-rate)")
    parser.add_argument("--noise-group", type=int, default=argparse_default(),
                        help="neg: consecutive pairs that share one draw of noise words (8; 1: "
                        "a draw per pair, as gensim); must divide --batch-size")
    parser.add_argument("--subsample", type=float, default=argparse_default(),
                        help="neg: frequent-word subsampling threshold (1e-3; 0 turns it off)")
    parser.add_argument("--probe-words", default=PROBE_WORDS,
                        help="comma-separated words whose nearest neighbours are printed")
    parser.add_argument("--eval-pairs", default=None, metavar="FILE",
                        help="WordSim353-style 'word1 word2 score' file: report Spearman rho")
    parser.add_argument("--eval-analogies", default=None, metavar="FILE",
                        help="Google questions-words-style file: report analogy accuracy")
    parser.add_argument("--eval-vocab", type=int, default=None,
                        help="evaluate with only the N most frequent words (default: all)")
    parser.add_argument("--blas-threads", type=int, default=1,
                        help="BLAS threads while training (uses threadpoolctl when installed, "
                        "else OPENBLAS_NUM_THREADS / OMP_NUM_THREADS decide; 0: leave as is)")
    parser.add_argument("--log-every", type=int, default=argparse_default(),
                        help="write TensorBoard scalars every N steps (nce: 100; neg: 50)")
    parser.add_argument("--print-every", type=int, default=argparse_default(),
                        help="print the average loss every N steps (nce: 5000, as TF's recipe)")
    parser.add_argument("--save-every", type=int, default=argparse_default(),
                        help="checkpoint every N steps (nce: 10000; neg: 2000; 0: only at the "
                        "end and on Ctrl-C)")
    return parser


class argparse_default:  # noqa: N801 - a marker, shown as "per loss" in --help
    """Marks an option whose default depends on --loss (see DEFAULTS)."""

    def __repr__(self) -> str:
        return "per --loss"

    __str__ = __repr__


def parse_args(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    for name, value in DEFAULTS[args.loss].items():
        if isinstance(getattr(args, name, None), argparse_default) or not hasattr(args, name):
            setattr(args, name, value)
    for name in ("batch_size", "dim", "window", "negatives", "log_every", "noise_group"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if args.batch_size % args.noise_group:
        parser.error(f"--noise-group {args.noise_group} must divide --batch-size "
                     f"{args.batch_size}: each batch holds whole groups of pairs")
    if args.epochs is not None and args.epochs < 1:
        parser.error(f"--epochs must be >= 1, got {args.epochs}")
    if args.steps is not None and args.steps < 0:
        parser.error(f"--steps must be >= 0, got {args.steps}")
    if args.loss == "nce" and args.steps is None:
        parser.error("--loss nce needs --steps")
    if args.vocab_size is not None and args.vocab_size < 2:
        parser.error(f"--vocab-size must be >= 2 (UNK and one word), got {args.vocab_size}")
    if args.min_count < 1:
        parser.error(f"--min-count must be >= 1, got {args.min_count}")
    if not 0.0 <= args.subsample < 1.0:
        parser.error(f"--subsample must be in [0, 1), got {args.subsample}")
    for flag, path in (("--eval-pairs", args.eval_pairs),
                       ("--eval-analogies", args.eval_analogies)):
        if path and not os.path.isfile(path):
            parser.error(f"{flag} {path}: no such file")
    return args


def main(argv=None, on_step=None) -> dict:
    args = parse_args(argv)
    check_device("word2vec", args.device)
    ks.distribute.init()
    if not ks.distribute.is_chief():  # one rank prints
        args.quiet = True
        with ks.device(args.device):
            return train(args, log=lambda *a, **k: None, on_step=on_step)
    with ks.device(args.device):  # the model, its optimizer and every batch
        result = train(args, on_step=on_step)
    extra = ""
    if "word_pairs" in result:
        extra += f", word-pair Spearman {result['word_pairs']['spearman']:.3f}"
    if "analogies" in result:
        extra += f", analogy accuracy {result['analogies']['accuracy']:.3f}"
    print(f"word2vec: {args.loss}, {result['steps']:,} steps, vocabulary {result['vocab_size']:,}, "
          f"final loss {result['loss']:.4f}, {result['words_per_sec']:,.0f} words/s "
          f"({result['pairs_per_sec']:,.0f} pairs/s){extra} "
          f"(embedding: {result['embedding_path']}); TensorBoard: "
          f"{tensorboard_hint(result['logdir'])}")
    return result


if __name__ == "__main__":
    main()
