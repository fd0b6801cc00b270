"""Fixtures of the clscan Python tests: a context and queue on clscan.select_device() (CLSCAN_PLATFORM,
CLSCAN_DEVICE), and data helpers.

Where no OpenCL device can be had (no ICD installed, no platform, none matching), every test is
skipped with a reason starting "python: skipped:", which ctest's SKIP_REGULAR_EXPRESSION reports as a
skipped test, never a passed one.
"""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import clscan

DTYPES = [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64]


def _open_device():
    """(device, None), or (None, why not)."""
    try:
        device = clscan.select_device()
        cl.Context([device])
    except (clscan.Error, cl.Error) as e:
        return None, f"{type(e).__name__}: {e}"
    return device, None


_DEVICE, _NO_DEVICE = _open_device()


def pytest_collection_modifyitems(config, items):
    if _NO_DEVICE is not None:
        skip = pytest.mark.skip(reason=f"python: skipped: no OpenCL device ({_NO_DEVICE})")
        for item in items:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def device():
    return _DEVICE


@pytest.fixture(scope="session")
def context(device):
    return cl.Context([device])


@pytest.fixture(scope="session")
def queue(context):
    return cl.CommandQueue(context)


def needs_dtype(device, dtype):
    """Skips the calling test for float64 on a device without fp64."""
    if np.dtype(dtype) == np.float64 and not device.double_fp_config:
        pytest.skip(f"{device.name} has no fp64")


def sample(dtype, n, seed=0):
    """n elements of `dtype`: integers over their whole range (so sums wrap around), floating-point
    values that are small integers (so every prefix sum is exact and can be compared bit for bit)."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.integers(-8, 9, size=n).astype(dtype)
    limits = np.iinfo(dtype)
    return rng.integers(limits.min, limits.max, size=n, dtype=dtype, endpoint=True)


def poison(dtype, n):
    """Host data for outputs, so that elements a scan does not write show."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return np.full(n, np.nan, dtype=dtype)
    return np.full(n, 0x5A5A5A5A5A5A5A5A & np.iinfo(dtype).max, dtype=dtype)


def exclusive_sum(x, initial=0):
    """numpy's exclusive prefix sum: initial, initial + x[0], ... (wrapping as the dtype does)."""
    out = np.empty_like(x)
    out[0] = initial
    np.cumsum(x[:-1], dtype=x.dtype, out=out[1:])
    out[1:] += x.dtype.type(initial)
    return out


def at_offset(queue, x, start):
    """x on the device as a slice that starts `start` elements into its buffer (poisoned before it)."""
    return cla.to_device(queue, np.concatenate((poison(x.dtype, start), x)))[start:]


def refused(match, call, *args, **kwargs):
    """call(*args, **kwargs) raises clscan.InvalidArgumentError with a message `match` finds (a regular
    expression); a failure's traceback names the caller's line, the refusal that did not happen."""
    with pytest.raises(clscan.InvalidArgumentError, match=match):
        call(*args, **kwargs)
