"""`ks.config` and `ks.backend`: Keras 3's settings, honoured where Keras honours them."""

import io

import numpy as np
import pytest

import kerasish as ks


@pytest.fixture
def float64():
    ks.config.set_floatx("float64")
    yield
    ks.config.set_floatx("float32")


def test_floatx_is_the_default_dtype_of_layers_inputs_and_random_draws(float64):
    dense = ks.layers.Dense(2)
    dense.build((None, 3))
    assert dense.dtype == np.float64 and dense.kernel.dtype == np.float64
    assert ks.Input((3,)).dtype == np.float64
    assert ks.random.normal([2]).dtype == np.float64
    assert ks.random.uniform([2], seed=ks.random.SeedGenerator(1)).dtype == np.float64
    assert ks.layers.Dense(2, dtype="float32").dtype == np.float32  # given: kept


def test_set_floatx_refuses_what_is_not_a_float_dtype():
    with pytest.raises(ValueError, match=r"set_floatx: expected one of .* got 'int32'"):
        ks.config.set_floatx("int32")
    with pytest.raises(ValueError, match="bfloat16 has no NumPy dtype"):
        ks.config.set_floatx("bfloat16")
    assert ks.config.floatx() == "float32"


def test_image_layout_is_channels_last_and_the_other_is_refused_by_name():
    assert ks.config.image_data_format() == ks.backend.image_data_format() == "channels_last"
    ks.config.set_image_data_format("channels_last")
    with pytest.raises(NotImplementedError, match="channels_last \\(NHWC\\) only"):
        ks.config.set_image_data_format("channels_first")
    with pytest.raises(ValueError, match="got 'nhwc'"):
        ks.config.set_image_data_format("nhwc")


def _fit(**kwargs):
    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile("sgd", "mse")
    return model.fit(np.ones((40, 2), np.float32), np.ones((40, 1), np.float32), batch_size=4,
                     **kwargs)


def test_max_epochs_and_max_steps_per_epoch_cap_fit():
    seen = []
    counter = ks.callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: seen.append(1))
    ks.config.set_max_epochs(2)
    ks.config.set_max_steps_per_epoch(3)
    try:
        history = _fit(epochs=5, verbose=0, callbacks=[counter])
    finally:
        ks.config.set_max_epochs(None)
        ks.config.set_max_steps_per_epoch(None)
    assert len(history.history["loss"]) == 2 and len(seen) == 6
    with pytest.raises(ValueError, match="set_max_epochs: expected a positive integer or None"):
        ks.config.set_max_epochs(0)


def test_without_interactive_logging_a_terminal_gets_one_line_per_epoch():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    ks.config.disable_interactive_logging()
    try:
        assert not ks.config.is_interactive_logging_enabled()
        assert not ks.callbacks.ProgbarLogger(verbose=1, stream=Terminal()).use_bar
    finally:
        ks.config.enable_interactive_logging()
    assert ks.callbacks.ProgbarLogger(verbose=1, stream=Terminal()).use_bar


def test_clear_session_restarts_names_and_the_random_streams():
    ks.random.set_seed(4)
    first = ks.random.normal([3]).numpy()
    ks.layers.Dense(1)
    ks.backend.clear_session()
    assert ks.layers.Dense(1).name == "dense"
    assert np.array_equal(ks.random.normal([3]).numpy(), first)
    assert ks.backend.get_uid("block") == 1 and ks.backend.get_uid("block") == 2


def test_dtype_helpers_name_dtypes_as_keras_does():
    standardize = ks.backend.standardize_dtype
    assert [standardize(d) for d in (None, float, int, bool, "float", np.float64, "int8")] == [
        "float32", "float32", "int64", "bool", "float32", "float64", "int8"]
    with pytest.raises(ValueError, match="names no dtype"):
        standardize("floaty")
    assert ks.backend.is_float_dtype("float16") and not ks.backend.is_float_dtype(int)
    assert ks.backend.is_int_dtype("uint8") and not ks.backend.is_int_dtype("bool")
    assert ks.backend.is_keras_tensor(ks.Input((2,)))
    assert not ks.backend.is_keras_tensor(ks.ones([2]))


def test_what_kerasish_does_not_have_is_said_not_ignored():
    assert ks.config.backend() == ks.backend.backend() == "numpy"
    ks.config.set_backend("numpy")
    with pytest.raises(ValueError, match="'jax' is not available"):
        ks.config.set_backend("jax")
    with pytest.raises(NotImplementedError, match="no flash-attention kernels"):
        ks.config.enable_flash_attention()
    with pytest.raises(NotImplementedError, match="shows whole tracebacks"):
        ks.config.enable_traceback_filtering()
    assert not ks.config.is_flash_attention_enabled()
    assert not ks.config.is_traceback_filtering_enabled() and not ks.config.is_nnx_enabled()


def test_keras_top_level_names():
    assert ks.Layer is ks.layers.Layer and ks.Loss is ks.losses.Loss
    assert ks.Metric is ks.metrics.Metric and ks.Optimizer is type(ks.optimizers.SGD()).__mro__[1]
    assert ks.Initializer is ks.initializers.Initializer
    assert ks.Regularizer is ks.regularizers.Regularizer
    assert isinstance(ks.Input((2,)), ks.KerasTensor) and ks.version() == ks.__version__
    with ks.device(device_name="/cpu:0"):
        assert ks.ones([1]).device == "/cpu:0"


def test_tensor_float_32_is_off_until_asked_for():
    assert not ks.config.experimental.tensor_float_32_execution_enabled()
    ks.config.experimental.enable_tensor_float_32_execution(True)
    try:
        assert ks.config.experimental.tensor_float_32_execution_enabled()
    finally:
        ks.config.experimental.enable_tensor_float_32_execution(False)


def test_list_physical_devices_reports_the_cpu_and_counts_gpus():
    cpus = ks.config.list_physical_devices("CPU")
    assert cpus == [ks.config.PhysicalDevice("/physical_device:CPU:0", "CPU")]
    gpus = ks.config.list_physical_devices("gpu")
    assert len(gpus) == ks.num_gpus()
    assert all(d.device_type == "GPU" for d in gpus)
    assert ks.config.list_physical_devices() == cpus + gpus


def test_list_physical_devices_rejects_unknown_types():
    with pytest.raises(ValueError, match=r"device_type must be 'CPU', 'GPU' or None, got 'TPU'"):
        ks.config.list_physical_devices("TPU")
