"""Dataset.prefetch: overlap, bounded look-ahead, error propagation, thread clean-up."""

import gc
import threading
import time
import traceback

import numpy as np
import pytest

from kerasish.data import AUTOTUNE, Dataset


def prefetch_threads():
    return [t for t in threading.enumerate() if t.name == "kerasish-data-prefetch"]


def wait_until(condition, timeout=60.0):
    """Poll `condition` until it holds; the timeout only bounds a failure (a loaded machine
    may take seconds to schedule a thread that is stopping)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


@pytest.fixture(autouse=True)
def no_leftover_threads():
    """No thread started during the test outlives it. Threads are compared by identity, not
    counted: other tests' background threads may end at any moment."""
    assert wait_until(lambda: not prefetch_threads())
    before = set(threading.enumerate())
    yield
    assert wait_until(lambda: not prefetch_threads()), "a prefetch thread outlived its test"
    assert wait_until(lambda: not set(threading.enumerate()) - before)


def test_prefetch_gives_the_same_elements():
    ds = Dataset.from_tensor_slices((np.arange(20), np.arange(20) * 2)).shuffle(20, seed=3).batch(6)
    expected = [
        b.numpy().tolist()
        for b, _ in Dataset.from_tensor_slices((np.arange(20), np.arange(20) * 2))
        .shuffle(20, seed=3)
        .batch(6)
    ]
    assert [b.numpy().tolist() for b, _ in ds.prefetch(2)] == expected
    assert [int(t) for t in Dataset.range(5).prefetch(AUTOTUNE)] == [0, 1, 2, 3, 4]
    assert [int(t) for t in Dataset.range(5).prefetch(0)] == [0, 1, 2, 3, 4]
    assert len(ds.prefetch(3)) == len(ds)


def test_producer_runs_ahead_by_the_buffer_size_and_no_further():
    produced = []

    def gen():
        for i in range(50):
            produced.append(i)
            yield i

    iterator = iter(Dataset.from_generator(gen).prefetch(3))
    assert int(next(iterator)) == 0
    # without further consumption the producer fills the queue: 1 taken + 3 queued (+1 in hand)
    assert wait_until(lambda: len(produced) >= 4)
    time.sleep(0.05)
    assert 4 <= len(produced) <= 5
    iterator.close()


def test_the_producer_works_while_the_consumer_holds_an_element():
    """Overlap, shown without timings: while the consumer holds element 0 and waits, the
    producer makes element 1 (it could not if it only ran when asked for an element)."""
    second_made = threading.Event()

    def source():
        yield 0
        second_made.set()
        yield 1

    for element in Dataset.from_generator(source).prefetch(1):
        if int(element) == 0:
            assert second_made.wait(60), "the producer did not run ahead of the consumer"


def test_producer_errors_reach_the_consumer_with_the_original_traceback():
    def failing_source():
        yield 1
        yield 2
        raise KeyError("broken record 3")

    received = []
    with pytest.raises(KeyError, match="broken record 3") as info:
        for element in Dataset.from_generator(failing_source).prefetch(2):
            received.append(int(element))
    assert received == [1, 2]
    frames = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert "failing_source" in frames


def test_errors_in_a_map_function_before_prefetch_propagate():
    def bad(t):
        if int(t) == 2:
            raise ValueError("cannot map 2")
        return t

    with pytest.raises(ValueError, match="cannot map 2"):
        list(Dataset.range(5).map(bad).batch(1).prefetch(1))


def test_break_stops_the_thread():
    forever = Dataset.from_generator(lambda: iter(range(10**9))).prefetch(4)
    for i, _ in enumerate(forever):
        assert len(prefetch_threads()) == 1
        if i == 3:
            break
    assert wait_until(lambda: not prefetch_threads())


def test_dropping_an_iterator_stops_the_thread_and_nested_prefetches_too():
    ds = Dataset.range(10**6).prefetch(2).map(lambda t: t * 2).batch(4).prefetch(2)
    iterator = iter(ds)
    assert next(iterator).numpy().tolist() == [0, 2, 4, 6]
    assert wait_until(lambda: len(prefetch_threads()) == 2)
    del iterator
    gc.collect()
    assert wait_until(lambda: not prefetch_threads())


def test_close_and_with_block_stop_the_thread():
    with iter(Dataset.range(100).prefetch(2)) as iterator:
        next(iterator)
        assert prefetch_threads()
    assert wait_until(lambda: not prefetch_threads())
    iterator = iter(Dataset.range(100).prefetch(2))
    iterator.close()
    with pytest.raises(StopIteration):
        next(iterator)


def test_exhausted_iteration_leaves_no_thread():
    for _ in range(3):
        assert len(list(Dataset.range(7).prefetch(2))) == 7
    assert wait_until(lambda: not prefetch_threads())
