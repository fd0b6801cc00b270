"""Results of clscan.inclusive and clscan.exclusive against numpy, for every dtype, in place and out of
place, at offsets, with each operator and an initial value. Integer results (and floating-point ones
of integer-valued data) are compared exactly; outputs are poisoned first so unwritten elements show."""

import numpy as np
import pyopencl.array as cla
import pytest

import clscan
from conftest import DTYPES, exclusive_sum, needs_dtype, poison, sample

# Several tiles and recursion levels of clscan's scans, and not a multiple of any tile or vector width.
N = 100_003


@pytest.mark.parametrize("dtype", DTYPES)
def test_inclusive_in_place(device, queue, dtype):
    needs_dtype(device, dtype)
    x = sample(dtype, N)
    a = cla.to_device(queue, x)
    event = clscan.inclusive(a)
    event.wait()
    np.testing.assert_array_equal(a.get(), np.cumsum(x, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_exclusive_out_of_place(device, queue, dtype):
    needs_dtype(device, dtype)
    x = sample(dtype, N, seed=1)
    a = cla.to_device(queue, x)
    out = cla.to_device(queue, poison(dtype, N))
    clscan.exclusive(a, out).wait()
    np.testing.assert_array_equal(out.get(), exclusive_sum(x))
    np.testing.assert_array_equal(a.get(), x)  # the input is not modified


@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.float64])
def test_offsets(device, queue, dtype):
    """Slices (arrays with an offset into their buffer) in place and out of place; elements outside
    the slices are untouched."""
    needs_dtype(device, dtype)
    n = 5003
    x = sample(dtype, n + 10, seed=2)
    a = cla.to_device(queue, x)
    clscan.inclusive(a[3:3 + n]).wait()
    expected = x.copy()
    expected[3:3 + n] = np.cumsum(x[3:3 + n], dtype=dtype)
    np.testing.assert_array_equal(a.get(), expected)

    b = cla.to_device(queue, poison(dtype, n + 7))
    clscan.exclusive(cla.to_device(queue, x)[1:1 + n], b[5:5 + n]).wait()
    expected = poison(dtype, n + 7)
    expected[5:5 + n] = exclusive_sum(x[1:1 + n])
    np.testing.assert_array_equal(b.get(), expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_floats_with_tolerance(device, queue, dtype):
    """Random (non-integer) floats: within a few rounding errors of an exact-as-possible reference,
    and with deterministic=True the same bits on a second run."""
    needs_dtype(device, dtype)
    x = np.random.default_rng(3).uniform(-1.0, 1.0, N).astype(dtype)
    reference = np.cumsum(x.astype(np.longdouble)).astype(np.float64)
    bound = np.cumsum(np.abs(x).astype(np.float64)) * 64 * np.finfo(dtype).eps
    runs = []
    for _ in range(2):
        a = cla.to_device(queue, x)
        clscan.inclusive(a, deterministic=True).wait()
        runs.append(a.get())
    assert np.all(np.abs(runs[0].astype(np.float64) - reference) <= bound)
    np.testing.assert_array_equal(runs[0].view(np.uint8), runs[1].view(np.uint8))


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
@pytest.mark.parametrize("op, accumulate", [("min", np.minimum), ("max", np.maximum)])
def test_min_max(queue, dtype, op, accumulate):
    x = sample(dtype, N, seed=4)
    a = cla.to_device(queue, x)
    out = cla.to_device(queue, poison(dtype, N))
    clscan.inclusive(a, out, op=op).wait()
    np.testing.assert_array_equal(out.get(), accumulate.accumulate(x))
    clscan.exclusive(a, out, op=op, initial=5).wait()
    expected = np.empty_like(x)
    expected[0] = 5
    expected[1:] = accumulate.accumulate(np.concatenate(([dtype(5)], x[:-1])))[1:]
    np.testing.assert_array_equal(out.get(), expected)


def test_bitwise(queue):
    x = sample(np.uint32, N, seed=5)
    a = cla.to_device(queue, x)
    clscan.inclusive(a, op="bit_xor").wait()
    np.testing.assert_array_equal(a.get(), np.bitwise_xor.accumulate(x))


def test_custom_operator(queue):
    """A product (wrapping in int64), inclusive and exclusive (which starts at custom_identity)."""
    x = np.random.default_rng(6).integers(-3, 4, size=N).astype(np.int64)
    x[x == 0] = 1
    a = cla.to_device(queue, x)
    out = cla.to_device(queue, poison(np.int64, N))
    clscan.inclusive(a, out, custom_op="a * b", custom_identity=1).wait()
    np.testing.assert_array_equal(out.get(), np.cumprod(x))
    clscan.exclusive(a, out, custom_op="a * b", custom_identity=1).wait()
    np.testing.assert_array_equal(out.get(), np.concatenate(([1], np.cumprod(x[:-1]))))


@pytest.mark.parametrize("dtype", [np.uint32, np.float32])
def test_initial(queue, dtype):
    x = sample(dtype, N, seed=7)
    a = cla.to_device(queue, x)
    out = cla.to_device(queue, poison(dtype, N))
    clscan.inclusive(a, out, initial=5).wait()
    np.testing.assert_array_equal(out.get(), np.cumsum(x, dtype=dtype) + dtype(5))
    clscan.exclusive(a, out, initial=5).wait()
    np.testing.assert_array_equal(out.get(), exclusive_sum(x, initial=5))


def test_algorithms(queue):
    x = sample(np.int32, N, seed=8)
    for algorithm in clscan.ALGORITHMS:
        a = cla.to_device(queue, x)
        try:
            clscan.inclusive(a, algorithm=algorithm).wait()
        except clscan.UnsupportedError:
            assert algorithm == "single_pass"  # a device without the atomics it needs
            continue
        np.testing.assert_array_equal(a.get(), np.cumsum(x, dtype=np.int32), err_msg=algorithm)


def test_multidimensional_in_c_order(queue):
    x = sample(np.int64, 6 * 1001, seed=9).reshape(6, 1001)
    a = cla.to_device(queue, x)
    clscan.inclusive(a).wait()
    np.testing.assert_array_equal(a.get(), np.cumsum(x, dtype=np.int64).reshape(6, 1001))


def test_empty_and_single(queue):
    empty = cla.empty(queue, 0, np.int32)
    clscan.inclusive(empty).wait()
    clscan.exclusive(empty, cla.empty(queue, 0, np.int32)).wait()
    one = cla.to_device(queue, np.array([7], dtype=np.int32))
    clscan.exclusive(one, initial=3).wait()
    assert one.get()[0] == 3
