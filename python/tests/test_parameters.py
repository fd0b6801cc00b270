"""Named parameters (parameters={...}) and key_equal against numpy: a threshold changed between calls
selects the new elements each time, a custom operator and key_equal read their parameters, and bad
names, bad values and a key_equal where no keys are compared are refused before anything runs."""

import numpy as np
import pyopencl.array as cla
import pytest

import clscan

N = 10_007


def test_threshold_changed_between_calls(queue):
    x = np.arange(N, dtype=np.float32) % 100
    a = cla.to_device(queue, x)
    for threshold in (np.float32(10.5), np.float32(90), np.float32(-1)):
        kept, count = clscan.select_if(a, "x > threshold", parameters={"threshold": threshold})
        assert count == np.count_nonzero(x > threshold)
        assert np.array_equal(kept.get(), x[x > threshold])


def test_python_numbers_and_numpy_scalars(queue):
    x = np.arange(N, dtype=np.int32) % 50
    a = cla.to_device(queue, x)
    # A Python int is a long, a numpy scalar keeps its type.
    kept, count = clscan.select_if(a, "x >= low && x < (int)high",
                                   parameters={"low": 7, "high": np.uint32(9)})
    assert count == np.count_nonzero((x >= 7) & (x < 9))
    assert np.array_equal(kept.get(), x[(x >= 7) & (x < 9)])


def test_custom_operator_reads_its_parameter(queue):
    m = 97
    x = (np.arange(N, dtype=np.uint32) * 7919) % m
    a = cla.to_device(queue, x)
    expected = np.cumsum(x.astype(np.uint64)) % m
    result = cla.empty_like(a)
    clscan.inclusive(a, result, custom_op="(a + b) % m", custom_identity=0,
                     parameters={"m": np.uint32(m)})
    assert np.array_equal(result.get(), expected.astype(np.uint32))
    total = clscan.reduce(a, custom_op="(a + b) % m", custom_identity=0, parameters={"m": np.uint32(m)})
    assert total == expected[-1]


@pytest.mark.parametrize("width", [16, 5])
def test_key_equal_by_key_and_unique(queue, width):
    keys = (np.arange(N) // 3).astype(np.int32)
    values = np.ones(N, dtype=np.int32)
    k = cla.to_device(queue, keys)
    v = cla.to_device(queue, values)
    out = cla.empty_like(v)
    clscan.inclusive_by_key(k, v, out, key_equal="a / w == b / w", parameters={"w": np.int32(width)})
    group = keys // width
    heads = np.concatenate(([True], group[1:] != group[:-1]))
    starts = np.maximum.accumulate(np.where(heads, np.arange(N), 0))
    assert np.array_equal(out.get(), (np.arange(N) - starts + 1).astype(np.int32))
    firsts, count = clscan.unique(k, key_equal="a / 16 == b / 16")
    grouped = keys // 16
    assert np.array_equal(firsts.get(), keys[np.concatenate(([True], grouped[1:] != grouped[:-1]))])
    assert count == len(np.unique(grouped))


@pytest.mark.parametrize("parameters, problem", [
    ({"x": 1}, "operands"),
    ({"1st": 1}, "not an identifier"),
    ({"int": 1}, "keywords and types"),
    ({"CLSCAN_WG": 1}, "clscan"),
    ({f"p{k}": 1 for k in range(9)}, "at most 8"),
])
def test_bad_names_are_refused(queue, parameters, problem):
    x = np.arange(100, dtype=np.int32)
    a = cla.to_device(queue, x)
    with pytest.raises(clscan.InvalidArgumentError, match=problem):
        clscan.select_if(a, "x > 0", parameters=parameters)
    with pytest.raises(clscan.InvalidArgumentError, match=problem):
        clscan.inclusive(a, cla.empty_like(a), parameters=parameters)
    assert np.array_equal(a.get(), x)


def test_bad_values_and_misplaced_key_equal(queue):
    a = cla.to_device(queue, np.arange(100, dtype=np.int32))
    with pytest.raises(TypeError, match="must be a dict"):
        clscan.select_if(a, "x > 0", parameters=[("t", 1)])
    with pytest.raises(TypeError, match="bool"):
        clscan.select_if(a, "x > t", parameters={"t": True})
    with pytest.raises(TypeError, match="must be a number"):
        clscan.select_if(a, "x > t", parameters={"t": "1"})
    with pytest.raises(clscan.InvalidArgumentError, match="does not fit"):
        clscan.select_if(a, "x > t", parameters={"t": 2**64})
    with pytest.raises(clscan.InvalidArgumentError, match="holds ';'"):
        clscan.inclusive_by_key(a, a, cla.empty_like(a), key_equal="a == b; b")


@pytest.mark.parametrize("threshold", [0.5, 0.25])
def test_transform_counts_past_a_threshold(queue, threshold):
    x = (np.arange(N, dtype=np.float32) * 31 % 1000) * np.float32(0.001)
    a = cla.to_device(queue, x)
    out = cla.empty_like(a)
    clscan.inclusive(a, out, transform="x > t ? 1.0f : 0.0f", parameters={"t": np.float32(threshold)})
    expected = np.cumsum(x > np.float32(threshold)).astype(np.float32)
    assert np.array_equal(out.get(), expected)
    ints = cla.to_device(queue, np.arange(N, dtype=np.int64) % 7)
    total = clscan.reduce(ints, transform="x * (long)(i % 3)")
    assert total == np.sum((np.arange(N) % 7) * (np.arange(N) % 3))


def test_transform_reads_ary_as_its_own_dtype(queue):
    # A uint32 count of positive float32 elements (out's dtype is the scan's), at an offset into both.
    x = np.where(np.arange(N) % 3 == 0, -1.5, 2.0).astype(np.float32)
    x[5] = np.nan
    a = cla.to_device(queue, x)
    counts = cla.to_device(queue, np.full(N + 1, 0xA5A5A5A5, dtype=np.uint32))
    clscan.inclusive(a[3:], counts[4:], transform="x > 0 ? 1 : 0")
    got = counts.get()
    assert np.array_equal(got[:4], np.full(4, 0xA5A5A5A5, dtype=np.uint32))
    assert np.array_equal(got[4:], np.cumsum(x[3:] > 0).astype(np.uint32))
    # int64 sums of int32 elements that overflow an int32, exclusive from an initial value, and reduce.
    big = (np.iinfo(np.int32).max - np.arange(N) % 1000).astype(np.int32)
    b = cla.to_device(queue, big)
    sums = cla.empty(queue, N, np.int64)
    clscan.exclusive(b, sums, transform="x", initial=5)
    assert np.array_equal(sums.get(), 5 + np.concatenate(([0], np.cumsum(big.astype(np.int64))[:-1])))
    total = clscan.reduce(b, transform="x", dtype=np.int64)
    assert total.dtype == np.int64 and total == np.sum(big.astype(np.int64))
    into = cla.empty(queue, 1, np.int64)
    clscan.reduce(b, into, transform="x").wait()
    assert into.get()[0] == np.sum(big.astype(np.int64))


def test_another_dtype_needs_a_transform_and_an_output(queue):
    a = cla.to_device(queue, np.arange(100, dtype=np.int32))
    with pytest.raises(clscan.InvalidArgumentError, match="or give a transform"):
        clscan.inclusive(a, cla.empty(queue, 100, np.int64))
    with pytest.raises(clscan.InvalidArgumentError, match="only a transform converts"):
        clscan.reduce(a, dtype=np.int64)
    with pytest.raises(clscan.InvalidArgumentError, match="out has dtype int32, the total int64"):
        clscan.reduce(a, cla.empty(queue, 1, np.int32), transform="x", dtype=np.int64)
    with pytest.raises(clscan.InvalidArgumentError, match="out has dtype int64, ary int32"):
        clscan.inclusive_by_key(a, a, cla.empty(queue, 100, np.int64))
    assert np.array_equal(a.get(), np.arange(100, dtype=np.int32))
