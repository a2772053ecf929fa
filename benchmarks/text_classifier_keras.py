"""The text classifier's two models in Keras 3 (TensorFlow backend), on the example's corpus.

A reference for `examples/text_classifier.py`: the same corpus (read, split and
tokenized by the example's own functions, so both see the same ids), the same
architectures, sizes, optimizer, learning rate, batch size and epochs, built
here with Keras. Keras's initial weights and shuffles differ from kerasish's,
so accuracies agree only statistically; run both with a few `--seed`s to see
the spread. TensorFlow gets one thread (intra- and inter-op), as the example's
BLAS does by default.

Run it where Keras and TensorFlow are installed (with kerasish importable,
e.g. `pip install --no-deps -e .`), from the repository root:

    python benchmarks/text_classifier_keras.py                      # manual pages
    python benchmarks/text_classifier_keras.py --imdb-dir ~/aclImdb --maxlen 200

It accepts the example's options (see `python examples/text_classifier.py --help`).
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "text_classifier.py"


def _example():
    spec = importlib.util.spec_from_file_location("text_classifier_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def keras_model(kind: str, vocab_size: int, maxlen: int, classes: int, embed_dim: int,
                units: int):
    import keras
    from keras import layers, ops

    class TokenAndPositionEmbedding(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.tokens = layers.Embedding(vocab_size, embed_dim)
            self.positions = layers.Embedding(maxlen, embed_dim)

        def call(self, ids):
            return self.tokens(ids) + self.positions(ops.arange(ops.shape(ids)[-1]))

        def compute_mask(self, ids, mask=None):
            return ops.not_equal(ids, 0)

    class TransformerBlock(layers.Layer):
        def __init__(self, num_heads: int, ff_dim: int, rate: float = 0.1, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True
            self.attention = layers.MultiHeadAttention(num_heads, key_dim=embed_dim // num_heads)
            self.feed_forward = keras.Sequential(
                [layers.Dense(ff_dim, activation="relu"), layers.Dense(embed_dim)])
            self.norm1 = layers.LayerNormalization(epsilon=1e-6)
            self.norm2 = layers.LayerNormalization(epsilon=1e-6)
            self.dropout1, self.dropout2 = layers.Dropout(rate), layers.Dropout(rate)

        def call(self, x, mask=None, training=None):
            attended = self.attention(x, x, query_mask=mask, value_mask=mask, training=training)
            x = self.norm1(x + self.dropout1(attended, training=training))
            return self.norm2(x + self.dropout2(self.feed_forward(x), training=training))

    ids = keras.Input((maxlen,), dtype="int32")
    if kind == "bilstm":
        x = layers.Embedding(vocab_size, embed_dim, mask_zero=True)(ids)
        x = layers.Bidirectional(layers.LSTM(units))(x)
    else:
        x = TokenAndPositionEmbedding()(ids)
        x = TransformerBlock(num_heads=4, ff_dim=2 * embed_dim)(x)
        x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.3)(x)
    return keras.Model(ids, layers.Dense(classes)(x), name=kind)


def main(argv=None) -> dict:
    import keras
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    example = _example()
    args = example.parse_args(argv)
    train, test, names, source = example.load_corpus(args)
    print(f"{source}: {len(train[1])} training and {len(test[1])} test texts, {len(names)} "
          f"classes; Keras {keras.__version__}, TensorFlow {tf.__version__}, 1 thread")
    kinds = ("bilstm", "transformer") if args.model == "both" else (args.model,)
    results = {}
    for kind in kinds:
        keras.utils.set_random_seed(args.seed)
        model = keras_model(kind, args.vocab_size, args.maxlen, len(names), args.embed_dim,
                            args.units)
        model.compile(optimizer=keras.optimizers.Adam(args.learning_rate),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        started = time.perf_counter()
        history = model.fit(*train, batch_size=args.batch_size, epochs=args.epochs,
                            shuffle=True, verbose=0)
        seconds = (time.perf_counter() - started) / args.epochs
        test_loss, test_accuracy = model.evaluate(*test, batch_size=256, verbose=0)
        results[kind] = {"train_accuracy": history.history["accuracy"][-1],
                         "test_accuracy": test_accuracy, "test_loss": test_loss,
                         "seconds_per_epoch": seconds, "parameters": model.count_params()}
        print(f"keras {kind}: {model.count_params():,} parameters, {args.epochs} epochs "
              f"({seconds:.1f} s each): train accuracy {results[kind]['train_accuracy']:.4f}, "
              f"test accuracy {test_accuracy:.4f}, test loss {test_loss:.4f}")
    return results


if __name__ == "__main__":
    main()
