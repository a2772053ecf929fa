"""Keras 3's callback arguments: SwapEMAWeights, RemoteMonitor, OrbaxCheckpoint (an error),
TensorBoard's write_*/profile_batch/embeddings_*, TerminateOnNaN(raise_error),
ModelCheckpoint(initial_value_threshold), CallbackList(add_history, add_progbar)."""

import http.server
import json
import os
import threading

import numpy as np
import pytest

import kerasish as ks

X = np.ones((8, 2), np.float32)
Y = np.ones((8, 1), np.float32)


def _model(**optimizer):
    model = ks.Sequential([ks.Input((2,)), ks.layers.Dense(1)])
    model.compile(ks.optimizers.SGD(0.1, **optimizer), "mse")
    return model


def test_swap_ema_weights_evaluates_with_the_averages_and_swaps_back():
    model = _model(use_ema=True, ema_momentum=0.5)
    model.fit(X, Y, epochs=1, batch_size=4, verbose=0)
    kernel = model.trainable_variables[0]
    trained = kernel.numpy().copy()
    average = model.optimizer.get_slot(kernel, "average").numpy().copy()
    seen = []
    probe = ks.callbacks.LambdaCallback()
    probe.on_test_batch_end = lambda batch, logs=None: seen.append(kernel.numpy().copy())
    model.evaluate(X, Y, verbose=0, callbacks=[ks.callbacks.SwapEMAWeights(), probe])
    np.testing.assert_array_equal(seen[0], average)
    np.testing.assert_array_equal(kernel.numpy(), trained)


def test_swap_ema_weights_needs_use_ema():
    model = _model()
    model.fit(X, Y, epochs=1, verbose=0)
    with pytest.raises(ValueError, match="set use_ema=True on it"):
        model.evaluate(X, Y, verbose=0, callbacks=[ks.callbacks.SwapEMAWeights()])


def test_swap_on_epoch_leaves_the_averages_in_the_model_at_the_end():
    model = _model(use_ema=True)
    model.fit(X, Y, epochs=2, batch_size=4, verbose=0,
              callbacks=[ks.callbacks.SwapEMAWeights(swap_on_epoch=True)])
    kernel = model.trainable_variables[0]
    np.testing.assert_array_equal(kernel.numpy(),
                                  model.optimizer.get_slot(kernel, "average").numpy())


def test_remote_monitor_posts_the_logs_and_warns_when_the_server_is_away():
    received = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.handle_request, daemon=True).start()
    root = f"http://127.0.0.1:{server.server_port}"
    monitor = ks.callbacks.RemoteMonitor(root=root, send_as_json=True)
    monitor.on_epoch_end(0, {"loss": np.float32(0.5)})
    server.server_close()
    assert json.loads(received[0]) == {"epoch": 0, "loss": 0.5}
    with pytest.warns(UserWarning, match="RemoteMonitor: could not reach the server"):
        monitor.on_epoch_end(1, {"loss": 0.25})


def test_orbax_checkpoint_says_why_it_is_not_there():
    with pytest.raises(NotImplementedError, match="needs the JAX backend"):
        ks.callbacks.OrbaxCheckpoint("ckpt")


def test_terminate_on_nan_can_raise():
    callback = ks.callbacks.TerminateOnNaN(raise_error=True)
    with pytest.raises(RuntimeError, match="batch 3 has the loss nan"):
        callback.on_train_batch_end(3, {"loss": float("nan")})


def test_model_checkpoint_initial_value_threshold(tmp_path):
    path = str(tmp_path / "w.weights.h5")
    save = ks.callbacks.ModelCheckpoint(path, monitor="loss", save_best_only=True,
                                        initial_value_threshold=1e-9)
    _model().fit(X, Y, epochs=2, verbose=0, callbacks=[save])
    assert not os.path.exists(path)  # no epoch beat the threshold


def test_tensorboard_arguments(tmp_path):
    model = ks.Sequential([ks.Input((3,), dtype="int32"), ks.layers.Embedding(5, 2),
                           ks.layers.Flatten(), ks.layers.Dense(1)])
    model.compile("sgd", "mse")
    metadata = tmp_path / "words.tsv"
    metadata.write_text("\n".join("abcde") + "\n")
    board = ks.callbacks.TensorBoard(str(tmp_path / "logs"), histogram_freq=1, write_images=True,
                                     write_steps_per_second=True, embeddings_freq=1,
                                     embeddings_metadata=str(metadata))
    model.fit(np.zeros((4, 3), np.int32), np.zeros((4, 1), np.float32), epochs=1, verbose=0,
              callbacks=[board])
    train = tmp_path / "logs" / "train"
    assert (train / "projector_config.pbtxt").exists()
    with pytest.raises(ValueError, match="cannot trace NumPy/CuPy training"):
        ks.callbacks.TensorBoard(profile_batch=2)


def test_callback_list_adds_history_and_progbar():
    callbacks = ks.callbacks.CallbackList(add_history=True, add_progbar=True,
                                          model=ks.Sequential(), epochs=1, verbose=0)
    kinds = [type(c).__name__ for c in callbacks.callbacks]
    assert kinds == ["ProgbarLogger", "History"]
    assert callbacks.callbacks[1].params == {"epochs": 1, "verbose": 0}
