"""clscan.inclusive_by_key and exclusive_by_key against a segmented scan computed in numpy, segment by
segment: several key and value dtypes, in place and out of place, an operator with an initial value,
keys and values at equal and at different offsets into their buffers. Outputs are poisoned first and
compared bit for bit."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import clscan
from conftest import at_offset, needs_dtype, poison, sample

N = 100_003


def keys_in_runs(dtype, n, seed, longest=40):
    """Runs of equal keys (lengths 1 .. longest, the last one possibly cut) of a few values, so that
    equal keys also meet across a boundary they do not make."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 3, size=n)
    lengths = rng.integers(1, longest + 1, size=n)
    return np.repeat(values, lengths)[:n].astype(dtype)


def segmented(keys, x, kind, accumulate=np.add.accumulate, initial=None, identity=0):
    """The scan by key in numpy: each run of equal keys scanned on its own (its own accumulate call),
    starting from `initial` when given."""
    out = np.empty_like(x)
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    for start, end in zip(starts, np.append(starts[1:], x.size)):
        segment = x[start:end]
        if initial is not None:
            segment = np.concatenate(([x.dtype.type(initial)], segment))
        scanned = accumulate(segment, dtype=x.dtype)
        if initial is not None:
            out[start:end] = scanned[1:] if kind == "inclusive" else scanned[:-1]
        elif kind == "inclusive":
            out[start:end] = scanned
        else:
            out[start] = identity
            out[start + 1:end] = scanned[:-1]
    return out


def same_bits(actual, expected):
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("key_dtype, dtype", [(np.int32, np.int32), (np.int64, np.uint32)])
def test_sums(queue, key_dtype, dtype):
    """Inclusive and exclusive sums (wrapping around), out of place and in place, from the identity
    and from an initial value."""
    keys = keys_in_runs(key_dtype, N, seed=50)
    x = sample(dtype, N, seed=51)
    k = cla.to_device(queue, keys)
    a = cla.to_device(queue, x)
    out = cla.to_device(queue, poison(dtype, N + 3))
    event = clscan.exclusive_by_key(k, a, out[3:])
    assert isinstance(event, cl.Event)
    assert out.events[-1].int_ptr == event.int_ptr and k.events[-1].int_ptr == event.int_ptr
    event.wait()
    same_bits(out.get()[3:], segmented(keys, x, "exclusive"))
    same_bits(a.get(), x)  # out of place: the input is not modified
    clscan.inclusive_by_key(k, a, out[3:], initial=5).wait()
    same_bits(out.get()[3:], segmented(keys, x, "inclusive", initial=5))
    clscan.exclusive_by_key(k, a, out[3:], initial=5).wait()
    same_bits(out.get()[3:], segmented(keys, x, "exclusive", initial=5))
    same_bits(out.get()[:3], poison(dtype, 3))

    a = at_offset(queue, x, 3)
    clscan.inclusive_by_key(at_offset(queue, keys, 3), a).wait()  # in place
    same_bits(a.get(), segmented(keys, x, "inclusive"))


def test_max_by_float_keys(device, queue):
    """Another operator, with float64 keys (a NaN key is a segment of its own; -0.0 == 0.0) and
    values (small integers, so that the result is exact)."""
    needs_dtype(device, np.float64)
    keys = keys_in_runs(np.float64, N, seed=52)
    keys[200:206] = [np.nan, np.nan, -0.0, 0.0, 0.0, 1.0]
    x = sample(np.float64, N, seed=53)
    k = at_offset(queue, keys, 3)
    a = at_offset(queue, x, 3)
    out = cla.to_device(queue, poison(np.float64, N + 3))
    clscan.exclusive_by_key(k, a, out[3:], op="max", initial=5).wait()
    same_bits(out.get()[3:], segmented(keys, x, "exclusive", np.maximum.accumulate, initial=5))
    clscan.inclusive_by_key(k, a, out[3:], op="max", initial=5).wait()
    same_bits(out.get()[3:], segmented(keys, x, "inclusive", np.maximum.accumulate, initial=5))


# (key start, value start, in place): at the same offset the library reads keys and values there; at
# different offsets the call copies whichever is not at offset 0 first.
@pytest.mark.parametrize("key_start, value_start, in_place", [
    (3, 3, True), (3, 3, False), (4, 0, False), (0, 3, True), (0, 3, False), (2, 5, True), (2, 5, False)])
def test_offsets(queue, key_start, value_start, in_place):
    """Keys and values as slices of longer arrays; elements outside the slices are untouched."""
    keys = keys_in_runs(np.int32, N + 5, seed=54)
    x = sample(np.int32, N + 5, seed=55)
    k = cla.to_device(queue, keys)
    a = cla.to_device(queue, x)
    n = N
    expected_segment = segmented(keys[key_start:key_start + n], x[value_start:value_start + n],
                                 "inclusive")
    if in_place:
        clscan.inclusive_by_key(k[key_start:key_start + n], a[value_start:value_start + n]).wait()
        expected = x.copy()
        expected[value_start:value_start + n] = expected_segment
        same_bits(a.get(), expected)
    else:
        out = cla.to_device(queue, poison(np.int32, n + 6))
        clscan.inclusive_by_key(k[key_start:key_start + n], a[value_start:value_start + n],
                                out[3:3 + n]).wait()
        expected = poison(np.int32, n + 6)
        expected[3:3 + n] = expected_segment
        same_bits(out.get(), expected)
        same_bits(a.get(), x)
    same_bits(k.get(), keys)


def test_empty(queue):
    empty = cla.empty(queue, 0, np.int32)
    clscan.inclusive_by_key(cla.empty(queue, 0, np.int64), empty).wait()
    clscan.exclusive_by_key(empty, empty, cla.empty(queue, 0, np.int32)).wait()


def test_errors(queue):
    x = sample(np.int32, 1000, seed=56)
    a = cla.to_device(queue, x)
    keys = cla.to_device(queue, np.zeros(1000, np.int32))
    with pytest.raises(clscan.InvalidArgumentError, match="keys has 999 elements"):
        clscan.inclusive_by_key(keys[:999], a)
    with pytest.raises(clscan.InvalidArgumentError, match="keys has dtype int16"):
        clscan.inclusive_by_key(cla.zeros(queue, 1000, np.int16), a)
    with pytest.raises(clscan.InvalidArgumentError, match="overlap"):
        clscan.inclusive_by_key(a, a)  # in place over its own keys
    with pytest.raises(clscan.InvalidArgumentError, match="custom_identity"):
        clscan.exclusive_by_key(keys, a, custom_op="a * b")
    with pytest.raises(clscan.InvalidArgumentError, match="bitwise operators need an integer"):
        clscan.inclusive_by_key(keys, cla.to_device(queue, np.ones(1000, np.float32)), op="bit_or")
    with pytest.raises(TypeError, match="pyopencl.array.Array"):
        clscan.inclusive_by_key(np.zeros(1000, np.int32), a)
    np.testing.assert_array_equal(a.get(), x)
