"""fit's batches over in-memory arrays: views in order, copies when shuffled."""

import numpy as np
import pytest

from kerasish.models import data_adapter


@pytest.mark.cpu  # views of host arrays: a GPU default copies the batches to the device
def test_unshuffled_batches_are_views_of_the_arrays_in_order():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int32)
    batches = list(data_adapter.ArrayBatches(x, y, batch_size=4))
    assert [len(xb.numpy()) for xb, _, _ in batches] == [4, 4, 2]
    for (xb, yb, wb), start in zip(batches, (0, 4, 8)):
        assert np.shares_memory(xb.numpy(), x) and np.shares_memory(yb.numpy(), y)
        np.testing.assert_array_equal(xb.numpy(), x[start:start + 4])
        np.testing.assert_array_equal(yb.numpy(), y[start:start + 4])
        assert wb is None


def test_shuffled_batches_are_copies_covering_every_example_once():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int32)
    batches = list(data_adapter.ArrayBatches(x, y, batch_size=4, shuffle=True))
    assert not any(np.shares_memory(xb.numpy(), x) for xb, _, _ in batches)
    seen = np.concatenate([yb.numpy() for _, yb, _ in batches])
    assert sorted(seen.tolist()) == list(range(10))
    for xb, yb, _ in batches:
        np.testing.assert_array_equal(xb.numpy(), x[yb.numpy()])
