"""clscan.reduce against numpy: every dtype, each with the operator tests/unit/reduce.cpp runs it with
(PoCL's kernel cache can then reuse those programs: a new variant costs about a second to compile),
an operator that is not commutative, the total into a slice of a longer array with its neighbours
unchanged, initial values on the host and on the device, empty arrays and argument errors."""

import numpy as np
import pyopencl.array as cla
import pytest

import clscan
from conftest import DTYPES, at_offset, needs_dtype, poison, refused, sample

N = 100_003

# The operator each dtype is reduced with, and numpy's reduction for it.
OPERATORS = {
    np.dtype(np.int32): ("sum", lambda x: x.sum(dtype=x.dtype)),
    np.dtype(np.uint32): ("max", np.max),
    np.dtype(np.int64): ("min", np.min),
    np.dtype(np.uint64): ("bit_xor", np.bitwise_xor.reduce),
    np.dtype(np.float32): ("sum", lambda x: x.sum(dtype=x.dtype)),
    np.dtype(np.float64): ("sum", lambda x: x.sum(dtype=x.dtype)),
}


def wrapped_sum(*values):
    """int32 values added as the device adds them (wrapping around, without numpy's scalar warning)."""
    return np.array(values, dtype=np.int32).sum(dtype=np.int32)


def same_bits(actual, expected):
    actual, expected = np.atleast_1d(actual), np.atleast_1d(expected)
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype(device, queue, dtype):
    needs_dtype(device, dtype)
    op, numpy_reduce = OPERATORS[np.dtype(dtype)]
    x = sample(dtype, N, seed=40)  # floating-point values are small integers: exact sums in any order
    a = at_offset(queue, x, 1)
    total = clscan.reduce(a, op=op)
    assert isinstance(total, np.generic) and total.dtype == dtype
    same_bits(total, numpy_reduce(x))
    same_bits(a.get(), x)  # the input is not modified


def test_not_commutative(queue):
    # "The last number": NaN, its identity, is passed over; the order of the elements decides.
    x = sample(np.float32, N, seed=41)
    x[::7] = np.nan
    x[-3:] = np.nan
    a = at_offset(queue, x, 1)
    total = clscan.reduce(a, custom_op="isnan(b) ? a : b", custom_identity=float("nan"))
    same_bits(total, x[-4])


def test_out_and_initial_values(queue):
    x = sample(np.int32, N, seed=42)
    a = at_offset(queue, x, 1)
    t = cla.to_device(queue, poison(np.int32, 4))
    event = clscan.reduce(a, out=t[2:3], initial=5)
    event.wait()
    expected = t.get()
    same_bits(expected[2], wrapped_sum(5, x.sum(dtype=np.int32)))
    same_bits(np.delete(expected, 2), poison(np.int32, 3))
    # From the total just written, on the device: t[0] = t[2] + sum(x); t[2] is only read.
    clscan.reduce(a, out=t[0:1], initial=t[2:3]).wait()
    got = t.get()
    same_bits(got[0], wrapped_sum(expected[2], x.sum(dtype=np.int32)))
    same_bits(got[1:], expected[1:])
    # Into the input's own buffer: every element is read before the total is written.
    b = cla.to_device(queue, x)
    clscan.reduce(b, out=b[0:1]).wait()
    same_bits(b.get()[0], x.sum(dtype=np.int32))
    same_bits(b.get()[1:], x[1:])


def test_empty(queue):
    empty = cla.empty(queue, 0, np.int32)
    same_bits(clscan.reduce(empty), np.int32(0))
    same_bits(clscan.reduce(empty, initial=-4), np.int32(-4))
    same_bits(clscan.reduce(empty, op="min"), np.int32(np.iinfo(np.int32).max))
    t = cla.to_device(queue, np.array([9, 1], dtype=np.int32))
    clscan.reduce(empty, out=t[1:2], initial=t[0:1]).wait()
    same_bits(t.get(), np.array([9, 9], dtype=np.int32))


def test_errors(queue):
    a = cla.to_device(queue, np.arange(10, dtype=np.int32))
    two = cla.zeros(queue, 2, np.int32)
    refused("out has 2 elements", clscan.reduce, a, out=two)
    refused("out has dtype float32", clscan.reduce, a, out=cla.zeros(queue, 1, np.float32))
    refused("initial has dtype int64", clscan.reduce, a, initial=cla.zeros(queue, 1, np.int64))
    refused("unknown op", clscan.reduce, a, op="product")
    refused("bitwise", clscan.reduce, cla.zeros(queue, 4, np.float32), op="bit_or")
    same_bits(two.get(), np.zeros(2, np.int32))
