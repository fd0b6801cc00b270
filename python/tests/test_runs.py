"""clscan.reduce_by_key, unique_by_key and run_length_encode against numpy: runs found as
x[1:] != x[:-1], sums with np.add.reduceat, lengths with np.diff; offsets (keys and values at
different ones, which the package copies), outputs poisoned first, count_out without waiting, and
empty arrays."""

import numpy as np
import pyopencl.array as cla
import pytest

import clscan
from conftest import at_offset, poison

N = 20_011


def runs(dtype, n, seed, longest=12):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, longest + 1, size=n)
    values = rng.integers(0, 4, size=n).astype(dtype)
    return np.repeat(values, lengths)[:n]


def heads(keys):
    return np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))


def same_bits(actual, expected):
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("key_dtype,value_dtype", [(np.int32, np.float32), (np.uint64, np.int64)])
def test_reduce_by_key(queue, key_dtype, value_dtype):
    k = runs(key_dtype, N, seed=1)
    v = np.random.default_rng(2).integers(0, 100, size=N).astype(value_dtype)
    first = heads(k)
    keys_out, sums, count = clscan.reduce_by_key(at_offset(queue, k, 1), at_offset(queue, v, 2))
    assert count == first.size
    same_bits(keys_out.get(), k[first])
    same_bits(sums.get(), np.add.reduceat(v, first).astype(value_dtype))

    _, maxima, count = clscan.reduce_by_key(cla.to_device(queue, k), cla.to_device(queue, v), op="max",
                                            initial=50, algorithm="three_stage")
    same_bits(maxima.get(), np.maximum(np.maximum.reduceat(v, first), value_dtype(50)).astype(value_dtype))


def test_unique_by_key_and_count_out(queue):
    k = runs(np.int64, N, seed=3)
    v = np.arange(N, dtype=np.int32)
    first = heads(k)
    keys_out = cla.to_device(queue, poison(np.int64, N))
    values_out = cla.to_device(queue, poison(np.int32, N))
    count_out = cla.zeros(queue, 1, np.uint64)
    ko, vo, event = clscan.unique_by_key(cla.to_device(queue, k), cla.to_device(queue, v), keys_out=keys_out,
                                         values_out=values_out, count_out=count_out)
    event.wait()
    count = int(count_out.get()[0])
    assert count == first.size and ko is keys_out and vo is values_out
    same_bits(keys_out.get()[:count], k[first])
    same_bits(values_out.get()[:count], v[first])
    same_bits(keys_out.get()[count:], poison(np.int64, N)[count:])  # nothing past the count written
    same_bits(values_out.get()[count:], poison(np.int32, N)[count:])


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_run_length_encode(queue, dtype):
    x = runs(np.float32, N, seed=4)
    first = heads(x)
    values, lengths, count = clscan.run_length_encode(at_offset(queue, x, 3), dtype=dtype)
    assert count == first.size and lengths.dtype == dtype
    same_bits(values.get(), x[first])
    same_bits(lengths.get(), np.diff(np.append(first, N)).astype(dtype))


def test_outputs_sized_for_the_result(queue):
    """Outputs smaller than the keys: the count counts every run, nothing past their end is written."""
    k = runs(np.int32, N, seed=5)
    v = np.arange(N, dtype=np.int32)
    first = heads(k)
    capacity = first.size // 2
    keys_out = cla.to_device(queue, poison(np.int32, capacity + 2))
    values_out = cla.to_device(queue, poison(np.int32, capacity + 2))
    ko, vo, count = clscan.unique_by_key(cla.to_device(queue, k), cla.to_device(queue, v),
                                         keys_out=keys_out[:capacity], values_out=values_out[:capacity])
    assert count == first.size and ko.size == capacity
    same_bits(keys_out.get()[:capacity], k[first][:capacity])
    same_bits(values_out.get()[:capacity], v[first][:capacity])
    same_bits(keys_out.get()[capacity:], poison(np.int32, 2))
    same_bits(values_out.get()[capacity:], poison(np.int32, 2))


def test_empty_and_errors(queue):
    empty = cla.empty(queue, 0, np.int32)
    keys_out, values_out, count = clscan.reduce_by_key(empty, empty)
    assert count == 0 and keys_out.size == 0 and values_out.size == 0
    a = cla.to_device(queue, np.arange(10, dtype=np.int32))
    with pytest.raises(clscan.InvalidArgumentError, match="uint32 or uint64"):
        clscan.run_length_encode(a, dtype=np.int32)
    with pytest.raises(clscan.InvalidArgumentError, match="overlap"):
        clscan.reduce_by_key(a, a, keys_out=a)
    with pytest.raises(clscan.InvalidArgumentError, match="values has 9 elements"):
        clscan.unique_by_key(a, a[1:])
