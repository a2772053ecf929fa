"""keras-io's "Text classification from scratch", on synthetic reviews in IMDB's layout.

keras-io downloads the IMDB reviews (aclImdb) and reads them with
`keras.utils.text_dataset_from_directory`; this port writes reviews of the same
form (a folder per class, one text file per review, HTML line breaks included) from
positive and negative word lists, then follows keras-io: a custom standardization
(lower case, `<br />` removed, punctuation stripped with string ops) in a
`TextVectorization` layer adapted on the text-only dataset, the datasets mapped
through it, and a 1-D convnet (Embedding, two strided Conv1D, global max pooling)
trained with binary cross-entropy. Finally the layer and the model are joined
into an end-to-end model that takes raw strings, as keras-io does.

keras-io's standardization uses `tf.strings`; kerasish's `ks.strings` has the same
functions, so the port takes the one of the library it runs on.

Usage (from the repository root):

    python examples/keras_io/text_classification.py            # 5,000 reviews, 3 epochs
    python examples/keras_io/text_classification.py --quick    # 1,000 reviews, 3 epochs
    KERAS_IO_LIBRARY=keras python examples/keras_io/text_classification.py --quick
"""

from __future__ import annotations

import argparse
import os
import re
import string
import tempfile

import numpy as np
from _library import LIBRARY, keras

layers = keras.layers
if LIBRARY == "keras":
    import tensorflow as tf

    text_ops = tf.strings
else:
    text_ops = keras.strings

POSITIVE = "wonderful brilliant moving superb touching delightful great charming".split()
NEGATIVE = "dull awful boring clumsy tedious dreadful weak pointless".split()
NEUTRAL = ("the film movie plot actor story scene camera music was is and a an it this "
           "that director cast ending script").split()


def write_reviews(folder: str, count: int, rng) -> None:
    """`count` reviews per split as aclImdb lays them out: <split>/{neg,pos}/<n>.txt."""
    for split in ("train", "test"):
        for label, words in (("neg", NEGATIVE), ("pos", POSITIVE)):
            os.makedirs(os.path.join(folder, split, label))
            for index in range(count // 2):
                tokens = list(rng.choice(NEUTRAL, rng.integers(20, 60)))
                for _ in range(rng.integers(4, 9)):
                    tokens.insert(rng.integers(len(tokens)), str(rng.choice(words)))
                text = " ".join(tokens).capitalize() + ".<br /><br />" + (
                    "Really " + str(rng.choice(words)) + "!")
                with open(os.path.join(folder, split, label, f"{index}.txt"), "w") as file:
                    file.write(text)


def custom_standardization(input_data):
    lowercase = text_ops.lower(input_data)
    stripped_html = text_ops.regex_replace(lowercase, "<br />", " ")
    return text_ops.regex_replace(stripped_html, f"[{re.escape(string.punctuation)}]", "")


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1,000 reviews, 3 epochs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    count, epochs = (1000, 3) if args.quick else (5000, args.epochs)
    max_features, embedding_dim, sequence_length = 2000, 128, 100

    with tempfile.TemporaryDirectory() as folder:
        write_reviews(folder, count, rng)
        batch_size = 32
        raw_train_ds = keras.utils.text_dataset_from_directory(
            os.path.join(folder, "train"), batch_size=batch_size, validation_split=0.2,
            subset="training", seed=1337)
        raw_val_ds = keras.utils.text_dataset_from_directory(
            os.path.join(folder, "train"), batch_size=batch_size, validation_split=0.2,
            subset="validation", seed=1337)
        raw_test_ds = keras.utils.text_dataset_from_directory(
            os.path.join(folder, "test"), batch_size=batch_size)

        vectorize_layer = keras.layers.TextVectorization(
            standardize=custom_standardization, max_tokens=max_features,
            output_mode="int", output_sequence_length=sequence_length)
        text_ds = raw_train_ds.map(lambda x, y: x)
        vectorize_layer.adapt(text_ds)

        def vectorize_text(text, label):
            return vectorize_layer(text), label

        train_ds = raw_train_ds.map(vectorize_text)
        val_ds = raw_val_ds.map(vectorize_text)
        test_ds = raw_test_ds.map(vectorize_text)

        inputs = keras.Input(shape=(None,), dtype="int64")
        x = layers.Embedding(max_features, embedding_dim)(inputs)
        x = layers.Dropout(0.5)(x)
        x = layers.Conv1D(128, 7, padding="valid", activation="relu", strides=3)(x)
        x = layers.Conv1D(128, 7, padding="valid", activation="relu", strides=3)(x)
        x = layers.GlobalMaxPooling1D()(x)
        x = layers.Dense(128, activation="relu")(x)
        x = layers.Dropout(0.5)(x)
        predictions = layers.Dense(1, activation="sigmoid", name="predictions")(x)
        model = keras.Model(inputs, predictions)
        model.compile(loss="binary_crossentropy", optimizer="adam", metrics=["accuracy"])
        model.fit(train_ds, validation_data=val_ds, epochs=epochs, verbose=2)
        _, accuracy = model.evaluate(test_ds, verbose=0)

        inputs = keras.Input(shape=(1,), dtype="string")
        end_to_end_model = keras.Model(inputs, model(vectorize_layer(inputs)))
        end_to_end_model.compile(loss="binary_crossentropy", optimizer="adam",
                                 metrics=["accuracy"])
        _, end_to_end_accuracy = end_to_end_model.evaluate(raw_test_ds, verbose=0)
    vocabulary = vectorize_layer.get_vocabulary()
    print(f"text_classification ({LIBRARY}): vocabulary {len(vocabulary)} ({vocabulary[:6]}), "
          f"test accuracy {accuracy:.4f}, end to end {end_to_end_accuracy:.4f}")
    return {"accuracy": float(accuracy), "end_to_end_accuracy": float(end_to_end_accuracy),
            "vocabulary_size": len(vocabulary), "has_br": "br" in vocabulary}


if __name__ == "__main__":
    main()
