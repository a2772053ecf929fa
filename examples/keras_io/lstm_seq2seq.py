"""keras-io's "Character-level recurrent sequence-to-sequence model", on a synthetic
translation task.

keras-io translates short English sentences to French (fra-eng, not downloadable
here); this port "translates" a word into its letters reversed, a task of the same
form whose right answer is known. The program follows keras-io: one-hot
characters, an encoder `LSTM(return_state=True)` whose states start a decoder
`LSTM(return_sequences=True, return_state=True)` trained with teacher forcing, a
softmax `Dense`, then separate encoder and decoder models for inference, built
from the trained layers (with state inputs), and a greedy character-by-character
decoding loop.

Usage (from the repository root):

    python examples/keras_io/lstm_seq2seq.py            # 10,000 words, latent 256, 30 epochs
    python examples/keras_io/lstm_seq2seq.py --quick    # 800 words, latent 32, 4 epochs
    KERAS_IO_LIBRARY=keras python examples/keras_io/lstm_seq2seq.py --quick
"""

from __future__ import annotations

import argparse
import string

import numpy as np
from _library import LIBRARY, keras


def make_pairs(count: int, rng) -> tuple[list[str], list[str]]:
    """Random lowercase words of 3-7 letters and their reversals, wrapped in the
    start ("\\t") and end ("\\n") characters keras-io uses."""
    letters = np.array(list(string.ascii_lowercase[:12]))
    inputs = ["".join(rng.choice(letters, rng.integers(3, 8))) for _ in range(count)]
    return inputs, ["\t" + word[::-1] + "\n" for word in inputs]


def one_hot(texts, index, length):
    data = np.zeros((len(texts), length, len(index)), dtype="float32")
    for row, text in enumerate(texts):
        for position, char in enumerate(text):
            data[row, position, index[char]] = 1.0
    return data


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--quick", action="store_true",
                        help="800 words, latent 32, 4 epochs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    keras.utils.set_random_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    count, latent_dim, epochs = (800, 32, 4) if args.quick else (10000, 256, args.epochs)

    input_texts, target_texts = make_pairs(count, rng)
    input_characters = sorted(set("".join(input_texts)))
    target_characters = sorted(set("".join(target_texts)))
    num_encoder_tokens, num_decoder_tokens = len(input_characters), len(target_characters)
    max_encoder_seq_length = max(len(text) for text in input_texts)
    max_decoder_seq_length = max(len(text) for text in target_texts)
    input_token_index = {char: i for i, char in enumerate(input_characters)}
    target_token_index = {char: i for i, char in enumerate(target_characters)}
    encoder_input_data = one_hot(input_texts, input_token_index, max_encoder_seq_length)
    decoder_input_data = one_hot(target_texts, target_token_index, max_decoder_seq_length)
    decoder_target_data = np.zeros_like(decoder_input_data)
    decoder_target_data[:, :-1] = decoder_input_data[:, 1:]

    encoder_inputs = keras.Input(shape=(None, num_encoder_tokens))
    encoder = keras.layers.LSTM(latent_dim, return_state=True)
    _, state_h, state_c = encoder(encoder_inputs)
    encoder_states = [state_h, state_c]
    decoder_inputs = keras.Input(shape=(None, num_decoder_tokens))
    decoder_lstm = keras.layers.LSTM(latent_dim, return_sequences=True, return_state=True)
    decoder_outputs, _, _ = decoder_lstm(decoder_inputs, initial_state=encoder_states)
    decoder_dense = keras.layers.Dense(num_decoder_tokens, activation="softmax")
    decoder_outputs = decoder_dense(decoder_outputs)
    model = keras.Model([encoder_inputs, decoder_inputs], decoder_outputs)
    model.compile(optimizer="rmsprop", loss="categorical_crossentropy", metrics=["accuracy"])
    history = model.fit([encoder_input_data, decoder_input_data], decoder_target_data,
                        batch_size=args.batch_size, epochs=epochs, validation_split=0.2,
                        verbose=2)

    # Inference: the encoder gives the states; the decoder runs one character at a time.
    encoder_model = keras.Model(encoder_inputs, encoder_states)
    decoder_state_input_h = keras.Input(shape=(latent_dim,))
    decoder_state_input_c = keras.Input(shape=(latent_dim,))
    decoder_states_inputs = [decoder_state_input_h, decoder_state_input_c]
    decoder_outputs, state_h_dec, state_c_dec = decoder_lstm(
        decoder_inputs, initial_state=decoder_states_inputs)
    decoder_outputs = decoder_dense(decoder_outputs)
    decoder_model = keras.Model([decoder_inputs] + decoder_states_inputs,
                                [decoder_outputs, state_h_dec, state_c_dec])
    reverse_target_char_index = {i: char for char, i in target_token_index.items()}

    def decode_sequence(input_seq):
        states_value = encoder_model.predict(input_seq, verbose=0)
        target_seq = np.zeros((1, 1, num_decoder_tokens), dtype="float32")
        target_seq[0, 0, target_token_index["\t"]] = 1.0
        decoded_sentence = ""
        while True:
            output_tokens, h, c = decoder_model.predict([target_seq] + states_value, verbose=0)
            sampled_char = reverse_target_char_index[int(np.argmax(output_tokens[0, -1, :]))]
            if sampled_char == "\n" or len(decoded_sentence) > max_decoder_seq_length:
                return decoded_sentence
            decoded_sentence += sampled_char
            target_seq = np.zeros((1, 1, num_decoder_tokens), dtype="float32")
            target_seq[0, 0, target_token_index[sampled_char]] = 1.0
            states_value = [h, c]

    held_out = range(count - (5 if args.quick else 20), count)  # in the validation split
    correct = 0
    for seq_index in held_out:
        decoded = decode_sequence(encoder_input_data[seq_index:seq_index + 1])
        correct += decoded == input_texts[seq_index][::-1]
        if seq_index < held_out.start + 3:
            print(f"  {input_texts[seq_index]!r} -> {decoded!r}")
    logs = {key: float(values[-1]) for key, values in history.history.items()}
    print(f"lstm_seq2seq ({LIBRARY}): val accuracy {logs['val_accuracy']:.4f}, "
          f"{correct} of {len(held_out)} held-out words reversed exactly")
    return {**logs, "exact": correct, "first_loss": float(history.history["loss"][0])}


if __name__ == "__main__":
    main()
