"""Accidental misuse is refused at the call (issue 21): each message names the call, the
argument, what was given and what is allowed; integer-like NumPy values keep working."""

import numpy as np
import pytest

import kerasish as ks
from kerasish.core import arguments

L = ks.layers


def compiled():
    model = ks.Sequential([L.Dense(1)])
    model.compile("sgd", "mse")
    return model


X = np.ones((8, 2), np.float32)
Y = np.ones((8, 1), np.float32)


@pytest.mark.parametrize("call, message", [
    # the cases
    (lambda: L.Dense(3.5), "Dense: units must be a positive integer, got 3.5 (a float)"),
    (lambda: L.Dense(3.0), "Dense: units must be a positive integer, got 3.0 (a float; pass 3)"),
    (lambda: L.Dense("32"),
     "Dense: units must be a positive integer, got '32' (a str; write 32 without quotes)"),
    (lambda: L.Dense("abc"), "Dense: units must be a positive integer, got 'abc' (a str)"),
    (lambda: L.Dense(True), "Dense: units must be a positive integer, got True (a bool)"),
    (lambda: L.Dropout("0.5"), "Dropout: rate must be a number in [0, 1), got '0.5' (a str; "
                               "write 0.5 without quotes)"),
    (lambda: compiled().fit(X, Y, batch_size=0, verbose=0),
     "fit: batch_size must be a positive integer or None, got 0 (an int)"),
    (lambda: compiled().fit(X, Y, batch_size="32", verbose=0),
     "fit: batch_size must be a positive integer or None, got '32' (a str; write 32 without "
     "quotes)"),
    (lambda: compiled().fit(X, Y, epochs=-1, verbose=0),
     "fit: epochs must be a positive integer, got -1 (an int)"),
    (lambda: compiled().fit(X, Y, epochs="2", verbose=0),
     "fit: epochs must be a positive integer, got '2' (a str; write 2 without quotes)"),
    (lambda: compiled().fit(np.zeros((0, 2)), np.zeros((0, 1)), verbose=0),
     "fit: x holds no examples (arrays of length 0)"),
    (lambda: compiled().fit(["a", "b"], [1.0, 2.0], verbose=0),
     "fit: x holds single values such as 'a' where arrays of examples belong (a list passed "
     "as x stands for several inputs, one array each); for one input of several examples "
     "pass np.array(x)"),
    (lambda: ks.optimizers.Adam(learning_rate="0.001"),
     "Adam: learning_rate must be a number >= 0 or a LearningRateSchedule or a callable, got "
     "'0.001' (a str; write 0.001 without quotes)"),
    (lambda: ks.constant([[1, 2], [3]]),
     "cannot convert a ragged nested list to a tensor: value[1] has shape (1,) where value[0] "
     "has shape (2,); every row must have the same shape (pad them, e.g. with "
     "ks.utils.pad_sequences, or keep one tensor per row)"),
    (lambda: L.Dense(2)([[[1.0, 2.0]], [[3.0]]]),
     "cannot convert a ragged nested list to a tensor: value[1] has shape (1, 1) where "
     "value[0] has shape (1, 2);"),
    (lambda: L.Conv2D(4, 7, name="conv2d_misuse")(ks.Input((5, 5, 1))),
     "layer 'conv2d_misuse' (Conv2D): kernel_size (7, 7) does not fit in input shape "
     "(None, 5, 5, 1) with padding 'valid': the output would have spatial size (0, 0); use a "
     "smaller kernel_size, padding='same' or larger inputs"),
    # the same arguments elsewhere
    (lambda: L.Embedding(10.0, 3),
     "Embedding: input_dim must be a positive integer, got 10.0 (a float; pass 10)"),
    (lambda: L.LSTM(4.5), "LSTM: units must be a positive integer, got 4.5 (a float)"),
    (lambda: L.GRU(4, dropout=1), "GRU: dropout must be a number in [0, 1), got 1 (an int)"),
    (lambda: L.Conv2D(0, 3), "Conv2D: filters must be a positive integer, got 0 (an int)"),
    (lambda: L.Conv2D(4, (3, 3.0)),
     "Conv2D: kernel_size must be a positive integer or 2 of them, got (3, 3.0) (a tuple)"),
    (lambda: L.Conv1D(4, 3, strides=0),
     "Conv1D: strides must be a positive integer or 1 of them, got 0 (an int)"),
    (lambda: L.MaxPooling2D("2"), "MaxPooling2D: pool_size must be a positive integer or 2 of "
                                  "them, got '2' (a str; write 2 without quotes)"),
    (lambda: L.MaxPooling1D(7)(ks.Input((5, 1))),
     "(MaxPooling1D): pool_size (7,) does not fit in input shape (None, 5, 1)"),
    (lambda: L.MultiHeadAttention(2, key_dim=0),
     "MultiHeadAttention: key_dim must be a positive integer, got 0 (an int)"),
    (lambda: L.GaussianNoise(-0.1),
     "GaussianNoise: stddev must be a number >= 0, got -0.1 (a float)"),
    (lambda: L.BatchNormalization(momentum=1.5),
     "BatchNormalization: momentum must be a number in [0, 1], got 1.5 (a float)"),
    (lambda: L.RepeatVector(0), "RepeatVector: n must be a positive integer, got 0 (an int)"),
    (lambda: L.ReLU(max_value=float("nan")),
     "ReLU: max_value must be a number >= 0 or None, got nan (a float)"),
    (lambda: ks.optimizers.SGD(learning_rate=-0.1),
     "SGD: learning_rate must be a number >= 0 or a LearningRateSchedule or a callable, got "
     "-0.1 (a float)"),
    (lambda: ks.optimizers.SGD(momentum="0.9"),
     "SGD: momentum must be a number in [0, 1], got '0.9' (a str; write 0.9 without quotes)"),
    (lambda: ks.optimizers.Adam(beta_2=1.0),
     "Adam: beta_2 must be a number in [0, 1), got 1.0 (a float)"),
    (lambda: ks.optimizers.RMSprop(epsilon=float("inf")),
     "RMSprop: epsilon must be a number >= 0, got inf (a float)"),
    (lambda: ks.optimizers.Adagrad(clipnorm="1"),
     "Adagrad: clipnorm must be a number >= 0 or None, got '1' (a str; write 1 without quotes)"),
    (lambda: compiled().fit(X, Y, steps_per_epoch=0, verbose=0),
     "fit: steps_per_epoch must be a positive integer or None, got 0 (an int)"),
    (lambda: compiled().fit(X, Y, initial_epoch=-1, verbose=0),
     "fit: initial_epoch must be a non-negative integer, got -1 (an int)"),
    (lambda: compiled().fit(X, Y, validation_split=1.0, verbose=0),
     "fit: validation_split must be a number in [0, 1), got 1.0 (a float)"),
    (lambda: compiled().fit(X, Y, validation_data=(X, Y), validation_freq=0, verbose=0),
     "fit: validation_freq must be a positive integer or a list of epochs, got 0"),
    (lambda: compiled().fit(X, Y, validation_data=(X, Y), validation_batch_size=2.5, verbose=0),
     "fit: validation_batch_size must be a positive integer or None, got 2.5 (a float)"),
    (lambda: compiled().evaluate(X, Y, batch_size=-1),
     "evaluate: batch_size must be a positive integer or None, got -1 (an int)"),
    (lambda: compiled().predict(X, batch_size=1.5),
     "predict: batch_size must be a positive integer or None, got 1.5 (a float)"),
    (lambda: compiled().predict(np.zeros((0, 2))),
     "predict: x holds no examples (arrays of length 0)"),
])
def test_misuse_is_refused_at_the_call_with_what_was_given_and_what_is_allowed(call, message):
    with pytest.raises(ks.InvalidArgumentError) as info:
        call()
    assert message in str(info.value)


def test_integer_like_numpy_values_keep_working():
    model = ks.Sequential([ks.Input((np.int64(6),)), L.Dense(np.int64(3)),
                           L.Dropout(np.float32(0.25)), L.Dense(np.int32(1))])
    model.compile(ks.optimizers.Adam(np.float32(0.01), beta_1=np.float64(0.9)), "mse")
    history = model.fit(np.ones((np.int64(8), 6)), np.ones((8, 1)), batch_size=np.int64(4),
                        epochs=np.int64(2), verbose=0)
    assert len(history.history["loss"]) == 2
    assert L.Conv2D(np.int64(2), (np.int32(3), 3)).kernel_size == (3, 3)
    assert model.predict(np.ones((3, 6)), batch_size=np.uint8(2)).shape == (3, 1)
    optimizer = ks.optimizers.SGD(ks.constant(0.5))  # a scalar tensor, as Keras takes
    assert float(optimizer.learning_rate) == 0.5


def test_the_helpers_accept_exactly_what_they_say():
    assert arguments.integer(None, "n", "f", none=True) is None
    assert arguments.integer(0, "n", "f", minimum=0) == 0
    assert arguments.number(None, "x", "f", none=True) is None
    assert arguments.number(0, "x", "f", 0, 1, low_open=False) == 0.0
    for bad in (0, 2):
        with pytest.raises(ks.InvalidArgumentError) as info:
            arguments.number(bad, "x", "f", 0, 1, low_open=True)
        assert str(info.value) == f"f: x must be a number in (0, 1], got {bad} (an int)"
    with pytest.raises(ks.InvalidArgumentError, match=r"f: x must be a number < 1, got 1 "):
        arguments.number(1, "x", "f", high=1, high_open=True)
    with pytest.raises(ks.InvalidArgumentError, match=r"f: n must be an integer >= 2, got 1 "):
        arguments.integer(1, "n", "f", minimum=2)
    with pytest.raises(ks.InvalidArgumentError, match=r"got np.True_ \(a bool\)"):
        arguments.number(np.bool_(True), "x", "f")


def test_padding_cropping_and_groups_refuse_what_is_not_a_count():
    with pytest.raises(ks.InvalidArgumentError, match=r"ZeroPadding2D: padding must be a "
                                                      r"non-negative int.* got True"):
        ks.layers.ZeroPadding2D(True)
    with pytest.raises(ks.InvalidArgumentError, match=r"Cropping1D: cropping .* got \(1, False\)"):
        ks.layers.Cropping1D((1, False))
    with pytest.raises(ks.InvalidArgumentError, match="groups must be a positive integer or -1"):
        ks.layers.GroupNormalization(groups=0)
