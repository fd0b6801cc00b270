"""clscan.inclusive_segmented, exclusive_segmented and reduce_segmented against numpy: per-segment
np.cumsum and np.add.reduceat over CSR offsets with empty segments, both offset dtypes, slices at offsets,
outputs poisoned first, out= (event, no wait) and the new-array forms, initial values, a custom
operator with a parameter, and the refusals."""

import numpy as np
import pyopencl.array as cla
import pytest

import clscan
from conftest import at_offset, needs_dtype, poison, refused, sample

N = 10_007


def csr(n, seed, longest=40):
    """CSR offsets of n elements: segments of 0 to `longest` elements, empty ones included."""
    rng = np.random.default_rng(seed)
    ends = np.minimum(np.cumsum(rng.integers(0, longest + 1, size=n + 1)), n)
    ends = ends[: np.searchsorted(ends, n) + 1]
    return np.concatenate(([0], ends))


def scan_reference(x, offsets, exclusive=False, initial=None):
    out = np.empty_like(x)
    for b, e in zip(offsets[:-1], offsets[1:]):
        part = np.cumsum(x[b:e], dtype=x.dtype)
        if exclusive:
            part = np.concatenate(([x.dtype.type(0)], part[:-1])).astype(x.dtype)
        if initial is not None:
            part = (part + x.dtype.type(initial)).astype(x.dtype)
        out[b:e] = part
    return out


def reduce_reference(x, offsets, initial=None):
    # An empty segment's result is the identity, -0.0 for floating-point sums (0.0 + -0.0 is 0.0).
    empty = initial if initial is not None else (-0.0 if x.dtype.kind == "f" else 0)
    out = np.full(offsets.size - 1, empty, dtype=x.dtype)
    for s, (b, e) in enumerate(zip(offsets[:-1], offsets[1:])):
        if b < e:
            out[s] = out[s] + np.add.reduce(x[b:e], dtype=x.dtype)
    return out


def same_bits(actual, expected):
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
@pytest.mark.parametrize("offset_dtype", [np.uint32, np.uint64])
def test_scans(queue, device, dtype, offset_dtype):
    needs_dtype(device, dtype)
    x = sample(dtype, N, seed=1)
    offsets = csr(N, seed=2).astype(offset_dtype)
    a = at_offset(queue, x, 3)
    o = at_offset(queue, offsets, 1)
    out = cla.to_device(queue, poison(dtype, N))
    event = clscan.inclusive_segmented(a, o, out)
    event.wait()
    same_bits(out.get(), scan_reference(x, offsets))
    same_bits(a.get(), x)  # not modified

    clscan.exclusive_segmented(a, o, initial=5, algorithm="three_stage")  # in place
    same_bits(a.get(), scan_reference(x, offsets, exclusive=True, initial=5))


@pytest.mark.parametrize("dtype", [np.uint32, np.float32])
@pytest.mark.parametrize("offset_dtype", [np.uint32, np.uint64])
def test_reduce(queue, dtype, offset_dtype):
    x = sample(dtype, N, seed=3)
    offsets = csr(N, seed=4).astype(offset_dtype)
    results = clscan.reduce_segmented(at_offset(queue, x, 2), cla.to_device(queue, offsets))
    assert isinstance(results, cla.Array) and results.size == offsets.size - 1
    same_bits(results.get(), reduce_reference(x, offsets))

    out = at_offset(queue, poison(dtype, offsets.size - 1), 4)
    event = clscan.reduce_segmented(cla.to_device(queue, x), cla.to_device(queue, offsets), out, initial=7)
    event.wait()
    same_bits(out.get(), reduce_reference(x, offsets, initial=7))


def test_custom_operator_with_a_parameter(queue):
    x = sample(np.uint32, N, seed=5)
    offsets = csr(N, seed=6).astype(np.uint32)
    for mask in (0xFF, 0x3F):
        out = clscan.reduce_segmented(cla.to_device(queue, x), cla.to_device(queue, offsets),
                                      custom_op="(a + b) & mask", custom_identity=0,
                                      parameters={"mask": np.uint32(mask)})
        # A segment's first element enters as it is, unmasked: a one-element segment's result is it.
        expected = np.zeros(offsets.size - 1, np.uint32)
        for s, (b, e) in enumerate(zip(offsets[:-1], offsets[1:])):
            if b < e:
                expected[s] = x[b] if e - b == 1 else np.add.reduce(x[b:e], dtype=np.uint32) & np.uint32(mask)
        same_bits(out.get(), expected)


def test_empty(queue):
    """No elements: the reduction writes the identity (or initial) to every result; no segments."""
    none = cla.empty(queue, 0, np.int32)
    results = clscan.reduce_segmented(none, cla.to_device(queue, np.zeros(4, np.uint32)), initial=-3)
    same_bits(results.get(), np.full(3, -3, np.int32))
    clscan.inclusive_segmented(none, cla.to_device(queue, np.zeros(1, np.uint32))).wait()
    empty = clscan.reduce_segmented(cla.to_device(queue, np.arange(5, dtype=np.int32)),
                                    cla.to_device(queue, np.zeros(1, np.uint64)))
    assert empty.size == 0


def test_refused(queue):
    a = cla.to_device(queue, np.arange(8, dtype=np.int32))
    offsets = cla.to_device(queue, np.array([0, 4, 8], np.uint32))
    refused("uint32 or uint64", clscan.inclusive_segmented, a, cla.to_device(queue, np.array([0, 8], np.int32)))
    refused("offsets is empty", clscan.reduce_segmented, a, cla.empty(queue, 0, np.uint32))
    refused("one per segment", clscan.reduce_segmented, a, offsets, cla.empty(queue, 3, np.int32))
    refused("offsets and the output overlap", clscan.reduce_segmented,
            cla.to_device(queue, np.arange(8, dtype=np.uint32)), offsets, offsets[:2])
    same_bits(a.get(), np.arange(8, dtype=np.int32))
