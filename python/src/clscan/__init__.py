"""Prefix sums (scans) of PyOpenCL arrays, computed on the device by the clscan library.

    import numpy as np
    import pyopencl as cl
    import pyopencl.array as cla
    import clscan

    context = cl.Context([clscan.select_device()])
    queue = cl.CommandQueue(context)
    a = cla.to_device(queue, np.arange(10, dtype=np.int32))
    clscan.inclusive(a)                      # in place: a becomes its running sums
    b = cla.empty_like(a)
    clscan.exclusive(a, b, op="max").wait()  # out of place into b

The scans read and write the arrays' OpenCL buffers directly (nothing passes through the host) and
return a pyopencl.Event. They take contiguous arrays of int32, uint32, int64, uint64, float32 and
float64, of any shape (scanned in C order, as if flattened), with or without an offset (a slice such
as a[3:]). Errors raise the exceptions of clscan._errors (clscan.Error and its subclasses).

What the C++ API documents holds here too (README.md of clscan): integer sums wrap around,
floating-point min and max are fmin and fmax, and clscan keeps compiled kernels and temporary buffers
per context (release_cached_resources() gives them back).
"""

import math
import numbers
import operator

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from . import _native
from ._errors import BuildError, Error, InvalidArgumentError, OpenCLError, UnsupportedError

__version__ = _native.version

__all__ = [
    "ALGORITHMS",
    "BuildError",
    "DTYPES",
    "Error",
    "InvalidArgumentError",
    "OPERATORS",
    "OpenCLError",
    "UnsupportedError",
    "exclusive",
    "inclusive",
    "release_cached_resources",
    "select_device",
]

# numpy dtype -> the OpenCL C type the library scans.
_OPENCL_TYPE = {
    np.dtype(np.int32): "int",
    np.dtype(np.uint32): "uint",
    np.dtype(np.int64): "long",
    np.dtype(np.uint64): "ulong",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}

#: The dtypes clscan scans.
DTYPES = tuple(_OPENCL_TYPE)

#: The names `op` takes. A custom operator is given with `custom_op` instead.
OPERATORS = ("sum", "min", "max", "bit_and", "bit_or", "bit_xor")

#: The names `algorithm` takes: "automatic" lets clscan choose per device and size.
ALGORITHMS = ("automatic", "single_pass", "three_stage")


class _Operand:
    """An array checked for clscan: its buffer handle, element offset and OpenCL C type."""

    __slots__ = ("array", "buffer_ptr", "offset", "type")

    def __init__(self, array, name):
        if not isinstance(array, cla.Array):
            raise TypeError(f"clscan: {name} must be a pyopencl.array.Array, not {type(array).__name__}")
        self.array = array
        self.type = _OPENCL_TYPE.get(array.dtype)
        if self.type is None:
            raise InvalidArgumentError(
                f"clscan: {name} has dtype {array.dtype}; clscan scans "
                + ", ".join(str(d) for d in DTYPES))
        if not array.flags.c_contiguous:
            raise InvalidArgumentError(
                f"clscan: {name} is not contiguous (strides {array.strides} for shape {array.shape}); "
                "copy it first, e.g. with .copy()")
        self.buffer_ptr = 0
        self.offset = 0
        if array.size == 0:
            return
        if not isinstance(array.base_data, cl.MemoryObjectHolder):
            raise InvalidArgumentError(
                f"clscan: {name} is not backed by an OpenCL buffer "
                f"({type(array.base_data).__name__}); clscan scans buffers, not SVM")
        itemsize = array.dtype.itemsize
        if array.offset % itemsize:
            raise InvalidArgumentError(
                f"clscan: {name} starts {array.offset} bytes into its buffer, not a multiple of its "
                f"element size {itemsize}")
        self.buffer_ptr = array.base_data.int_ptr
        self.offset = array.offset // itemsize


def _element_value(value, dtype, name):
    """`value` as a Python int (exact) or float (rounded to `dtype` by the library) that fits the
    element type `dtype`, else InvalidArgumentError."""
    if dtype.kind == "f":
        if not isinstance(value, numbers.Real):
            raise InvalidArgumentError(
                f"clscan: {name} must be a number for a {dtype} array, not {value!r}")
        number = float(value)
        if dtype == np.float32 and math.isfinite(number) and abs(number) > np.finfo(np.float32).max:
            raise InvalidArgumentError(f"clscan: {name}={number!r} is out of float32's range")
        return number
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidArgumentError(
            f"clscan: {name} must be an integer for a {dtype} array, not {value!r}") from None
    limits = np.iinfo(dtype)
    if not limits.min <= number <= limits.max:
        raise InvalidArgumentError(
            f"clscan: {name}={number} does not fit {dtype} ({limits.min} ... {limits.max})")
    return number


def _command_queue(array, queue):
    if queue is None:
        queue = array.queue
        if queue is None:
            raise InvalidArgumentError("clscan: the array has no queue; pass queue=")
    if not isinstance(queue, cl.CommandQueue):
        raise TypeError(f"clscan: queue must be a pyopencl.CommandQueue, not {type(queue).__name__}")
    return queue


def _wait_list(wait_for, arrays):
    """The user's events, then those PyOpenCL recorded on the arrays (Array.events), as PyOpenCL's
    own operations wait for them."""
    events = []
    for event in wait_for or ():
        if not isinstance(event, cl.Event):
            raise TypeError(f"clscan: wait_for holds a {type(event).__name__}, not a pyopencl.Event")
        events.append(event)
    seen = set()
    for array in arrays:
        if id(array) not in seen:
            seen.add(id(array))
            events.extend(array.events)
    return events


def _scan(kind, ary, out, op, custom_op, custom_identity, initial, deterministic, algorithm, wait_for,
          queue):
    source = _Operand(ary, "ary")
    if out is None or out is ary:
        target = source
    else:
        target = _Operand(out, "out")
        if out.dtype != ary.dtype:
            raise InvalidArgumentError(
                f"clscan: out has dtype {out.dtype}, ary {ary.dtype}; they must be the same")
        if out.size != ary.size:
            raise InvalidArgumentError(
                f"clscan: out has {out.size} elements, ary {ary.size}; they must be the same")
    queue = _command_queue(ary, queue)

    if custom_op is not None:
        if op not in ("sum", "custom"):
            raise InvalidArgumentError(
                f"clscan: op={op!r} and custom_op given; custom_op is the operator (leave op out)")
        if not isinstance(custom_op, str):
            raise TypeError(f"clscan: custom_op must be a str, not {type(custom_op).__name__}")
        if custom_identity is None:
            raise InvalidArgumentError(
                "clscan: custom_op needs custom_identity, the operator's identity element "
                "(e.g. 1 for \"a * b\")")
        op = "custom"
        custom_identity = _element_value(custom_identity, ary.dtype, "custom_identity")
    else:
        if op not in OPERATORS:
            raise InvalidArgumentError(
                f"clscan: unknown op {op!r} (use one of {', '.join(OPERATORS)}, or custom_op=)")
        if custom_identity is not None:
            raise InvalidArgumentError("clscan: custom_identity is given without custom_op")
    if algorithm not in ALGORITHMS:
        raise InvalidArgumentError(
            f"clscan: unknown algorithm {algorithm!r} (use one of {', '.join(ALGORITHMS)})")
    if initial is not None:
        initial = _element_value(initial, ary.dtype, "initial")

    waits = _wait_list(wait_for, (source.array, target.array))
    if ary.size == 0:
        # Nothing to scan and no buffer to pass (PyOpenCL allocates none for empty arrays).
        event = cl.enqueue_marker(queue, wait_for=waits or None)
    else:
        event_ptr = _native.scan(
            kind, source.type, queue.int_ptr, source.buffer_ptr, source.offset, target.buffer_ptr,
            target.offset, ary.size, op, custom_op or "", custom_identity, initial,
            bool(deterministic), algorithm, [e.int_ptr for e in waits])
        event = cl.Event.from_int_ptr(event_ptr, retain=False)
    # PyOpenCL's own operations wait for an array's events before they touch it. The output gets the
    # scan's event so that readers wait for the result; out of place the input gets it too, so that
    # a later write to it (on an out-of-order queue) waits until the scan has read it.
    target.array.add_event(event)
    if source.array is not target.array:
        source.array.add_event(event)
    return event


def inclusive(ary, out=None, *, op="sum", custom_op=None, custom_identity=None, initial=None,
              deterministic=False, algorithm="automatic", wait_for=None, queue=None):
    """Inclusive scan: out[i] = ary[0] op ary[1] op ... op ary[i].

    Args:
        ary: a contiguous pyopencl.array.Array of int32, uint32, int64, uint64, float32 or float64.
            Scanned in place when `out` is None.
        out: an array of the same dtype and size to write the result to; `ary` is then not modified.
            It must not overlap `ary` (unless it is `ary`).
        op: "sum" (default), "min", "max", "bit_and", "bit_or" or "bit_xor" (integers only).
            Integer sums wrap around; floating-point min and max are fmin and fmax.
        custom_op: instead of `op`, an associative OpenCL C expression of `a` and `b` (both of the
            element type), e.g. "a * b". A text that does not compile raises BuildError.
        custom_identity: the identity element of `custom_op` (required with it), e.g. 1 for "a * b".
        initial: a value combined in front of the first element.
        deterministic: for floating-point arrays, the same result bits on every run on a device
            (clscan then avoids the single-pass scan, whose order of additions varies).
        algorithm: "automatic" (default), "single_pass" or "three_stage".
        wait_for: pyopencl.Events to wait for before reading `ary`. The events PyOpenCL recorded on
            the arrays (their .events) are waited for as well.
        queue: the pyopencl.CommandQueue to enqueue on; default `ary.queue`. Its context must be the
            arrays'.

    Returns:
        A pyopencl.Event that completes when the result is in place. It is also added to the
        events of `ary` and `out` (Array.events), so PyOpenCL operations on them (e.g. .get())
        wait for it.

    Raises:
        TypeError: `ary`, `out`, `queue` or an event of `wait_for` is not a PyOpenCL object of the
            right kind.
        InvalidArgumentError: a dtype, layout, size, name or value clscan does not take; nothing
            was enqueued and the arrays keep their contents.
        UnsupportedError: the device lacks what the scan needs (fp64 for float64).
        BuildError: the kernels did not build (its build_log says why).
        OpenCLError: an OpenCL call failed (its status says how).
    """
    return _scan("inclusive", ary, out, op, custom_op, custom_identity, initial, deterministic,
                 algorithm, wait_for, queue)


def exclusive(ary, out=None, *, op="sum", custom_op=None, custom_identity=None, initial=None,
              deterministic=False, algorithm="automatic", wait_for=None, queue=None):
    """Exclusive scan: out[0] = initial, out[i] = initial op ary[0] op ... op ary[i-1].

    Without `initial` the first element is the operator's identity: 0 for integer sums, -0.0 for
    floating-point sums, NaN for floating-point min and max (fmin and fmax ignore it), the type's
    largest and smallest values for integer min and max, and `custom_identity` for a custom_op.

    The arguments, return value and exceptions are those of inclusive().
    """
    return _scan("exclusive", ary, out, op, custom_op, custom_identity, initial, deterministic,
                 algorithm, wait_for, queue)


def select_device():
    """The pyopencl.Device clscan's own tools and tests use: the platform and device named by the
    environment variables CLSCAN_PLATFORM and CLSCAN_DEVICE (a case-insensitive part of the name, or
    an index), else the first GPU of any platform, else the first device.

    Raises clscan.Error when there is no OpenCL device (or none matches).
    """
    return cl.Device.from_int_ptr(_native.select_device())


def release_cached_resources(context=None):
    """Releases the compiled programs, kernels and temporary buffers clscan keeps, and with them its
    references to OpenCL contexts: those of `context` (a pyopencl.Context), or of every context when
    it is None. Scans already enqueued finish normally; later scans build or load what they need
    again. A program need not call this: clscan keeps a bounded number of contexts' resources.
    """
    if context is None:
        _native.release_cached_resources(0)
        return
    if not isinstance(context, cl.Context):
        raise TypeError(f"clscan: context must be a pyopencl.Context, not {type(context).__name__}")
    _native.release_cached_resources(context.int_ptr)
