"""Errors: each raises the exception of clscan's hierarchy that names the problem, before anything is
enqueued, and leaves the arrays as they were."""

import re

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import clscan
from conftest import sample


@pytest.fixture
def data(queue):
    x = sample(np.int32, 1000, seed=10)
    return x, cla.to_device(queue, x)


def unchanged(array, x):
    np.testing.assert_array_equal(array.get(), x)


def test_hierarchy():
    assert issubclass(clscan.InvalidArgumentError, clscan.Error)
    assert issubclass(clscan.InvalidArgumentError, ValueError)
    assert issubclass(clscan.UnsupportedError, clscan.Error)
    assert issubclass(clscan.BuildError, clscan.OpenCLError)
    assert issubclass(clscan.OpenCLError, clscan.Error)
    assert issubclass(clscan.Error, RuntimeError)


def test_wrong_dtype(queue):
    x = np.arange(100, dtype=np.int16)
    a = cla.to_device(queue, x)
    with pytest.raises(clscan.InvalidArgumentError, match="dtype int16"):
        clscan.inclusive(a)
    unchanged(a, x)


def test_not_a_device_array(data):
    x, _ = data
    with pytest.raises(TypeError, match="pyopencl.array.Array"):
        clscan.inclusive(x)


def test_non_contiguous(data):
    x, a = data
    with pytest.raises(clscan.InvalidArgumentError, match="not contiguous"):
        clscan.inclusive(a[::2])
    unchanged(a, x)


def test_out_too_small_or_of_another_dtype(queue, data):
    x, a = data
    small = cla.zeros(queue, 999, np.int32)
    with pytest.raises(clscan.InvalidArgumentError, match="out has 999 elements"):
        clscan.inclusive(a, small)
    other = cla.zeros(queue, 1000, np.int64)
    with pytest.raises(clscan.InvalidArgumentError, match="out has dtype int64"):
        clscan.exclusive(a, other)
    unchanged(a, x)
    unchanged(small, np.zeros(999, np.int32))


def test_overlapping_out(data):
    x, a = data
    with pytest.raises(clscan.InvalidArgumentError, match="overlap"):
        clscan.inclusive(a[:500], a[100:600])
    unchanged(a, x)


def test_custom_operator_that_does_not_compile(data):
    x, a = data
    with pytest.raises(clscan.BuildError) as raised:
        clscan.inclusive(a, custom_op="a +* b", custom_identity=0)
    error = raised.value
    assert error.build_log  # the compiler's message
    assert error.status == -11  # CL_BUILD_PROGRAM_FAILURE
    assert error.call == "clBuildProgram"
    assert error.device_name
    assert error.build_log in str(error)
    unchanged(a, x)


@pytest.mark.parametrize("text, problem", [
    ("0)) ? 1u : 0u; } inline uint f(int x) { return ((x", "unmatched ')'"),
    ("(x > 0", "open"),
    ("x > 0; x < 3", "';'"),
    ("x > 0 // comment", "comment"),
    ("x > 0\n#define A 1\n", "'#'"),
    ("x != prev", "'prev'"),
])
def test_predicate_that_is_not_one_expression(data, text, problem):
    """The C++ library's check (clscan::invalid_argument), before anything is enqueued."""
    x, a = data
    out = cla.to_device(a.queue, np.full(1000, -7, np.int32))
    with pytest.raises(clscan.InvalidArgumentError, match=re.escape(problem)):
        clscan.select_if(a, text, out=out)
    with pytest.raises(clscan.InvalidArgumentError, match=re.escape(problem)):
        clscan.partition_if(a, text, out=out)
    unchanged(a, x)
    unchanged(out, np.full(1000, -7, np.int32))


def test_custom_operator_that_is_not_one_expression(data):
    x, a = data
    out = cla.to_device(a.queue, np.full(1000, -7, np.int32))
    with pytest.raises(clscan.InvalidArgumentError, match="unmatched"):
        clscan.inclusive(a, out, custom_op="a + b); } inline int f(int a, int b) { return (a",
                         custom_identity=0)
    with pytest.raises(clscan.InvalidArgumentError, match="'combine'"):
        clscan.reduce(a, custom_op="combine(a, b)", custom_identity=0)
    unchanged(a, x)
    unchanged(out, np.full(1000, -7, np.int32))
    # Brackets, a ternary and a built-in call are one expression.
    kept, count = clscan.select_if(a, "(x > 0) ? abs(x) % 3 == 0 : (int)i < 10")
    host = x.copy()
    expected = host[np.where(host > 0, np.abs(host) % 3 == 0, np.arange(1000) < 10)]
    assert count == len(expected)
    np.testing.assert_array_equal(kept.get()[:count], expected)


def test_bad_operator_arguments(data):
    x, a = data
    with pytest.raises(clscan.InvalidArgumentError, match="unknown op 'product'"):
        clscan.inclusive(a, op="product")
    with pytest.raises(clscan.InvalidArgumentError, match="custom_identity"):
        clscan.inclusive(a, custom_op="a * b")
    with pytest.raises(clscan.InvalidArgumentError, match="leave op out"):
        clscan.inclusive(a, op="max", custom_op="a * b", custom_identity=1)
    with pytest.raises(clscan.InvalidArgumentError, match="unknown algorithm"):
        clscan.inclusive(a, algorithm="fast")
    unchanged(a, x)


def test_bitwise_operator_on_floats(queue):
    """Rejected by the C++ library (clscan::invalid_argument), raised as InvalidArgumentError."""
    x = np.ones(100, np.float32)
    a = cla.to_device(queue, x)
    with pytest.raises(clscan.InvalidArgumentError, match="bitwise operators need an integer"):
        clscan.inclusive(a, op="bit_or")
    unchanged(a, x)


def test_values_that_do_not_fit(queue, data):
    x, a = data
    u = cla.to_device(queue, np.arange(10, dtype=np.uint32))
    with pytest.raises(clscan.InvalidArgumentError, match="does not fit uint32"):
        clscan.exclusive(u, initial=-1)
    with pytest.raises(clscan.InvalidArgumentError, match="must be an integer"):
        clscan.exclusive(a, initial=1.5)
    unchanged(a, x)


def test_queue_of_another_context(device, data):
    x, a = data
    other_queue = cl.CommandQueue(cl.Context([device]))
    with pytest.raises(clscan.InvalidArgumentError, match="context"):
        clscan.inclusive(a, queue=other_queue)
    unchanged(a, x)


def test_wait_for_not_a_sequence_of_events(data, queue):
    x, a = data
    marker = cl.enqueue_marker(queue)
    for wrong, name in ((5, "int"), (marker, "Event"), ("abc", "str")):
        with pytest.raises(TypeError, match=f"wait_for takes a sequence of pyopencl.Event, not a {name}"):
            clscan.inclusive(a, wait_for=wrong)
    with pytest.raises(TypeError, match="wait_for holds a int"):
        clscan.inclusive(a, wait_for=[marker, 5])
    unchanged(a, x)


def test_messages_name_the_python_api(queue):
    """A rejection by the C++ library names the Python call and its keywords, not the C++ API."""
    x = np.arange(100, dtype=np.int32)
    a = cla.to_device(queue, x)
    with pytest.raises(clscan.InvalidArgumentError) as raised:
        clscan.partition_if(a, "x > 0", algorithm="single_pass")
    message = str(raised.value)
    assert "clscan.partition_if: algorithm='single_pass' cannot" in message
    assert "algorithm='automatic'" in message
    assert "::" not in message
    unchanged(a, x)
