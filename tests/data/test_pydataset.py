"""Keras 3's `PyDataset`: fit, evaluate and predict take it; workers make batches ahead."""

import threading

import numpy as np
import pytest

import kerasish as ks


class Batches(ks.utils.PyDataset):
    def __init__(self, count=5, **kwargs):
        super().__init__(**kwargs)
        self.count, self.events, self.threads = count, [], set()
        rng = np.random.default_rng(0)
        self.x = rng.random((count, 4, 3)).astype(np.float32)
        self.y = self.x.sum(-1, keepdims=True)

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        self.threads.add(threading.current_thread().name)
        return self.x[index], self.y[index]

    def on_epoch_begin(self):
        self.events.append("begin")

    def on_epoch_end(self):
        self.events.append("end")


def _model():
    ks.random.set_seed(0)
    model = ks.Sequential([ks.layers.Dense(1)])
    model.build((None, 3))  # (its initial weights drawn now, from seed 0)
    model.compile(ks.optimizers.SGD(0.1), "mse")
    return model


def test_fit_takes_a_pydataset_and_workers_give_the_same_training():
    one, many = Batches(), Batches(workers=3, max_queue_size=2)
    a, b = _model(), _model()
    history = a.fit(one, epochs=2, verbose=0)
    b.fit(many, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert one.events == ["begin", "end", "begin", "end"]
    assert all(np.array_equal(u.numpy(), v.numpy()) for u, v in zip(a.weights, b.weights))
    assert any(name.startswith("PyDataset") for name in many.threads)  # made in workers
    assert one.threads == {threading.current_thread().name}


def test_evaluate_and_predict_take_a_pydataset():
    model = _model()
    data = Batches(count=2)
    assert np.isfinite(model.evaluate(data, verbose=0))
    assert model.predict(data, verbose=0).shape == (8, 1)


def test_a_subclass_without_super_init_gets_keras_defaults():
    class Plain(ks.utils.Sequence):  # (the older name)
        def __len__(self):
            return 1

        def __getitem__(self, index):
            return np.ones((2, 3), np.float32), np.ones((2, 1), np.float32)

    plain = Plain()
    assert (plain.workers, plain.max_queue_size, plain.use_multiprocessing) == (1, 10, False)
    _model().fit(plain, verbose=0)


def test_pydataset_arguments_are_checked():
    with pytest.raises(NotImplementedError, match="use_multiprocessing=True is not available"):
        Batches(use_multiprocessing=True)
    with pytest.raises(ks.InvalidArgumentError, match="PyDataset: workers must be a positive"):
        Batches(workers=0)
    # batch_size is ignored for a PyDataset, which batches itself (as in Keras)
    _model().fit(Batches(), batch_size=4, verbose=0)
    with pytest.raises(ks.InvalidArgumentError, match="y .the targets. must not be given when "
                                                      "x is a dataset"):
        _model().fit(Batches(), np.zeros(3), verbose=0)
