"""The seeds' eager word2vec (CS20 lecture 4, `04_word2vec_eager.py`) ported to TF2 eager.

Run with TensorFlow installed (a separate venv; TF is never a kerasish
dependency), e.g.:

    python -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu
    /tmp/tfvenv/bin/python benchmarks/word2vec_tf_eager.py \
        --corpus benchmarks/data/dict8 --steps 2000

The port keeps the seeds' structure: `word2vec_utils`-style `read_data`,
`build_vocab` (UNK + most_common(VOCAB_SIZE - 1)), `convert_words_to_index`,
the Python generators `generate_sample` / `batch_gen` (skip window 1, batches
of 128 built pair by pair), `tf.data.Dataset.from_generator`, a `Word2Vec`
object with `embed_matrix` (uniform), `nce_weight` (truncated normal,
stddev 1/sqrt(128)) and `nce_bias` (zeros), `tf.nn.nce_loss` with 64
samples, and SGD at 1.0 (`tf.compat.v1.train.GradientDescentOptimizer`, the
seeds' optimizer). The seeds' `tfe.implicit_value_and_gradients` becomes the
TF2 spelling: a `tf.GradientTape` around `compute_loss`. No `tf.function`:
eager execution, as in the seeds.

Prints one JSON line: steps, seconds (after `--warmup` steps), pairs/sec,
the last average loss, and TF's version and thread settings.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter

import numpy as np
import tensorflow as tf

VOCAB_SIZE = 50000
BATCH_SIZE = 128
EMBED_SIZE = 128
SKIP_WINDOW = 1
NUM_SAMPLED = 64
LEARNING_RATE = 1.0


def read_data(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read().split()


def build_vocab(words, vocab_size):
    dictionary = {}
    count = [("UNK", -1)]
    count.extend(Counter(words).most_common(vocab_size - 1))
    for index, (word, _) in enumerate(count):
        dictionary[word] = index
    return dictionary


def convert_words_to_index(words, dictionary):
    return [dictionary[word] if word in dictionary else 0 for word in words]


def generate_sample(index_words, context_window_size):
    for index, center in enumerate(index_words):
        context = random.randint(1, context_window_size)
        for target in index_words[max(0, index - context): index]:
            yield center, target
        for target in index_words[index + 1: index + context + 1]:
            yield center, target


def batch_gen(index_words, vocab_size, batch_size, skip_window):
    single_gen = generate_sample(index_words, skip_window)
    while True:
        center_batch = np.zeros(batch_size, dtype=np.int32)
        target_batch = np.zeros([batch_size, 1])
        for index in range(batch_size):
            center_batch[index], target_batch[index] = next(single_gen)
        yield center_batch, target_batch


class Word2Vec:
    def __init__(self, vocab_size, embed_size, num_sampled=NUM_SAMPLED):
        self.vocab_size = vocab_size
        self.num_sampled = num_sampled
        self.embed_matrix = tf.Variable(tf.random.uniform([vocab_size, embed_size]))
        self.nce_weight = tf.Variable(
            tf.random.truncated_normal([vocab_size, embed_size], stddev=1.0 / (embed_size ** 0.5)))
        self.nce_bias = tf.Variable(tf.zeros([vocab_size]))

    def compute_loss(self, center_words, target_words):
        embed = tf.nn.embedding_lookup(self.embed_matrix, center_words)
        return tf.reduce_mean(tf.nn.nce_loss(
            weights=self.nce_weight, biases=self.nce_bias, labels=target_words, inputs=embed,
            num_sampled=self.num_sampled, num_classes=self.vocab_size))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--threads", type=int, default=0,
                        help="intra- and inter-op threads (0: TF's default)")
    args = parser.parse_args(argv)
    if args.threads:
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    random.seed(0)
    tf.random.set_seed(0)
    words = read_data(args.corpus)
    dictionary = build_vocab(words, VOCAB_SIZE)
    index_words = convert_words_to_index(words, dictionary)
    del words

    def gen():
        yield from batch_gen(index_words, VOCAB_SIZE, BATCH_SIZE, SKIP_WINDOW)

    dataset = tf.data.Dataset.from_generator(
        gen, output_signature=(tf.TensorSpec([BATCH_SIZE], tf.int32),
                               tf.TensorSpec([BATCH_SIZE, 1], tf.float64)))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(LEARNING_RATE)
    model = Word2Vec(vocab_size=VOCAB_SIZE, embed_size=EMBED_SIZE)
    variables = [model.embed_matrix, model.nce_weight, model.nce_bias]
    total_loss, steps, started, last = 0.0, 0, None, float("nan")
    for center_words, target_words in dataset:
        if steps == args.warmup:
            started = time.perf_counter()
        if steps >= args.warmup + args.steps:
            break
        with tf.GradientTape() as tape:
            loss_batch = model.compute_loss(center_words, target_words)
        grads = tape.gradient(loss_batch, variables)
        optimizer.apply_gradients(zip(grads, variables))
        total_loss += float(loss_batch)
        steps += 1
        if steps % 500 == 0:
            last, total_loss = total_loss / 500, 0.0
    seconds = time.perf_counter() - started
    print(json.dumps({
        "steps": args.steps, "seconds": seconds, "pairs_per_sec": args.steps * BATCH_SIZE / seconds,
        "average_loss": last, "tensorflow": tf.__version__,
        "intra_op_threads": tf.config.threading.get_intra_op_parallelism_threads(),
        "inter_op_threads": tf.config.threading.get_inter_op_parallelism_threads(),
    }))


if __name__ == "__main__":
    main()
