"""clscan.sort, clscan.argsort and clscan.sort_by_key against numpy's stable sort, bit for bit: every
dtype, keys with NaNs of both signs and two payloads, -0.0 and +0.0, infinities, denormals and many equal
keys (numpy's order: NaNs last in input order, -0.0 equal to +0.0); descending, bit ranges, offsets, in
place, empty and one-element arrays, and the arguments clscan refuses. Outputs are poisoned first."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import clscan
from conftest import DTYPES, at_offset, poison

N = 100_003


def keys(dtype, n, seed):
    """Random keys with many repeats (stability shows) and, for floating point, the special values."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        bits = np.dtype(f"u{dtype.itemsize}")
        x = rng.integers(0, np.iinfo(bits).max, size=n, dtype=bits, endpoint=True).view(dtype)
        x = np.where(np.isnan(x), dtype.type(1.5), x)  # random NaNs only where placed below
        sign = np.iinfo(bits).max ^ (np.iinfo(bits).max >> 1)
        exponent_bits = 11 if dtype.itemsize == 8 else 8
        quiet = (np.iinfo(bits).max >> 1) ^ (np.iinfo(bits).max >> (2 + exponent_bits))
        specials = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -2.0, np.finfo(dtype).tiny / 4,
                             -np.finfo(dtype).tiny / 2], dtype=dtype)
        pick = rng.integers(0, 12, size=n)
        x = np.where(pick < len(specials), specials[np.minimum(pick, len(specials) - 1)], x)
        nan_bits = np.array([quiet, quiet | 1, sign | quiet, sign | quiet | 3], dtype=bits)
        nans = rng.random(n) < 0.05
        x.view(bits)[nans] = nan_bits[rng.integers(0, 4, size=int(nans.sum()))]
        return x
    limits = np.iinfo(dtype)
    x = rng.integers(limits.min, limits.max, size=n, dtype=dtype, endpoint=True)
    few = rng.random(n) < 0.3
    x[few] = rng.integers(0, 5, size=int(few.sum())).astype(dtype)
    return x


def same_bits(actual, expected):
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))


def descending_order(x):
    """The stable order of x, largest first, NaNs last in input order, -0.0 equal to +0.0."""
    nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.size, bool)
    ranks = np.unique(x[~nan], return_inverse=True)[1]  # equal values (-0.0, +0.0) share a rank
    key = np.full(x.size, -1, np.int64)
    key[~nan] = ranks.max(initial=0) - ranks
    key[nan] = x.size + 1
    return np.argsort(key, kind="stable")


def image(x):
    """The order-preserving unsigned image of clscan/sort.hpp."""
    bits = x.view(f"u{x.dtype.itemsize}").copy()
    sign = bits.dtype.type(1) << bits.dtype.type(8 * x.dtype.itemsize - 1)
    if x.dtype.kind == "i":
        return bits ^ sign
    if x.dtype.kind == "u":
        return bits
    negative = (bits & sign) != 0
    bits[negative] = ~bits[negative]
    bits[~negative] |= sign
    bits[x == 0] = sign
    bits[np.isnan(x)] = np.iinfo(bits.dtype).max
    return bits


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_and_argsort_match_numpy(queue, dtype):
    x = keys(dtype, N, seed=70)  # float64 too without fp64: the sort moves bits
    a = cla.to_device(queue, x)
    s = clscan.sort(a)
    order = clscan.argsort(a)
    assert order.dtype == np.int64
    same_bits(s.get(), np.sort(x, kind="stable"))
    same_bits(order.get(), np.argsort(x, kind="stable"))
    same_bits(a.get(), x)  # the input is only read


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_descending(queue, dtype):
    x = keys(dtype, N, seed=71)
    expected = descending_order(x)
    a = cla.to_device(queue, x)
    same_bits(clscan.sort(a, descending=True).get(), x[expected])
    same_bits(clscan.argsort(a, descending=True, dtype=np.uint32).get(), expected.astype(np.uint32))


@pytest.mark.parametrize("key_dtype, value_dtype",
                         [(np.float32, np.int32), (np.uint32, np.float64), (np.int64, np.uint64),
                          (np.float64, np.float32), (np.int32, np.int64), (np.uint64, np.uint32)])
def test_sort_by_key(queue, key_dtype, value_dtype):
    k = keys(key_dtype, N, seed=72)
    v = keys(value_dtype, N, seed=73)
    order = np.argsort(k, kind="stable")
    kd, vd = cla.to_device(queue, k), cla.to_device(queue, v)
    sorted_keys, sorted_values = clscan.sort_by_key(kd, vd)
    same_bits(sorted_keys.get(), k[order])
    same_bits(sorted_values.get(), v[order])
    # In place, descending.
    expected = descending_order(k)
    clscan.sort_by_key(kd, vd, kd, vd, descending=True)
    same_bits(kd.get(), k[expected])
    same_bits(vd.get(), v[expected])


def test_in_place_offsets_and_guards(queue):
    """Slices that start inside their buffers (poisoned before and after): in place, and out of place
    into another slice; nothing outside the range is written."""
    x = keys(np.int32, N, seed=74)
    a = at_offset(queue, np.concatenate((x, poison(np.int32, 4))), 5)[:N]
    clscan.sort(a, out=a)
    same_bits(a.get(), np.sort(x, kind="stable"))
    b = at_offset(queue, x, 3)
    out = cla.to_device(queue, poison(np.int32, N + 10))
    clscan.sort(b, out=out[7:7 + N], descending=True)
    got = out.get()
    same_bits(got[7:7 + N], x[descending_order(x)])
    same_bits(np.concatenate((got[:7], got[7 + N:])), poison(np.int32, 10))
    indices = cla.to_device(queue, np.full(N + 2, -1, np.int64))
    clscan.argsort(b, out=indices[2:])
    same_bits(indices.get()[2:], np.argsort(x, kind="stable"))
    assert (indices.get()[:2] == -1).all()


@pytest.mark.parametrize("dtype, begin_bit, end_bit", [(np.uint32, 0, 12), (np.float32, 20, 32),
                                                       (np.int64, 8, 40), (np.int32, 16, 16)])
def test_bit_ranges(queue, dtype, begin_bit, end_bit):
    """Only bits [begin_bit, end_bit) of the key's image count; keys equal there keep their order."""
    x = keys(dtype, N, seed=75)
    width = end_bit - begin_bit
    digits = (image(x) >> np.uint64(begin_bit).astype(image(x).dtype)) & image(x).dtype.type(
        (1 << width) - 1 if width < 8 * x.dtype.itemsize else np.iinfo(image(x).dtype).max)
    order = np.argsort(digits, kind="stable")
    a = cla.to_device(queue, x)
    same_bits(clscan.sort(a, begin_bit=begin_bit, end_bit=end_bit).get(), x[order])
    same_bits(clscan.argsort(a, begin_bit=begin_bit, end_bit=end_bit).get(), order)


def test_small_and_multidimensional(queue):
    empty = cla.to_device(queue, np.zeros(0, np.float32))
    assert clscan.sort(empty).get().size == 0
    assert clscan.argsort(empty).get().size == 0
    one = cla.to_device(queue, np.array([np.nan], np.float32))
    same_bits(clscan.sort(one).get(), np.array([np.nan], np.float32))
    same_bits(clscan.argsort(one).get(), np.zeros(1, np.int64))
    x = keys(np.float64, 3 * 1001, seed=76).reshape(3, 1001)
    a = cla.to_device(queue, x)
    same_bits(clscan.sort(a, axis=None).get(), np.sort(x, axis=None, kind="stable"))
    same_bits(clscan.argsort(a, axis=None).get(), np.argsort(x, axis=None, kind="stable"))


def test_refused_arguments(queue):
    x = cla.to_device(queue, np.arange(10, dtype=np.int32))
    grid = cla.to_device(queue, np.zeros((2, 5), np.int32))
    with pytest.raises(clscan.InvalidArgumentError, match="axis=None"):
        clscan.sort(grid)
    with pytest.raises(clscan.InvalidArgumentError, match="bits"):
        clscan.sort(x, begin_bit=20, end_bit=10)
    with pytest.raises(clscan.InvalidArgumentError, match="bits"):
        clscan.argsort(x, end_bit=33)
    with pytest.raises(clscan.InvalidArgumentError, match="dtype"):
        clscan.sort(x, out=cla.empty(queue, 10, np.float32))
    with pytest.raises(clscan.InvalidArgumentError, match="dtype"):
        clscan.argsort(x, dtype=np.float32)
    with pytest.raises(clscan.InvalidArgumentError, match="elements"):
        clscan.sort_by_key(x, cla.empty(queue, 9, np.int32))
    with pytest.raises(TypeError):
        clscan.sort_by_key(x, np.arange(10))
    with pytest.raises(clscan.InvalidArgumentError, match="algorithm"):
        clscan.sort(x, algorithm="quick")
    assert (x.get() == np.arange(10)).all()
