"""clscan.select_if, select_flagged, partition_if and unique against numpy: x[mask], the stable
partition as a concatenation, and unique-consecutive as x[first of each run]; every dtype for
select_if and partition_if, offsets, the non-blocking count_out, and empty arrays. Results are
compared bit for bit; outputs are poisoned first so that elements written past the count show.

On PoCL the first call of a program variant costs about a second of compiling, so the tests use few
variants: one predicate ("x > 0"), one size, and inputs that start one element into their buffer,
as the library's own tests of these calls do (PoCL's kernel cache can then reuse their kernels)."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import clscan
from conftest import DTYPES, at_offset, needs_dtype, poison, refused

N = 100_003


def mixed(dtype, n, seed):
    """Small integers of both signs (wrapped around for unsigned dtypes, so that "x > 0" keeps about
    six in seven), zeros, and for floating-point dtypes a NaN, -0.0 and an infinity, which "x > 0"
    must leave out, out and keep."""
    x = np.random.default_rng(seed).integers(-3, 4, size=n).astype(dtype)
    if x.dtype.kind == "f" and n > 10:
        x[[2, 5, 9]] = [np.nan, -0.0, np.inf]
    return x


def runs(dtype, n, seed, longest=40):
    """Runs of equal values (lengths 1 .. longest) drawn from a few values, so that equal runs meet."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, longest + 1, size=n)
    values = rng.integers(0, 4, size=n).astype(dtype)
    return np.repeat(values, lengths)[:n]


def same_bits(actual, expected):
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(actual.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("dtype", DTYPES)
def test_select_if(device, queue, dtype):
    needs_dtype(device, dtype)
    x = mixed(dtype, N, seed=30)
    a = at_offset(queue, x, 1)
    kept, count = clscan.select_if(a, "x > 0")
    expected = x[x > 0]
    assert isinstance(count, int) and count == expected.size
    assert kept.shape == (count,) and kept.dtype == dtype
    same_bits(kept.get(), expected)
    same_bits(a.get(), x)  # the input is not modified

    out = cla.to_device(queue, poison(dtype, N + 3))
    kept, count = clscan.select_if(a, "x > 0", out=out[3:], algorithm="three_stage")
    assert count == expected.size and kept.base_data is out.base_data
    whole = out.get()
    same_bits(whole[3:3 + count], expected)
    # Nothing written past the count, nor before the slice.
    same_bits(np.delete(whole, np.s_[3:3 + count]), poison(dtype, N + 3 - count))


@pytest.mark.parametrize("dtype", DTYPES)
def test_partition_if(device, queue, dtype):
    needs_dtype(device, dtype)
    x = mixed(dtype, N, seed=31)
    a = at_offset(queue, x, 1)
    out = cla.to_device(queue, poison(dtype, N))
    parts, count = clscan.partition_if(a, "x > 0", out=out)
    selected = x > 0
    assert count == int(selected.sum())
    assert parts.shape == (N,)
    same_bits(parts.get(), np.concatenate((x[selected], x[~selected])))
    same_bits(a.get(), x)


def test_unique(queue):
    x = runs(np.float32, N, seed=32)
    x[100:104] = [np.nan, np.nan, -0.0, 0.0]  # every NaN is kept; -0.0 == 0.0, so only -0.0 is
    a = at_offset(queue, x, 1)
    out = cla.to_device(queue, poison(np.float32, N + 3))
    kept, count = clscan.unique(a, out=out[3:])
    expected = x[np.concatenate(([True], x[1:] != x[:-1]))]
    assert count == expected.size
    same_bits(kept.get(), expected)
    same_bits(out.get()[3 + count:], poison(np.float32, N - count))

    # One run of everything, and runs of one.
    kept, count = clscan.unique(at_offset(queue, np.full(N, 7, np.float32), 1))
    assert count == 1 and kept.get()[0] == 7
    distinct = np.arange(N).astype(np.float32)
    kept, count = clscan.unique(at_offset(queue, distinct, 1))
    same_bits(kept.get(), distinct)


@pytest.mark.parametrize("flag_dtype", [np.uint8, np.int8, np.bool_])
def test_select_flagged(queue, flag_dtype):
    x = mixed(np.int64, N, seed=33)
    rng = np.random.default_rng(34)
    flags = rng.integers(0, 256, size=N).astype(np.uint8)  # any nonzero value keeps the element
    flags[rng.random(N) < 0.4] = 0
    flags = flags.astype(flag_dtype)
    kept, count = clscan.select_flagged(at_offset(queue, x, 1), cla.to_device(queue, flags))
    same_bits(kept.get(), x[flags != 0])
    assert count == int(np.count_nonzero(flags))


def test_select_flagged_by_a_comparison(queue):
    """PyOpenCL's comparisons give int8 arrays, which select_flagged takes as they are."""
    x = mixed(np.int64, N, seed=41)
    a = at_offset(queue, x, 1)
    kept, count = clscan.select_flagged(a, a < 0)
    same_bits(kept.get(), x[x < 0])


def test_offsets(queue):
    """Slices of the input, the output, the flags and count_out: the calls read and write exactly
    their ranges."""
    x = mixed(np.int64, N, seed=36)
    a = at_offset(queue, x, 5)
    out = cla.to_device(queue, poison(np.int64, N + 9))
    kept, count = clscan.select_if(a, "x > 0", out=out[7:7 + N])
    expected = x[x > 0]
    assert count == expected.size
    np.testing.assert_array_equal(kept.get(), expected)
    whole = out.get()
    np.testing.assert_array_equal(whole[7:7 + count], expected)
    np.testing.assert_array_equal(np.delete(whole, np.s_[7:7 + count]), poison(np.int64, N + 9 - count))

    flags = (np.arange(N + 5) % 3 == 0).astype(np.uint8)
    counts = cla.to_device(queue, np.full(4, 99, np.uint64))
    out = cla.to_device(queue, poison(np.int64, N))
    _, event = clscan.select_flagged(a, cla.to_device(queue, flags)[5:], out=out, count_out=counts[2:3])
    event.wait()
    expected = x[flags[5:] != 0]
    np.testing.assert_array_equal(counts.get(), [99, 99, expected.size, 99])
    np.testing.assert_array_equal(out.get()[:expected.size], expected)


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_bounded_out_and_in_place(device, queue, dtype):
    """An `out` smaller than `ary` is sized for the result: the count counts every selected element,
    and nothing past out's end is written (poison after it shows). out=ary selects in place."""
    needs_dtype(device, dtype)
    x = mixed(dtype, N, seed=42)
    expected = x[x > 0]
    a = at_offset(queue, x, 1)
    for capacity in (0, expected.size // 2, expected.size - 1, expected.size, expected.size + 2):
        out = cla.to_device(queue, poison(dtype, capacity + 3))
        kept, count = clscan.select_if(a, "x > 0", out=out[:capacity])
        written = min(capacity, count)
        assert count == expected.size and kept.size == written
        whole = out.get()
        same_bits(whole[:written], expected[:written])
        same_bits(whole[written:], poison(dtype, capacity + 3 - written))
    same_bits(a.get(), x)

    kept, count = clscan.select_if(a, "x > 0", out=a)
    assert count == expected.size
    same_bits(a.get()[:count], expected)
    same_bits(a.get()[count:], x[count:])  # past the count, the input as it was

    y = runs(dtype, N, seed=43)
    b = at_offset(queue, y, 1)
    kept, count = clscan.unique(b, out=b, algorithm="three_stage")
    expected = y[np.concatenate(([True], y[1:] != y[:-1]))]
    assert count == expected.size
    same_bits(b.get()[:count], expected)
    same_bits(b.get()[count:], y[count:])


def test_count_out_does_not_wait(context, queue):
    """With count_out the call returns before the device has run the selection (held back here by a
    user event that the input's write waits for); the event it returns orders the count and the
    output."""
    x = mixed(np.int32, N, seed=37)
    a = at_offset(queue, np.zeros(N, np.int32), 1)
    gate = cl.UserEvent(context)
    try:
        written = cl.enqueue_copy(cl.CommandQueue(context), a.base_data, x, dst_offset=a.offset,
                                  is_blocking=False, wait_for=[gate])
        count = cla.empty(queue, 1, np.uint64)
        out, event = clscan.select_if(a, "x > 0", count_out=count, wait_for=[written])
        assert isinstance(event, cl.Event)
        assert count.events[-1].int_ptr == event.int_ptr
        assert out.events[-1].int_ptr == event.int_ptr
        assert event.command_execution_status != cl.command_execution_status.COMPLETE
    finally:
        gate.set_status(cl.command_execution_status.COMPLETE)
    expected = x[x > 0]
    assert int(count.get()[0]) == expected.size  # .get() waits for the array's events
    np.testing.assert_array_equal(out[:expected.size].get(), expected)


def test_empty_and_multidimensional(queue):
    empty = cla.empty(queue, 0, np.int32)
    kept, count = clscan.select_if(empty, "x > 0")
    assert count == 0 and kept.size == 0
    kept, count = clscan.unique(empty)
    assert count == 0 and kept.size == 0
    counts = cla.to_device(queue, np.full(1, 99, np.uint64))
    _, event = clscan.partition_if(empty, "x > 0", count_out=counts)
    event.wait()
    assert counts.get()[0] == 0

    x = mixed(np.int32, N - 1, seed=38).reshape(2, -1)  # taken in C order
    a = at_offset(queue, x.ravel(), 1).reshape(x.shape)
    kept, count = clscan.select_if(a, "x > 0")
    np.testing.assert_array_equal(kept.get(), x[x > 0])
    parts, count = clscan.partition_if(a, "x > 0")
    flat = x.ravel()
    np.testing.assert_array_equal(parts.get(), np.concatenate((flat[flat > 0], flat[flat <= 0])))


def test_errors(queue):
    """Each raises before anything is enqueued, and leaves the arrays as they were."""
    x = mixed(np.int32, 1000, seed=39)
    a = cla.to_device(queue, x)
    out = cla.to_device(queue, poison(np.int32, 1000))
    # One line per refusal (refused(), or a `with pytest.raises` block): a failure then names the line
    # of the refusal that did not happen.
    refused("predicate is empty", clscan.select_if, a, "", out=out)
    with pytest.raises(TypeError, match="predicate must be a str"):
        clscan.partition_if(a, None)
    refused("overlap without being the same range", clscan.select_if, a[1:], "x > 0", out=a[:999])
    refused("flags has dtype int32; flags must be uint8", clscan.select_flagged, a, a)
    refused("flags has 999 elements", clscan.select_flagged, a, cla.zeros(queue, 999, np.uint8))
    refused("count_out must be uint64", clscan.unique, a, count_out=cla.zeros(queue, 1, np.int64))
    refused("count_out has 2 elements", clscan.unique, a, count_out=cla.zeros(queue, 2, np.uint64))
    refused("out has dtype int64", clscan.unique, a, out=cla.zeros(queue, 1000, np.int64))
    refused("unknown algorithm", clscan.unique, a, algorithm="fast")
    np.testing.assert_array_equal(a.get(), x)
    np.testing.assert_array_equal(out.get(), poison(np.int32, 1000))


def test_predicate_that_does_not_compile(queue):
    x = mixed(np.int32, 1000, seed=40)
    a = cla.to_device(queue, x)
    out = cla.to_device(queue, poison(np.int32, 1000))
    with pytest.raises(clscan.BuildError) as raised:
        clscan.select_if(a, "x >* 0", out=out)
    error = raised.value
    assert error.build_log  # the compiler's message
    assert error.call == "clBuildProgram"
    assert error.build_log in str(error)
    np.testing.assert_array_equal(a.get(), x)
    np.testing.assert_array_equal(out.get(), poison(np.int32, 1000))
