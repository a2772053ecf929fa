"""examples/keras_io/: the keras-io ports (mnist_convnet, vae, gan) each run with --quick on
Fashion-MNIST; skipped when the data set is not installed (`apt-get install
dataset-fashion-mnist`)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import kerasish as ks

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "keras_io"
pytestmark = pytest.mark.slow  # each example trains for several seconds


@pytest.fixture(scope="module", autouse=True)
def _fashion_mnist():
    try:
        ks.datasets.fashion_mnist.load_data(download=False)
    except Exception as exc:  # noqa: BLE001 - any reason the files cannot be read
        pytest.skip(f"Fashion-MNIST is not available offline: {exc}")


def _example(name: str):
    spec = importlib.util.spec_from_file_location(f"keras_io_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def convnet(tmp_path_factory):
    """The mnist_convnet example run once with --quick: (its result, the saved file)."""
    path = tmp_path_factory.mktemp("convnet") / "convnet.keras"
    return _example("mnist_convnet").main(["--quick", "--save", str(path)]), path


def test_mnist_convnet_quick_learns_and_saves_a_model_that_loads(convnet):
    result, path = convnet
    assert result["accuracy"] > 0.3  # 10 classes; one epoch on 2,000 images
    loaded = ks.models.load_model(path)
    assert [type(layer).__name__ for layer in loaded.layers][:2] == ["Conv2D", "MaxPooling2D"]
    loss, accuracy = loaded.evaluate(*_test_images(), verbose=0)  # the example's 500
    assert (loss, accuracy) == pytest.approx((result["loss"], result["accuracy"]), rel=1e-5)


def _test_images(count=500):
    (_, _), (x_test, y_test) = ks.datasets.fashion_mnist.load_data(download=False)
    images = np.expand_dims(x_test[:count], -1).astype(np.float32) / 255
    return images, ks.utils.to_categorical(y_test[:count], 10)


def test_mnist_convnet_file_loads_in_keras_with_the_same_predictions(convnet):
    keras = pytest.importorskip("keras")
    _, path = convnet
    images, _ = _test_images(64)
    np.testing.assert_allclose(keras.models.load_model(path).predict(images, verbose=0),
                               ks.models.load_model(path).predict(images), atol=1e-5)


def test_vae_quick_trains_and_reports_its_three_losses(capsys):
    logs = _example("vae").main(["--quick"])
    assert set(logs) == {"loss", "reconstruction_loss", "kl_loss"}
    assert logs["loss"] == pytest.approx(logs["reconstruction_loss"] + logs["kl_loss"], rel=1e-4)
    assert 0 < logs["loss"] < 28 * 28 * np.log(2)  # better than a coin per pixel
    out = capsys.readouterr().out
    assert "latent means by class" in out and "Ankle boot" in out


def test_gan_quick_saves_and_resumes_with_both_optimizers(tmp_path, capsys):
    example = _example("gan")
    path = str(tmp_path / "gan.keras")
    first = example.main(["--quick", "--save", path])
    assert set(first) == {"d_loss", "g_loss"} and all(np.isfinite(list(first.values())))
    example.main(["--quick", "--resume", path])
    out = capsys.readouterr().out
    assert "resumed from" in out and "8 steps done" in out and "gan: 16 steps" in out
