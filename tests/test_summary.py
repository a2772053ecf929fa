"""Summaries read back with TensorBoard's own event reader and projector config parser."""

import io
import os
import subprocess
import sys
import warnings
import zlib

import numpy as np
import pytest

import kerasish as ks
from kerasish import summary as summary_module
from kerasish.core import global_step as global_step_module

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(logdir):
    acc = event_accumulator.EventAccumulator(
        str(logdir), size_guidance={event_accumulator.SCALARS: 0, event_accumulator.HISTOGRAMS: 0,
                                    event_accumulator.IMAGES: 0, event_accumulator.TENSORS: 0})
    acc.Reload()
    return acc


def scalars(logdir, tag):
    acc = load(logdir)
    if tag not in acc.Tags()["scalars"]:
        return []
    return [(e.step, e.value) for e in acc.Scalars(tag)]


def decode_png(data: bytes) -> np.ndarray:
    """A minimal PNG reader for our own (unfiltered, 8-bit) images."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        kind = data[pos + 4:pos + 8]
        chunks.setdefault(kind, b"")
        chunks[kind] += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    ihdr = chunks[b"IHDR"]
    width, height = int.from_bytes(ihdr[:4], "big"), int.from_bytes(ihdr[4:8], "big")
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[ihdr[9]]
    raw = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, -1)
    assert (raw[:, 0] == 0).all()
    return raw[:, 1:].reshape(height, width, channels)


@pytest.fixture
def writer(tmp_path):
    w = ks.summary.create_file_writer(tmp_path / "run")
    yield w
    w.close()


@pytest.fixture
def fresh_global_step(monkeypatch):
    monkeypatch.setattr(global_step_module, "_global_step", None)


# ---------------------------------------------------------------- each summary kind


def test_scalar(writer, tmp_path):
    with writer.as_default():
        for step in range(5):
            assert ks.summary.scalar("loss", 1.0 / (step + 1), step=step) is True
        ks.summary.scalar("tensor_value", ks.constant(2.5), step=7)
        ks.summary.scalar("numpy_value", np.array([[3.25]]), step=8)
        ks.summary.scalar("variable", ks.Variable(4.0), step=9)
    assert scalars(tmp_path / "run", "loss") == [(s, pytest.approx(1.0 / (s + 1)))
                                                 for s in range(5)]
    assert scalars(tmp_path / "run", "tensor_value") == [(7, 2.5)]
    assert scalars(tmp_path / "run", "numpy_value") == [(8, 3.25)]
    assert scalars(tmp_path / "run", "variable") == [(9, 4.0)]


def test_scalar_description_reaches_tensorboard(writer, tmp_path):
    from tensorboard.backend.event_processing import plugin_event_accumulator

    with writer.as_default(step=0):
        ks.summary.scalar("loss", 1.0, description="the *training* loss")
    acc = plugin_event_accumulator.EventAccumulator(str(tmp_path / "run"))
    acc.Reload()
    assert acc.SummaryMetadata("loss").summary_description == "the *training* loss"


def test_scalar_needs_one_value(writer):
    with writer.as_default(), pytest.raises(ks.InvalidArgumentError, match="one value"):
        ks.summary.scalar("loss", [1.0, 2.0], step=0)


def test_histogram(writer, tmp_path):
    data = np.arange(100, dtype=np.float32)
    with writer.as_default():
        assert ks.summary.histogram("weights", ks.constant(data), step=3)
        ks.summary.histogram("coarse", data, step=4, buckets=5)
    acc = load(tmp_path / "run")
    assert set(acc.Tags()["histograms"]) == {"weights", "coarse"}
    (event,) = acc.Histograms("weights")
    h = event.histogram_value
    assert event.step == 3
    assert (h.min, h.max, h.num, h.sum) == (0.0, 99.0, 100.0, 4950.0)
    assert h.sum_squares == pytest.approx(float((data.astype(np.float64) ** 2).sum()))
    assert sum(h.bucket) == 100
    assert len(h.bucket) <= summary_module.DEFAULT_HISTOGRAM_BINS + 2
    coarse = acc.Histograms("coarse")[0].histogram_value
    assert len(coarse.bucket) <= 7 and sum(coarse.bucket) == 100


def test_histogram_bad_data_is_a_clear_error(writer):
    with writer.as_default():
        with pytest.raises(ks.InvalidArgumentError, match="empty"):
            ks.summary.histogram("w", np.zeros(0), step=0)
        with pytest.raises(ks.InvalidArgumentError, match="2 of 3 values are NaN or infinite"):
            ks.summary.histogram("w", np.array([1.0, np.nan, np.inf]), step=0)


def image_samples(logdir, tag):
    """(every image tag, [(step, (width, height), [png bytes, ...]) per event of `tag`]), read
    through TensorBoard's own data provider: what its image plugin serves (one time series
    per tag, with a slider over the samples of each step)."""
    from tensorboard import context
    from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer

    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(str(logdir))
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, str(logdir))
    ctx = context.RequestContext()
    (tags,) = provider.list_blob_sequences(ctx, experiment_id="", plugin_name="images").values()
    (series,) = provider.read_blob_sequences(
        ctx, experiment_id="", plugin_name="images", downsample=1000).values()
    events = []
    for datum in series.get(tag, []):
        blobs = [provider.read_blob(ctx, blob_key=ref.blob_key) for ref in datum.values]
        events.append((datum.step, (int(blobs[0]), int(blobs[1])), blobs[2:]))
    return sorted(tags), events


def test_image_is_one_tag_with_a_sample_per_image(writer, tmp_path):
    rng = np.random.default_rng(0)
    floats = rng.uniform(-0.5, 1.5, size=(4, 5, 6, 3)).astype(np.float32)
    gray = rng.integers(0, 256, size=(2, 4, 3, 1), dtype=np.uint8)
    with writer.as_default():
        assert ks.summary.image("samples", floats, step=2, max_outputs=3)
        assert ks.summary.image("digit", gray, step=5, max_outputs=1)
    tags, samples = image_samples(tmp_path, "samples")
    assert tags == ["digit", "samples"]
    ((step, (width, height), pngs),) = samples
    assert (step, width, height, len(pngs)) == (2, 6, 5, 3)
    for i, png in enumerate(pngs):
        expected = (np.clip(floats[i], 0, 1) * 255.5).astype(np.uint8)
        np.testing.assert_array_equal(decode_png(png), expected)
    _, [(step, _, pngs)] = image_samples(tmp_path, "digit")
    assert step == 5 and len(pngs) == 1
    np.testing.assert_array_equal(decode_png(pngs[0]), gray[0])


def test_image_png_is_standard():
    pil = pytest.importorskip("PIL.Image")
    pixels = np.random.default_rng(1).integers(0, 256, size=(7, 9, 4), dtype=np.uint8)
    decoded = np.asarray(pil.open(io.BytesIO(summary_module.encode_png(pixels))))
    np.testing.assert_array_equal(decoded, pixels)


def test_image_needs_no_imaging_library(writer, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)  # `import PIL` now fails
    with writer.as_default():
        assert ks.summary.image("x", np.zeros((1, 2, 2, 3), np.float32), step=0)
    assert image_samples(tmp_path, "x")[0] == ["x"]


def test_image_bad_shape(writer):
    with writer.as_default(), pytest.raises(ks.InvalidArgumentError, match="NHWC"):
        ks.summary.image("x", np.zeros((2, 2, 3)), step=0)


def test_text(writer, tmp_path):
    with writer.as_default():
        assert ks.summary.text("notes", "hello *markdown*", step=1)
        ks.summary.text("notes", ks.constant(np.array(b"bytes in a tensor")), step=2)
    acc = load(tmp_path / "run")
    assert "notes/text_summary" in acc.Tags()["tensors"]
    events = acc.Tensors("notes/text_summary")
    assert [e.step for e in events] == [1, 2]
    assert [e.tensor_proto.string_val[0] for e in events] == [b"hello *markdown*",
                                                              b"bytes in a tensor"]


# ---------------------------------------------------------------- the projector


def projector_config(logdir):
    from google.protobuf import text_format
    from tensorboard.plugins.projector import projector_config_pb2

    config = projector_config_pb2.ProjectorConfig()
    with open(os.path.join(logdir, "projector_config.pbtxt")) as f:
        text_format.Parse(f.read(), config)
    return config


def test_embedding_single_column_metadata(writer, tmp_path):
    logdir = tmp_path / "run"
    matrix = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    labels = ["the", "of", "and", "tab\there", "new\nline"]
    with writer.as_default():
        assert ks.summary.embedding(ks.constant(matrix), metadata=labels, tag="words", step=7)
    (entry,) = projector_config(logdir).embeddings
    assert entry.tensor_name == "words:00007"
    assert list(entry.tensor_shape) == [5, 3]
    tensors = np.loadtxt(logdir / entry.tensor_path, delimiter="\t", dtype=np.float32)
    np.testing.assert_array_equal(tensors, matrix)  # float32 exactly
    lines = (logdir / entry.metadata_path).read_text(encoding="utf-8").splitlines()
    assert lines == ["the", "of", "and", "tab here", "new line"]  # no header for one column


def test_embedding_multi_column_metadata_with_header(writer, tmp_path):
    logdir = tmp_path / "run"
    matrix = np.eye(3, dtype=np.float32)
    rows = [["cat", 10], ["dog", 7], ["ému", 1]]
    with writer.as_default():
        ks.summary.embedding(matrix, metadata=rows, metadata_header=["word", "count"],
                             tag="vocab", step=0)
    (entry,) = projector_config(logdir).embeddings
    lines = (logdir / entry.metadata_path).read_text(encoding="utf-8").splitlines()
    assert lines == ["word\tcount", "cat\t10", "dog\t7", "ému\t1"]
    with writer.as_default():
        with pytest.raises(ks.InvalidArgumentError, match="needs metadata_header"):
            ks.summary.embedding(matrix, metadata=rows, tag="v2", step=0)
        with pytest.raises(ks.InvalidArgumentError, match="row 1 has 1 columns"):
            ks.summary.embedding(matrix, metadata=[["a", 1], ["b"], ["c", 3]],
                                 metadata_header=["w", "n"], tag="v3", step=0)
        with pytest.raises(ks.InvalidArgumentError, match="2 metadata rows for 3 vectors"):
            ks.summary.embedding(matrix, metadata=["a", "b"], tag="v4", step=0)


def test_embedding_entries_accumulate_and_replace(writer, tmp_path):
    logdir = tmp_path / "run"
    with writer.as_default():
        ks.summary.embedding(np.zeros((2, 2)), tag="a", step=1)
        ks.summary.embedding(np.ones((3, 2)), tag="b", step=1)
        ks.summary.embedding(np.full((4, 2), 2.0), tag="a", step=1)  # same tag and step: replaced
        ks.summary.embedding(np.zeros((2, 2)), tag="a", step=2)
    entries = {e.tensor_name: e for e in projector_config(logdir).embeddings}
    assert sorted(entries) == ["a:00001", "a:00002", "b:00001"]
    assert list(entries["a:00001"].tensor_shape) == [4, 2]
    assert not entries["b:00001"].metadata_path  # no metadata given
    assert np.loadtxt(logdir / entries["a:00001"].tensor_path).shape == (4, 2)


def test_embedding_sprite(writer, tmp_path):
    logdir = tmp_path / "run"
    thumbs = np.random.default_rng(0).uniform(size=(5, 4, 4, 1)).astype(np.float32)
    with writer.as_default():
        ks.summary.embedding(np.zeros((5, 2)), label_img=thumbs, tag="img", step=0)
    (entry,) = projector_config(logdir).embeddings
    assert list(entry.sprite.single_image_dim) == [4, 4]
    sprite = decode_png((logdir / entry.sprite.image_path).read_bytes())
    assert sprite.shape == (12, 12, 3)  # 3 x 3 grid
    np.testing.assert_array_equal(sprite[4:8, 0:4, 0], (thumbs[3, ..., 0] * 255.5).astype(np.uint8))


# ---------------------------------------------------------------- steps and recording


def test_step_none_uses_the_global_step(writer, tmp_path, fresh_global_step):
    step = ks.get_or_create_global_step()
    step.assign(41)
    with writer.as_default():
        ks.summary.scalar("loss", 1.0)
        step.assign_add(1)
        ks.summary.scalar("loss", 2.0)
        ks.summary.histogram("h", [1.0, 2.0])
        ks.summary.text("t", "x")
    assert scalars(tmp_path / "run", "loss") == [(41, 1.0), (42, 2.0)]
    acc = load(tmp_path / "run")
    assert acc.Histograms("h")[0].step == 42
    assert acc.Tensors("t/text_summary")[0].step == 42


def test_default_step_from_as_default_and_set_step(writer, tmp_path, fresh_global_step):
    ks.get_or_create_global_step().assign(99)
    iterations = ks.Variable(5, trainable=False)
    assert ks.summary.experimental.get_step() is None
    with writer.as_default(step=iterations):
        assert ks.summary.experimental.get_step() is iterations
        ks.summary.scalar("loss", 1.0)
        iterations.assign_add(1)  # a variable is read at each write
        ks.summary.scalar("loss", 2.0)
        ks.summary.scalar("loss", 3.0, step=20)  # an explicit step wins
        with writer.as_default(step=7):
            ks.summary.image("img", np.zeros((2, 2, 2, 1)))
        assert ks.summary.experimental.get_step() is iterations  # restored after the block
    assert ks.summary.experimental.get_step() is None
    ks.summary.experimental.set_step(11)
    try:
        with writer.as_default():
            ks.summary.histogram("h", [1.0])
    finally:
        ks.summary.experimental.set_step(None)
    with writer.as_default():
        ks.summary.scalar("global", 0.0)  # no default step: the global step
    assert scalars(tmp_path / "run", "loss") == [(5, 1.0), (6, 2.0), (20, 3.0)]
    assert scalars(tmp_path / "run", "global") == [(99, 0.0)]
    assert load(tmp_path / "run").Histograms("h")[0].step == 11
    assert image_samples(tmp_path, "img")[1][0][0] == 7


def test_summary_flush_flushes_the_default_or_given_writer(tmp_path):
    writer = ks.summary.create_file_writer(tmp_path, max_queue=1000, flush_millis=10**9)
    with writer.as_default(step=1), ks.summary.record_if(True):
        ks.summary.scalar("x", 1.0)
        assert scalars(tmp_path, "x") == []
        ks.summary.flush()
        assert scalars(tmp_path, "x") == [(1, 1.0)]
    ks.summary.flush()  # no default writer now: nothing to do
    other = ks.summary.create_file_writer(tmp_path / "other", max_queue=1000,
                                          flush_millis=10**9)
    other.set_as_default()
    try:
        ks.summary.scalar("y", 2.0, step=2)
        ks.summary.flush(writer=other)
        assert scalars(tmp_path / "other", "y") == [(2, 2.0)]
    finally:
        other.close()
    writer.close()


def test_no_default_writer_returns_false_and_warns_once(monkeypatch):
    monkeypatch.setattr(summary_module, "_warned_no_writer", False)
    assert summary_module.get_default_writer() is None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert ks.summary.scalar("loss", 1.0, step=0) is False
        assert ks.summary.histogram("h", [1.0], step=0) is False
        assert ks.summary.image("i", np.zeros((1, 2, 2, 1)), step=0) is False
        assert ks.summary.text("t", "x", step=0) is False
        assert ks.summary.embedding(np.zeros((2, 2)), step=0) is False
    assert len(caught) == 1
    assert "no default writer" in str(caught[0].message)
    assert caught[0].filename == __file__  # points at the caller's line


class Explosive:
    """Data whose conversion would fail: a disabled summary must not touch it."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("converted although recording is off")

    def numpy(self):
        raise AssertionError("converted although recording is off")

    def __float__(self):
        raise AssertionError("converted although recording is off")

    def __len__(self):
        raise AssertionError("converted although recording is off")


def test_record_if_false_returns_false_without_converting(writer, tmp_path):
    with writer.as_default():
        with ks.summary.record_if(False):
            assert ks.summary.scalar("a", Explosive(), step=0) is False
            assert ks.summary.histogram("b", Explosive(), step=0) is False
            assert ks.summary.image("c", Explosive(), step=0) is False
            assert ks.summary.text("d", Explosive(), step=0) is False
            assert ks.summary.embedding(Explosive(), metadata=Explosive(), step=0) is False
            with ks.summary.record_if(True):
                assert ks.summary.scalar("inner", 1.0, step=0) is True
        with ks.summary.record_if(lambda: False):
            assert ks.summary.scalar("a", Explosive(), step=0) is False
        assert ks.summary.scalar("a", 3.0, step=1) is True
    assert scalars(tmp_path / "run", "a") == [(1, 3.0)]
    assert scalars(tmp_path / "run", "inner") == [(0, 1.0)]


def test_record_summaries_every_n_global_steps_as_in_the_seeds(tmp_path, fresh_global_step):
    logdir = str(tmp_path / "seeds")
    writer = ks.summary.create_file_writer(logdir)
    global_step = ks.get_or_create_global_step()  # return global step var
    writer.set_as_default()
    try:
        for i in range(350):
            global_step.assign_add(1)
            loss = 1000.0 - i
            # Must include a record_summaries method
            with ks.summary.record_summaries_every_n_global_steps(100):
                ks.summary.scalar('loss', loss)
        # with an explicit step variable
        other_step = ks.Variable(0, dtype=np.int64)
        for _ in range(10):
            other_step.assign_add(1)
            with ks.summary.record_summaries_every_n_global_steps(5, other_step):
                ks.summary.scalar('other', float(other_step), step=other_step)
    finally:
        writer.close()
    assert scalars(logdir, "loss") == [(100, 901.0), (200, 801.0), (300, 701.0)]
    assert scalars(logdir, "other") == [(5, 5.0), (10, 10.0)]
    assert summary_module.get_default_writer() is None  # close() made it stop being the default


def test_purge_step_hides_events_of_an_interrupted_run(tmp_path):
    logdir = tmp_path / "run"
    first = ks.summary.create_file_writer(logdir)
    with first.as_default():
        for step in range(10):
            ks.summary.scalar("loss", float(step), step=step)
    first.close()
    # resumed from a checkpoint taken at step 5, in the same second
    second = ks.summary.create_file_writer(logdir, purge_step=5)
    with second.as_default():
        for step in range(5, 8):
            ks.summary.scalar("loss", 100.0 + step, step=step)
    second.close()
    assert len(os.listdir(logdir)) == 2  # two files: the second writer did not clobber the first
    assert scalars(logdir, "loss") == [(0, 0.0), (1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0),
                                       (5, 105.0), (6, 106.0), (7, 107.0)]


def test_two_writers_in_one_second_keep_both_files(tmp_path):
    for i in range(12):
        w = ks.summary.create_file_writer(tmp_path)
        with w.as_default():
            ks.summary.scalar("x", float(i), step=i)
        w.close()
    assert [v for _, v in scalars(tmp_path, "x")] == [float(i) for i in range(12)]


# ---------------------------------------------------------------- writers


def test_flush_puts_events_in_the_file(tmp_path):
    writer = ks.summary.create_file_writer(tmp_path, max_queue=1000, flush_millis=10**9)
    with ks.summary.record_if(True):
        writer.set_as_default()
        for step in range(50):
            ks.summary.scalar("x", float(step), step=step)
            if step % 10 == 9:
                writer.flush()
                assert len(scalars(tmp_path, "x")) == step + 1
    writer.close()


def test_close_flushes_and_stops_being_default(tmp_path):
    writer = ks.summary.create_file_writer(tmp_path, max_queue=1000, flush_millis=10**9)
    writer.set_as_default()
    ks.summary.scalar("x", 1.0, step=0)
    writer.close()
    writer.close()  # twice is fine
    assert scalars(tmp_path, "x") == [(0, 1.0)]
    assert summary_module.get_default_writer() is None


def test_as_default_nesting_and_closing_inside_the_block(tmp_path):
    outer = ks.summary.create_file_writer(tmp_path / "outer")
    inner = ks.summary.create_file_writer(tmp_path / "inner")
    with outer.as_default():
        with inner.as_default():
            assert summary_module.get_default_writer() is inner
            ks.summary.scalar("x", 1.0, step=0)
            inner.close()  # closing inside its own block is fine
        assert summary_module.get_default_writer() is outer
        ks.summary.scalar("x", 2.0, step=0)
    assert summary_module.get_default_writer() is None
    outer.close()
    assert scalars(tmp_path / "inner", "x") == [(0, 1.0)]
    assert scalars(tmp_path / "outer", "x") == [(0, 2.0)]


def test_writers_flush_at_interpreter_exit(tmp_path):
    code = (
        "import kerasish as ks\n"
        f"w = ks.summary.create_file_writer({str(tmp_path)!r}, max_queue=1000, "
        "flush_millis=10**9)\n"
        "w.set_as_default()\n"
        "for i in range(3):\n"
        "    ks.summary.scalar('x', float(i), step=i)\n"
    )
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)
    assert scalars(tmp_path, "x") == [(0, 0.0), (1, 1.0), (2, 2.0)]


def test_importing_kerasish_does_not_import_tensorboardx():
    code = "import sys, kerasish; print('tensorboardX' in sys.modules)"
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60,
                         capture_output=True, text=True).stdout
    assert out.strip() == "False"


def test_fit_flushes_the_default_writer_at_every_epoch_end(tmp_path):
    logdir = tmp_path / "fit"
    writer = ks.summary.create_file_writer(logdir, max_queue=10**6, flush_millis=10**9)
    seen_at_epoch_begin = []

    class LogEveryBatch(ks.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            ks.summary.scalar("batch_loss", logs["loss"], step=int(self.model.optimizer.iterations))

        def on_epoch_begin(self, epoch, logs=None):
            seen_at_epoch_begin.append(len(scalars(logdir, "batch_loss")))

    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile(optimizer=ks.optimizers.SGD(0.01), loss="mse")
    x = np.random.default_rng(0).normal(size=(32, 2)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    writer.set_as_default()
    try:
        model.fit(x, y, batch_size=8, epochs=3, verbose=0, callbacks=[LogEveryBatch()])
        assert seen_at_epoch_begin == [0, 4, 8]  # on disk before the next epoch began
        assert len(scalars(logdir, "batch_loss")) == 12
    finally:
        writer.close()
