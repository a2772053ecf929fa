"""ks.data.Dataset: sources, transformations, structures, shuffle semantics, fit integration."""

import collections

import numpy as np
import pytest

import kerasish as ks
from kerasish.data import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    TensorSpec,
)


def values(ds):
    """The elements of `ds` as nested Python lists (via as_numpy_iterator)."""

    def plain(x):
        if isinstance(x, tuple):
            return tuple(plain(v) for v in x)
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        return np.asarray(x).tolist()

    return [plain(e) for e in ds.as_numpy_iterator()]


def ints(ds):
    return [int(t) for t in ds]


def generator_of(items, calls=None):
    def gen():
        if calls is not None:
            calls.append(1)
        yield from items

    return gen


# ------------------------------------------------------------------ sources


def test_from_tensor_slices_yields_tensors_in_the_element_structure():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.array([0, 1, 0, 1])
    elements = list(Dataset.from_tensor_slices((x, y)))
    assert len(elements) == 4
    first_x, first_y = elements[0]
    assert isinstance(first_x, ks.Tensor) and isinstance(first_y, ks.Tensor)
    assert first_x.shape == (3,) and first_x.dtype == np.float32
    assert first_y.shape == () and first_y.dtype == y.dtype
    np.testing.assert_array_equal(elements[2][0].numpy(), x[2])


def test_from_tensor_slices_dicts_nested_structures_and_namedtuples():
    Pair = collections.namedtuple("Pair", "a b")
    data = {
        "image": np.zeros((3, 2, 2), np.uint8),
        "meta": (np.arange(3), Pair(np.ones(3), np.arange(3.0))),
    }
    first = next(iter(Dataset.from_tensor_slices(data)))
    assert set(first) == {"image", "meta"}
    assert first["image"].shape == (2, 2)
    assert isinstance(first["meta"], tuple) and isinstance(first["meta"][1], Pair)
    assert float(first["meta"][1].a) == 1.0
    assert values(Dataset.from_tensor_slices(data).map(lambda d: d["meta"][0])) == [0, 1, 2]


def test_from_tensor_slices_treats_a_list_as_one_tensor_with_tf_dtypes():
    ds = Dataset.from_tensor_slices([1, 2, 3])
    assert ds.element_spec == TensorSpec((), "int32")
    assert values(Dataset.from_tensor_slices([[1.5, 2.0], [3.0, 4.0]])) == [[1.5, 2.0], [3.0, 4.0]]
    assert Dataset.from_tensor_slices([[1.5, 2.0]]).element_spec.dtype == np.float32


def test_from_tensor_slices_reports_unequal_lengths_naming_both():
    with pytest.raises(ValueError) as info:
        Dataset.from_tensor_slices((np.zeros(100), np.zeros(99)))
    message = str(info.value)
    assert "100" in message and "99" in message and "[0]" in message and "[1]" in message
    with pytest.raises(ValueError, match=r"\['y'\] has 4"):
        Dataset.from_tensor_slices({"x": np.zeros(5), "y": np.zeros(4)})
    with pytest.raises(ValueError, match="scalar"):
        Dataset.from_tensor_slices(np.float32(3.0))


@pytest.mark.cpu
def test_from_tensor_slices_accepts_tensors_and_keeps_the_source_read_only():
    x = np.arange(6.0, dtype=np.float32)
    ds = Dataset.from_tensor_slices(ks.constant([1.0, 2.0]))
    assert values(ds) == [1.0, 2.0]
    batch = next(iter(Dataset.from_tensor_slices(x).batch(3)))
    with pytest.raises(ValueError):
        np.asarray(batch)[0] = 99.0  # a view of the source: writing back is refused
    assert x[0] == 0.0
    x[1] = 7.0  # the caller's own array stays writable
    assert x[1] == 7.0


def test_from_tensors_is_one_element():
    ds = Dataset.from_tensors((np.arange(3), 5.0))
    assert len(ds) == 1 and ds.cardinality() == 1
    assert values(ds) == [([0, 1, 2], 5.0)]
    assert ds.element_spec == (TensorSpec((3,), "int64"), TensorSpec((), "float32"))


def test_range_like_python_range_as_int64():
    assert ints(Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert ints(Dataset.range(2, 11, 3)) == [2, 5, 8]
    assert ints(Dataset.range(5, 0, -2)) == [5, 3, 1]
    assert next(iter(Dataset.range(3))).dtype == np.int64
    assert len(Dataset.range(2, 11, 3)) == 3
    assert values(Dataset.range(1, 20, 4).batch(2)) == [[1, 5], [9, 13], [17]]
    assert Dataset.range(3, dtype="int32").element_spec == TensorSpec((), "int32")


def test_from_generator_calls_the_function_again_for_every_pass():
    calls = []
    ds = Dataset.from_generator(generator_of([1, 2, 3], calls))
    assert ints(ds) == [1, 2, 3]
    assert ints(ds) == [1, 2, 3]
    assert len(calls) == 2
    assert ds.cardinality() == UNKNOWN_CARDINALITY
    with pytest.raises(TypeError, match="unknown"):
        len(ds)
    assert bool(ds)


def test_from_generator_with_output_signature_converts_and_checks():
    def gen():
        yield 1, [0.5, 1.5]
        yield 2, [2.5, 3.5]

    signature = (TensorSpec((), "int64"), TensorSpec((None,), "float32"))
    ds = Dataset.from_generator(gen, output_signature=signature)
    first = next(iter(ds))
    assert first[0].dtype == np.int64 and first[1].dtype == np.float32
    assert ds.element_spec == signature

    bad_shape = Dataset.from_generator(
        gen, output_signature=(TensorSpec((), "int64"), TensorSpec((3,), "float32"))
    )
    with pytest.raises(ValueError, match=r"element 0\[1\].*\(2,\).*\(3,\)"):
        list(bad_shape)
    bad_type = Dataset.from_generator(
        gen, output_signature=(TensorSpec((), "int64"), TensorSpec((2,), "int32"))
    )
    with pytest.raises(TypeError, match="float64.*int32"):
        list(bad_type)
    bad_structure = Dataset.from_generator(gen, output_signature=TensorSpec((), "int64"))
    with pytest.raises((TypeError, ValueError)):
        list(bad_structure)


def test_from_generator_output_types_shapes_args_and_dicts():
    def gen(n, scale):
        for i in range(n):
            yield {"x": [i * scale] * 2, "y": i}

    ds = Dataset.from_generator(
        gen,
        output_types={"x": "float32", "y": "int32"},
        output_shapes={"x": (2,), "y": ()},
        args=(3, 2.0),
    )
    assert values(ds) == [
        {"x": [0.0, 0.0], "y": 0},
        {"x": [2.0, 2.0], "y": 1},
        {"x": [4.0, 4.0], "y": 2},
    ]
    assert ds.element_spec == {"x": TensorSpec((2,), "float32"), "y": TensorSpec((), "int32")}


def test_from_generator_refuses_a_generator_object_and_learns_the_spec_from_one_element():
    def gen():
        yield np.zeros((2, 3), np.float32)

    with pytest.raises(TypeError, match=r"from_generator\(gen\), not from_generator\(gen\(\)\)"):
        Dataset.from_generator(gen())
    assert Dataset.from_generator(gen).element_spec == TensorSpec((2, 3), "float32")


# ------------------------------------------------------------------ shuffle


def test_shuffle_is_a_permutation_and_reproducible_from_the_global_seed():
    ks.random.set_seed(42)
    a = ints(Dataset.range(100).shuffle(100))
    ks.random.set_seed(42)
    b = ints(Dataset.range(100).shuffle(100))
    ks.random.set_seed(43)
    c = ints(Dataset.range(100).shuffle(100))
    assert sorted(a) == list(range(100)) and a != list(range(100))
    assert a == b and a != c


def test_shuffle_with_an_explicit_seed_and_per_iteration_reshuffling():
    ds = Dataset.range(50).shuffle(50, seed=7)
    first, second = ints(ds), ints(ds)
    assert first != second and sorted(first) == sorted(second)
    assert ints(Dataset.range(50).shuffle(50, seed=7)) == first  # same seed, same sequence
    assert ints(Dataset.range(50).shuffle(50, seed=8)) != first
    fixed = Dataset.range(50).shuffle(50, seed=7, reshuffle_each_iteration=False)
    assert ints(fixed) == ints(fixed)


def test_shuffle_does_not_shift_other_random_values():
    ks.random.set_seed(3)
    expected = ks.random.normal((4,)).numpy()
    ks.random.set_seed(3)
    Dataset.range(10).shuffle(10)
    np.testing.assert_array_equal(ks.random.normal((4,)).numpy(), expected)


def test_shuffle_uses_a_real_buffer_of_the_given_size():
    n, buffer = 1000, 10
    order = ints(Dataset.range(n).shuffle(buffer, seed=1))
    assert sorted(order) == list(range(n))
    for position, value in enumerate(order):
        # the element produced at step t was read by then: index <= t + buffer - 1
        assert value <= position + buffer - 1
    assert max(abs(v - p) for p, v in enumerate(order[:900])) < 200  # only local mixing
    assert ints(Dataset.range(20).shuffle(1)) == list(range(20))  # a buffer of one changes nothing
    full = ints(Dataset.range(n).shuffle(n, seed=1))
    assert max(abs(v - p) for p, v in enumerate(full)) > 500  # a full buffer mixes globally


def test_shuffle_on_array_slices_matches_the_element_by_element_buffer():
    for buffer in (1, 3, 16, 64, 200):
        fast = Dataset.range(150).shuffle(buffer, seed=buffer)
        slow = Dataset.range(150).map(lambda t: t).shuffle(buffer, seed=buffer)
        assert ints(fast) == ints(slow), buffer
        fast_batches = [
            b.numpy().tolist() for b in Dataset.range(150).shuffle(buffer, seed=buffer).batch(7)
        ]
        slow_order = ints(Dataset.range(150).map(lambda t: t).shuffle(buffer, seed=buffer))
        assert sum(fast_batches, []) == slow_order


def test_shuffle_before_repeat_reshuffles_each_epoch_and_after_repeat_mixes_epochs():
    epochs = ints(Dataset.range(10).shuffle(10, seed=5).repeat(3))
    chunks = [epochs[i : i + 10] for i in range(0, 30, 10)]
    assert all(sorted(c) == list(range(10)) for c in chunks)
    assert chunks[0] != chunks[1] or chunks[1] != chunks[2]
    mixed = ints(Dataset.range(10).repeat(3).shuffle(30, seed=5))
    assert sorted(mixed) == sorted(list(range(10)) * 3)
    assert any(sorted(mixed[i : i + 10]) != list(range(10)) for i in (0, 10))


def test_shuffle_rejects_bad_buffer_sizes():
    with pytest.raises(ValueError, match="buffer_size"):
        Dataset.range(3).shuffle(0)
    with pytest.raises(ValueError, match="buffer_size"):
        Dataset.range(3).shuffle(AUTOTUNE)


# ------------------------------------------------------------------ batch, unbatch


def test_batch_on_array_slices_equals_batch_of_generated_elements():
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    y = np.arange(10)
    fast = Dataset.from_tensor_slices((x, y)).batch(4)
    slow = Dataset.from_generator(lambda: zip(x, y, strict=False)).batch(4)
    assert values(fast) == values(slow)
    shapes = [(a.shape, b.shape) for a, b in fast]
    assert shapes == [((4, 3), (4,)), ((4, 3), (4,)), ((2, 3), (2,))]
    assert len(fast) == 3
    dropped = Dataset.from_tensor_slices((x, y)).batch(4, drop_remainder=True)
    assert len(dropped) == 2 and len(list(dropped)) == 2
    assert dropped.element_spec == (TensorSpec((4, 3), "float32"), TensorSpec((4,), "int64"))
    assert fast.element_spec[0] == TensorSpec((None, 3), "float32")


def test_batch_crosses_epochs_and_chunks_after_repeat_take_skip():
    assert values(Dataset.range(5).repeat(2).batch(3)) == [[0, 1, 2], [3, 4, 0], [1, 2, 3], [4]]
    assert values(Dataset.range(10).skip(3).take(5).batch(2)) == [[3, 4], [5, 6], [7]]
    assert values(Dataset.range(10).shard(3, 1).batch(2)) == [[1, 4], [7]]
    slow = Dataset.range(5).map(lambda t: t).repeat(2).batch(3)
    assert values(slow) == [[0, 1, 2], [3, 4, 0], [1, 2, 3], [4]]


def test_batch_of_nested_dicts_and_bad_shapes():
    ds = Dataset.from_tensor_slices({"a": np.zeros((5, 2)), "b": (np.arange(5), np.ones(5))}).batch(
        2
    )
    first = next(iter(ds))
    assert first["a"].shape == (2, 2) and first["b"][0].shape == (2,)

    def ragged():
        yield np.zeros(2)
        yield np.zeros(3)

    with pytest.raises(ValueError, match=r"shape \(2,\).*shape \(3,\)"):
        list(Dataset.from_generator(ragged).batch(2))


def test_unbatch_inverts_batch():
    x = np.arange(14).reshape(7, 2)
    ds = Dataset.from_tensor_slices((x, np.arange(7))).batch(3).unbatch()
    assert values(ds) == values(Dataset.from_tensor_slices((x, np.arange(7))))
    assert ds.element_spec == (TensorSpec((2,), "int64"), TensorSpec((), "int64"))
    with pytest.raises(ValueError, match="scalar"):
        list(Dataset.range(3).unbatch())


# ------------------------------------------------------------------ other transformations


def test_repeat_take_skip_and_their_cardinality():
    ds = Dataset.range(3)
    assert ints(ds.repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert ds.repeat(2).cardinality() == 6
    forever = ds.repeat()
    assert forever.cardinality() == INFINITE_CARDINALITY
    with pytest.raises(TypeError, match="infinite"):
        len(forever)
    assert ints(forever.take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert forever.take(7).cardinality() == 7
    assert ints(ds.skip(1)) == [1, 2] and ints(ds.skip(-1)) == [] and ints(ds.take(-1)) == [0, 1, 2]
    assert ds.skip(5).cardinality() == 0 and ds.take(0).cardinality() == 0
    assert ints(Dataset.range(0).repeat()) == []  # an empty pass ends the repetition


def test_take_does_not_pull_more_elements_than_it_needs():
    pulled = []

    def gen():
        for i in range(100):
            pulled.append(i)
            yield i

    assert ints(Dataset.from_generator(gen).take(3)) == [0, 1, 2]
    assert pulled == [0, 1, 2]
    pulled.clear()
    assert ints(Dataset.from_generator(gen).repeat().take(2)) == [0, 1]
    assert pulled == [0, 1]


def test_map_passes_tuple_components_as_arguments_and_dicts_whole():
    pairs = Dataset.from_tensor_slices((np.arange(3), np.arange(3) * 10))
    assert values(pairs.map(lambda a, b: a + b)) == [0, 11, 22]
    assert values(pairs.map(lambda a, b: [b, a])) == [(0, 0), (10, 1), (20, 2)]  # list -> tuple
    dicts = Dataset.from_tensor_slices({"a": np.arange(2), "b": np.ones(2)})
    assert values(dicts.map(lambda d: d["a"] * 2)) == [0, 2]
    assert values(Dataset.range(2).map(lambda t: {"v": t, "sq": t * t})) == [
        {"v": 0, "sq": 0},
        {"v": 1, "sq": 1},
    ]
    assert values(Dataset.range(2).map(lambda t: float(t) + 0.5)) == [0.5, 1.5]
    with pytest.raises(TypeError, match="None"):
        list(Dataset.range(2).map(lambda t: None))
    assert pairs.map(lambda a, b: (ks.cast(a, "float32"), b)).element_spec == (
        TensorSpec((), "float32"),
        TensorSpec((), "int64"),
    )


def test_map_and_iteration_are_not_recorded_on_a_gradient_tape():
    v = ks.Variable(2.0)
    ds = Dataset.from_tensor_slices(np.arange(3, dtype=np.float32)).map(lambda t: t * v)
    with ks.GradientTape() as tape:
        element = next(iter(ds))
        y = element * v
    grad = tape.gradient(y, v)
    assert float(grad) == pytest.approx(float(element))  # only y = element * v, element is constant
    with ks.GradientTape() as tape:
        out = next(iter(ds))
    assert tape.gradient(out, v) is None


def test_filter_flat_map_apply():
    ds = Dataset.range(10)
    assert ints(ds.filter(lambda t: t % 3 == 0)) == [0, 3, 6, 9]
    assert ds.filter(lambda t: t > 2).cardinality() == UNKNOWN_CARDINALITY
    with pytest.raises(TypeError, match="scalar boolean"):
        list(ds.filter(lambda t: t))
    pairs = Dataset.from_tensor_slices((np.arange(4), np.arange(4)))
    assert values(pairs.filter(lambda a, b: a + b > 4)) == [(3, 3)]
    assert ints(Dataset.range(3).flat_map(lambda t: Dataset.range(int(t)))) == [0, 0, 1]
    assert ints(ds.apply(lambda d: d.take(2))) == [0, 1]


def test_cache_replays_a_complete_pass_only():
    calls = []
    ds = Dataset.from_generator(generator_of([1, 2, 3], calls)).cache()
    for _element in ds:
        break  # a partial pass is not cached
    assert ints(ds) == [1, 2, 3]
    assert ints(ds) == [1, 2, 3]
    assert len(calls) == 2
    shuffled = Dataset.range(20).shuffle(20, seed=2).cache()
    assert ints(shuffled) == ints(shuffled)  # shuffle before cache: one order, replayed
    with pytest.raises(NotImplementedError):
        Dataset.range(2).cache("file")


def test_enumerate_zip_concatenate():
    assert values(Dataset.range(3, 6).enumerate(start=10)) == [(10, 3), (11, 4), (12, 5)]
    a, b = Dataset.range(3), Dataset.range(10, 20)
    assert values(Dataset.zip((a, b))) == [(0, 10), (1, 11), (2, 12)]
    assert values(Dataset.zip(a, b)) == values(Dataset.zip((a, b)))
    assert values(Dataset.zip({"x": a, "y": (b, a)}))[1] == {"x": 1, "y": (11, 1)}
    assert Dataset.zip((a, b)).cardinality() == 3
    assert Dataset.zip((a.repeat(), b)).cardinality() == 10
    assert Dataset.zip((a, b)).element_spec == (TensorSpec((), "int64"), TensorSpec((), "int64"))
    with pytest.raises(TypeError, match="list"):
        Dataset.zip([a, b])
    assert ints(a.concatenate(b.take(2))) == [0, 1, 2, 10, 11]
    assert a.concatenate(b).cardinality() == 13
    with pytest.raises(TypeError, match="structure"):
        a.concatenate(Dataset.zip((a, b)))


def test_as_numpy_iterator_gives_numpy_values():
    element = next(Dataset.from_tensor_slices((np.ones((2, 3)), np.arange(2))).as_numpy_iterator())
    assert isinstance(element[0], np.ndarray) and element[0].shape == (3,)
    assert isinstance(element[1], np.integer)


def test_cardinality_and_len_through_a_pipeline():
    x = np.zeros((10, 2))
    ds = Dataset.from_tensor_slices(x).shuffle(10).batch(3).prefetch(1)
    assert len(ds) == 4 and ds.cardinality() == 4
    assert Dataset.from_tensor_slices(x).batch(3, drop_remainder=True).cardinality() == 3
    assert Dataset.from_tensor_slices(x).repeat().batch(3).cardinality() == INFINITE_CARDINALITY
    assert Dataset.range(10).shard(3, 0).cardinality() == 4
    assert Dataset.range(10).shard(3, 2).cardinality() == 3
    assert "TensorSpec(shape=(None, 2), dtype=float64)" in repr(
        Dataset.from_tensor_slices(x).batch(3)
    )


def test_elements_are_created_on_the_current_device():
    ds = Dataset.from_tensor_slices(np.arange(4.0)).batch(2).prefetch(1)
    with ks.device("/cpu:0"):
        assert all(b.device == "/cpu:0" for b in ds)


@pytest.mark.cpu
@pytest.mark.gpu
def test_elements_are_created_on_the_gpu_when_it_is_current():
    ds = Dataset.from_tensor_slices((np.arange(8.0), np.arange(8))).shuffle(8).batch(4)
    with ks.device("/gpu:0"):
        batches = (
            list(ds)
            + list(ds.prefetch(2))
            + list(ds.unbatch().map(lambda a, b: (a * 2, b)).batch(3))
        )
    assert all(t.device == "/gpu:0" for b in batches for t in b)
    assert all(t.device == "/cpu:0" for b in ds for t in b)


# ------------------------------------------------------------------ Model.fit


def test_fit_reiterates_a_dataset_every_epoch_and_uses_its_length():
    ks.clear_session()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    passes = []

    def counting(ds):
        return ds.map(lambda a, b: (passes.append(1), (a, b))[1])

    train = counting(Dataset.from_tensor_slices((x, y))).shuffle(64).batch(16).prefetch(2)
    seen = {}

    class Steps(ks.callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen["steps"] = self.params.get("steps")

    model = ks.Sequential([ks.layers.Dense(1)])
    model.compile("sgd", "mse")
    history = model.fit(train, epochs=4, verbose=0, callbacks=[Steps()])
    losses = history.history["loss"]
    assert len(losses) == 4 and losses[-1] < losses[0]
    assert len(passes) == 4 * 64  # every epoch went through the whole dataset again
    assert seen["steps"] == 4
    evaluation = model.evaluate(Dataset.from_tensor_slices((x, y)).batch(32), return_dict=True)
    assert evaluation["loss"] == pytest.approx(losses[-1], rel=0.5)
    predictions = model.predict(Dataset.from_tensor_slices(x).batch(10))
    assert predictions.shape == (64, 1)
    unknown = Dataset.from_generator(
        lambda: ((x[i : i + 16], y[i : i + 16]) for i in range(0, 64, 16))
    )
    assert len(model.fit(unknown, epochs=2, verbose=0).history["loss"]) == 2
