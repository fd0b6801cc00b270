"""Prefix sums (scans), stream compaction, scans by key, reductions and sorts of PyOpenCL arrays,
computed on the device by the clscan library.

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
    odd, k = clscan.select_if(a, "x % 2 != 0")  # odd[:k] == the odd elements of a, in order
    total = clscan.reduce(a)                 # a numpy scalar: the sum of a's elements
    s = clscan.sort(a)                       # a new array: np.sort(a.get()), stable
    order = clscan.argsort(a)                # int64 indices: np.argsort(a.get(), kind="stable")

The calls read and write the arrays' OpenCL buffers directly (nothing passes through the host). The
scans return a pyopencl.Event; select_if, select_flagged, partition_if and unique wait for the count
of the elements they keep and return it with the result (or, given count_out=, return an event
instead). They take contiguous arrays of int32, uint32, int64, uint64, float32 and float64, of any
shape (taken in C order, as if flattened), with or without an offset (a slice such as a[3:]). Errors
raise the exceptions of clscan._errors (clscan.Error and its subclasses).

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
    "argsort",
    "exclusive",
    "exclusive_by_key",
    "exclusive_segmented",
    "inclusive",
    "inclusive_by_key",
    "inclusive_segmented",
    "partition_if",
    "reduce",
    "reduce_by_key",
    "reduce_segmented",
    "release_cached_resources",
    "run_length_encode",
    "select_device",
    "select_flagged",
    "select_if",
    "sort",
    "sort_by_key",
    "unique",
    "unique_by_key",
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

#: The dtypes clscan scans, selects and takes as keys.
DTYPES = tuple(_OPENCL_TYPE)

_DTYPES_TEXT = "clscan takes " + ", ".join(str(d) for d in DTYPES)

# select_flagged's flags: one byte each, nonzero keeps the element. int8 is what PyOpenCL's comparisons
# (a > 0) give.
_FLAG_TYPE = {np.dtype(np.uint8): "uchar", np.dtype(np.int8): "uchar", np.dtype(np.bool_): "uchar"}

# count_out: where a selection writes its count, a cl_ulong.
_COUNT_TYPE = {np.dtype(np.uint64): "ulong"}

#: The names `op` takes. A custom operator is given with `custom_op` instead.
OPERATORS = ("sum", "min", "max", "bit_and", "bit_or", "bit_xor")

#: The names `algorithm` takes: "automatic" lets clscan choose per device and size.
ALGORITHMS = ("automatic", "single_pass", "three_stage")


class _Operand:
    """An array checked for clscan: its buffer handle, element offset and OpenCL C type. `types` maps
    the dtypes it may have to OpenCL C types; `accepted` says which they are."""

    __slots__ = ("array", "buffer_ptr", "offset", "type")

    def __init__(self, array, name, types=_OPENCL_TYPE, accepted=_DTYPES_TEXT):
        if not isinstance(array, cla.Array):
            raise TypeError(f"clscan: {name} must be a pyopencl.array.Array, not {type(array).__name__}")
        self.array = array
        self.type = types.get(array.dtype)
        if self.type is None:
            raise InvalidArgumentError(f"clscan: {name} has dtype {array.dtype}; {accepted}")
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


def _parameters(parameters):
    """The (name, OpenCL C type, value) triples of `parameters`, a dict of names to numbers that the
    expressions read: a numpy scalar of one of DTYPES keeps its type (np.float32(0.5) is a float), a
    Python int is a long and a Python float a double. The library checks the names."""
    if parameters is None:
        return []
    if not isinstance(parameters, dict):
        raise TypeError(f"clscan: parameters must be a dict of names to numbers, not "
                        f"{type(parameters).__name__}")
    triples = []
    for name, value in parameters.items():
        if not isinstance(name, str):
            raise TypeError(f"clscan: a parameter's name must be a str, not {type(name).__name__}")
        what = f"parameters[{name!r}]"
        if isinstance(value, np.generic) and value.dtype in _OPENCL_TYPE:
            dtype = value.dtype
            value = value.item()
        elif isinstance(value, (bool, np.bool_)):
            raise TypeError(f"clscan: {what} is a bool; give a number (e.g. np.int32(1))")
        elif isinstance(value, numbers.Integral):
            dtype = np.dtype(np.int64)
        elif isinstance(value, numbers.Real):
            dtype = np.dtype(np.float64)
        else:
            raise TypeError(f"clscan: {what} must be a number or a numpy scalar of {_DTYPES_TEXT}, "
                            f"not {value!r}")
        triples.append((name, _OPENCL_TYPE[dtype], _element_value(value, dtype, what)))
    return triples


def _expression(text, name):
    if text is None:
        return ""
    if not isinstance(text, str):
        raise TypeError(f"clscan: {name} must be a str, not {type(text).__name__}")
    return text


def _key_equal(key_equal):
    return _expression(key_equal, "key_equal")


def _command_queue(array, queue):
    if queue is None:
        queue = array.queue
        if queue is None:
            raise InvalidArgumentError("clscan: the array has no queue; pass queue=")
    if not isinstance(queue, cl.CommandQueue):
        raise TypeError(f"clscan: queue must be a pyopencl.CommandQueue, not {type(queue).__name__}")
    return queue


def _same_context(queue, **arrays):
    """Checks that each named array (None for one not given) lives in the queue's context. Checked
    here, before the arrays' events join the wait list, so that the message names the argument the
    caller gave rather than an event of the wait list."""
    for name, array in arrays.items():
        if array is not None and array.context != queue.context:
            raise InvalidArgumentError(f"clscan: {name} belongs to another context than the queue")


def _wait_list(wait_for, arrays):
    """The user's events, then those PyOpenCL recorded on the arrays (Array.events), as PyOpenCL's
    own operations wait for them."""
    events = []
    if wait_for is None:
        wait_for = ()
    elif isinstance(wait_for, (cl.Event, str, bytes)) or not hasattr(wait_for, "__iter__"):
        # As PyOpenCL's own wait_for: a sequence of events, even for one.
        raise TypeError(f"clscan: wait_for takes a sequence of pyopencl.Event, not a {type(wait_for).__name__}")
    for event in wait_for:
        if not isinstance(event, cl.Event):
            raise TypeError(f"clscan: wait_for holds a {type(event).__name__}, not a pyopencl.Event")
        events.append(event)
    seen = set()
    for array in arrays:
        if id(array) not in seen:
            seen.add(id(array))
            events.extend(array.events)
    return events


def _same_layout(array, name, ary):
    """Checks that `array` (out, keys, flags) has as many elements as `ary`."""
    if array.size != ary.size:
        raise InvalidArgumentError(
            f"clscan: {name} has {array.size} elements, ary {ary.size}; they must be the same")


def _output(out, ary, converts=False):
    """The checked operand of `out` (an array of ary's dtype and size; of any dtype clscan takes
    where a transform `converts` ary's elements), or None when out is None or ary."""
    if out is None or out is ary:
        return None
    target = _Operand(out, "out")
    if out.dtype != ary.dtype and not converts:
        raise InvalidArgumentError(
            f"clscan: out has dtype {out.dtype}, ary {ary.dtype}; they must be the same (or give a "
            "transform, whose result takes out's dtype)")
    _same_layout(out, "out", ary)
    return target


def _check_algorithm(algorithm):
    if algorithm not in ALGORITHMS:
        raise InvalidArgumentError(
            f"clscan: unknown algorithm {algorithm!r} (use one of {', '.join(ALGORITHMS)})")


def _operator(dtype, op, custom_op, custom_identity, initial):
    """The checked (op, custom_op, custom_identity, initial) of a scan of `dtype`."""
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
        custom_identity = _element_value(custom_identity, dtype, "custom_identity")
    else:
        if op not in OPERATORS:
            raise InvalidArgumentError(
                f"clscan: unknown op {op!r} (use one of {', '.join(OPERATORS)}, or custom_op=)")
        if custom_identity is not None:
            raise InvalidArgumentError("clscan: custom_identity is given without custom_op")
    if initial is not None:
        initial = _element_value(initial, dtype, "initial")
    return op, custom_op or "", custom_identity, initial


def _raise_if_failed(event, what):
    """Raises OpenCLError when `event`, terminal by now, failed."""
    status = event.command_execution_status
    if status < 0:
        raise OpenCLError(f"{what} failed: status {status}: it did not complete (an event of wait_for "
                          "failed after the call?); the result is not returned", status, what)


def _add_event(event, arrays):
    """Adds `event` to the events of each array (once), so that PyOpenCL's own operations on them
    wait for it: readers of an output wait for the result, and a later write to an input (on an
    out-of-order queue) waits until the call has read it."""
    seen = set()
    for array in arrays:
        if array is not None and id(array) not in seen:
            seen.add(id(array))
            array.add_event(event)


def _scan(kind, ary, out, op, custom_op, custom_identity, initial, deterministic, algorithm, wait_for,
          queue, parameters=None, transform=None):
    source = _Operand(ary, "ary")
    transform = _expression(transform, "transform")
    # A transform may read ary as its own dtype and give out's: the scan is of out's.
    target = _output(out, ary, converts=bool(transform)) or source
    queue = _command_queue(ary, queue)
    op, custom_op, custom_identity, initial = _operator(target.array.dtype, op, custom_op,
                                                       custom_identity, initial)
    _check_algorithm(algorithm)

    _same_context(queue, ary=ary, out=out)
    waits = _wait_list(wait_for, (source.array, target.array))
    if ary.size == 0:
        # Nothing to scan and no buffer to pass (PyOpenCL allocates none for empty arrays).
        event = cl.enqueue_marker(queue, wait_for=waits or None)
    else:
        event_ptr = _native.scan(
            kind, target.type, queue.int_ptr, source.buffer_ptr, source.offset, target.buffer_ptr,
            target.offset, ary.size, op, custom_op, custom_identity, initial, bool(deterministic),
            algorithm, [e.int_ptr for e in waits], parameters=_parameters(parameters),
            transform=transform, input_type=source.type if source.type != target.type else "")
        event = cl.Event.from_int_ptr(event_ptr, retain=False)
    _add_event(event, (target.array, source.array))
    return event


def _at_offset_zero(queue, operand, n, waits):
    """(buffer handle, copy event): operand's n elements copied to the start of a buffer of their
    own, after `waits`. The buffer is released when its Python object goes, which OpenCL defers until
    the commands that use it have finished."""
    itemsize = operand.array.dtype.itemsize
    copy = cl.Buffer(queue.context, cl.mem_flags.READ_WRITE, n * itemsize)
    event = cl.enqueue_copy(queue, copy, operand.array.base_data, byte_count=n * itemsize,
                            src_offset=operand.offset * itemsize, dst_offset=0, wait_for=waits or None)
    return copy, event


def _scan_by_key(kind, keys, ary, out, op, custom_op, custom_identity, initial, deterministic,
                 algorithm, wait_for, queue, parameters=None, key_equal=None):
    source = _Operand(ary, "ary")
    key_source = _Operand(keys, "keys")
    _same_layout(keys, "keys", ary)
    target = _output(out, ary) or source
    queue = _command_queue(ary, queue)
    op, custom_op, custom_identity, initial = _operator(ary.dtype, op, custom_op, custom_identity,
                                                       initial)
    _check_algorithm(algorithm)

    _same_context(queue, keys=keys, ary=ary, out=out)
    waits = _wait_list(wait_for, (source.array, key_source.array, target.array))
    n = ary.size
    if n == 0:
        event = cl.enqueue_marker(queue, wait_for=waits or None)
    else:
        keys_ptr, in_ptr, in_offset = key_source.buffer_ptr, source.buffer_ptr, source.offset
        scan_waits = waits
        copies = []  # held until the scan is enqueued; OpenCL keeps them for it after that
        if key_source.offset != source.offset:
            # The library reads the keys and the input at one offset: whichever of them is not at
            # the start of its buffer is copied to the start of one of its own.
            scan_waits = list(waits)
            if key_source.offset != 0:
                copy, copied = _at_offset_zero(queue, key_source, n, waits)
                copies.append(copy)
                keys_ptr = copy.int_ptr
                scan_waits.append(copied)
            if source.offset != 0:
                copy, copied = _at_offset_zero(queue, source, n, waits)
                copies.append(copy)
                in_ptr = copy.int_ptr
                scan_waits.append(copied)
            in_offset = 0
        event_ptr = _native.scan_by_key(
            kind, key_source.type, source.type, queue.int_ptr, keys_ptr, in_ptr, in_offset,
            target.buffer_ptr, target.offset, n, op, custom_op, custom_identity, initial,
            bool(deterministic), algorithm, [e.int_ptr for e in scan_waits],
            parameters=_parameters(parameters), key_equal=_key_equal(key_equal))
        event = cl.Event.from_int_ptr(event_ptr, retain=False)
    _add_event(event, (target.array, source.array, key_source.array))
    return event


def _select(kind, ary, flags, predicate, out, count_out, algorithm, wait_for, queue, parameters=None,
            key_equal=None):
    source = _Operand(ary, "ary")
    flag_source = None
    if flags is not None:
        flag_source = _Operand(flags, "flags", _FLAG_TYPE, "flags must be uint8, int8 or bool")
        _same_layout(flags, "flags", ary)
    if kind in ("select_if", "partition_if"):
        if not isinstance(predicate, str):
            raise TypeError(f"clscan: predicate must be a str, not {type(predicate).__name__}")
        if not predicate:
            raise InvalidArgumentError(
                "clscan: the predicate is empty; give an OpenCL C expression of x (the element) and "
                "i (its index), e.g. \"x > 0\"")
    queue = _command_queue(ary, queue)
    if out is None:
        out = cla.empty(queue, ary.size, ary.dtype, allocator=ary.allocator)
    # An `out` of another size than ary's is sized for the result (Thrust's and Boost's way): the
    # library writes no element past its end. One of no elements names ary's own range, where nothing
    # is written (the library needs a buffer even then).
    capacity = None
    if out is ary:
        target = source
    else:
        target = _Operand(out, "out")
        if out.dtype != ary.dtype:
            raise InvalidArgumentError(
                f"clscan: out has dtype {out.dtype}, ary {ary.dtype}; they must be the same")
        if out.size != ary.size:
            capacity = out.size
            if out.size == 0:
                target = source
    count_target = None
    if count_out is not None:
        count_target = _Operand(count_out, "count_out", _COUNT_TYPE, "count_out must be uint64")
        if count_out.size != 1:
            raise InvalidArgumentError(
                f"clscan: count_out has {count_out.size} elements; it must have one (e.g. "
                "cla.empty(queue, 1, np.uint64), or c[i:i + 1] of a longer array)")
    _check_algorithm(algorithm)

    arrays = (source.array, flags, out, count_out)
    _same_context(queue, ary=ary, flags=flags, out=out, count_out=count_out)
    waits = _wait_list(wait_for, [a for a in arrays if a is not None])
    count = 0
    if ary.size == 0:
        if count_target is None:
            event = cl.enqueue_marker(queue, wait_for=waits or None)
        else:
            itemsize = count_out.dtype.itemsize
            event = cl.enqueue_fill_buffer(queue, count_out.base_data, np.zeros(1, np.uint64),
                                           count_target.offset * itemsize, itemsize,
                                           wait_for=waits or None)
    else:
        event_ptr, count = _native.select(
            kind, source.type, queue.int_ptr, source.buffer_ptr, source.offset,
            flag_source.buffer_ptr if flag_source else 0, flag_source.offset if flag_source else 0,
            target.buffer_ptr, target.offset, count_target.buffer_ptr if count_target else 0,
            count_target.offset if count_target else 0, ary.size, predicate or "", algorithm,
            [e.int_ptr for e in waits], parameters=_parameters(parameters),
            key_equal=_key_equal(key_equal), out_capacity=capacity)
        event = cl.Event.from_int_ptr(event_ptr, retain=False)
    _add_event(event, arrays)

    result = out if out.ndim == 1 else out.reshape(out.size)
    if count_target is not None:
        return result, event
    if ary.size == 0:
        event.wait()
    return (result if kind == "partition_if" else result[:min(count, out.size)]), count


def inclusive(ary, out=None, *, op="sum", custom_op=None, custom_identity=None, initial=None,
              deterministic=False, algorithm="automatic", wait_for=None, queue=None, parameters=None,
              transform=None):
    """Inclusive scan: out[i] = ary[0] op ary[1] op ... op ary[i].

    Args:
        ary: a contiguous pyopencl.array.Array of int32, uint32, int64, uint64, float32 or float64.
            Scanned in place when `out` is None.
        out: an array of the same size, and of ary's dtype unless a transform converts, to write the
            result to; `ary` is then not modified. It must not overlap `ary` (unless it is `ary`).
        op: "sum" (default), "min", "max", "bit_and", "bit_or" or "bit_xor" (integers only).
            Integer sums wrap around; floating-point min and max are fmin and fmax.
        custom_op: instead of `op`, an associative OpenCL C expression of `a` and `b` (both of the
            element type), e.g. "a * b". A text that does not compile raises BuildError.
        custom_identity: the identity element of `custom_op` (required with it), e.g. 1 for "a * b".
        parameters: a dict of names to numbers that `custom_op` reads, e.g. {"m": np.uint32(97)}
            for "(a + b) % m": a numpy scalar keeps its dtype, a Python int is an int64 and a float a
            float64. The values are kernel arguments: new values build nothing.
        transform: an OpenCL C expression of `x` (an element of `ary`) and `i` (its index), applied
            to each element as it is read, e.g. "x * x": the scan of f(x) without writing f(x) first.
            Its result is converted to out's dtype, which may differ from ary's (the scan is then of
            out's dtype, `initial` and `custom_op` too), e.g. a uint32 count of positive float32
            elements: inclusive(a, out=counts, transform="x > 0 ? 1 : 0"); `initial` is not
            transformed.
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
                 algorithm, wait_for, queue, parameters, transform)


def exclusive(ary, out=None, *, op="sum", custom_op=None, custom_identity=None, initial=None,
              deterministic=False, algorithm="automatic", wait_for=None, queue=None, parameters=None,
              transform=None):
    """Exclusive scan: out[0] = initial, out[i] = initial op ary[0] op ... op ary[i-1].

    Without `initial` the first element is the operator's identity: 0 for integer sums, -0.0 for
    floating-point sums, NaN for floating-point min and max (fmin and fmax ignore it), the type's
    largest and smallest values for integer min and max, and `custom_identity` for a custom_op.

    The arguments, return value and exceptions are those of inclusive().
    """
    return _scan("exclusive", ary, out, op, custom_op, custom_identity, initial, deterministic,
                 algorithm, wait_for, queue, parameters, transform)


def inclusive_by_key(keys, ary, out=None, *, op="sum", custom_op=None, custom_identity=None,
                     initial=None, deterministic=False, algorithm="automatic", wait_for=None,
                     queue=None, parameters=None, key_equal=None):
    """Inclusive scan by key: each run of equal consecutive keys is a segment, scanned on its own.
    out[i] = ary[s] op ... op ary[i], where s is the first index of i's segment (keys[s - 1] !=
    keys[s], compared with ==, so a NaN key is a segment of its own).

    Args:
        keys: a contiguous pyopencl.array.Array of int32, uint32, int64, uint64, float32 or float64
            with as many elements as `ary` (its dtype need not be ary's). It is only read, and must
            not overlap the output. Keys and `ary` at different offsets into their buffers (e.g.
            keys[2:] with a[5:]) cost a copy, on the device, of whichever is not at offset 0.
        ary, out, op, custom_op, custom_identity, deterministic, algorithm, wait_for, queue,
            parameters: as for inclusive(); without `out` the scan is in place. The parameters are
            also names in `key_equal`.
        key_equal: an OpenCL C expression of `a` and `b`, neighbouring keys (a the one before),
            true where b continues a's segment, e.g. "a / 16 == b / 16". None: ==.
        initial: every segment starts from it: out[i] = initial op ary[s] op ... op ary[i].

    Returns:
        A pyopencl.Event that completes when the result is in place, also added to the events of
        `keys`, `ary` and `out` (Array.events). The call does not wait for the device.

    Raises:
        The exceptions of inclusive(); InvalidArgumentError also for keys of another size, and
        UnsupportedError for float64 keys on a device without fp64.
    """
    return _scan_by_key("inclusive", keys, ary, out, op, custom_op, custom_identity, initial,
                        deterministic, algorithm, wait_for, queue, parameters, key_equal)


def exclusive_by_key(keys, ary, out=None, *, op="sum", custom_op=None, custom_identity=None,
                     initial=None, deterministic=False, algorithm="automatic", wait_for=None,
                     queue=None, parameters=None, key_equal=None):
    """Exclusive scan by key: out[s] = initial (else the operator's identity, as for exclusive()) at
    the first index s of each segment of equal consecutive keys, then
    out[i] = initial op ary[s] op ... op ary[i - 1] within it.

    The arguments, return value and exceptions are those of inclusive_by_key().
    """
    return _scan_by_key("exclusive", keys, ary, out, op, custom_op, custom_identity, initial,
                        deterministic, algorithm, wait_for, queue, parameters, key_equal)


def select_if(ary, predicate, *, out=None, count_out=None, algorithm="automatic", wait_for=None,
              queue=None, parameters=None):
    """Stream compaction: the elements of `ary` for which `predicate` holds, in order.

        kept, count = clscan.select_if(a, "x > 0")   # kept.get() == a.get()[a.get() > 0]

    The call waits for the device until the count is known (a blocking read of 8 bytes), unless
    `count_out` is given.

    Args:
        ary: a contiguous pyopencl.array.Array of int32, uint32, int64, uint64, float32 or float64,
            taken in C order (as if flattened). It is not modified.
        predicate: an OpenCL C boolean expression of x (the element, of ary's type) and i (its index
            in `ary`, a ulong), e.g. "x > 0" or "(i & 1) == 0 && x != 0"; one expression, no
            statements or comments. An empty one raises InvalidArgumentError, one that does not
            compile BuildError (with the compiler's build_log).
        out: an array of ary's dtype to write the result to (elements past the count keep their
            contents); by default a new one of ary's size. It may be `ary` itself (in place: the
            library copies `ary` to a temporary of its own first, as many bytes again of device
            memory), and must not overlap `ary` otherwise. One of fewer elements than `ary` is sized
            for the result: no element past its end is written, and the count still counts every
            selected element (compare it with out.size to learn whether all fitted).
        count_out: a pyopencl array of one uint64 (e.g. cla.empty(queue, 1, np.uint64), or c[i:i + 1]
            of a longer one) for the count. The call then does not wait for the device.
        algorithm: "automatic" (one pass where the device qualifies for it) or "three_stage";
            "single_pass" forces the former.
        wait_for, queue: as for inclusive().
        parameters: a dict of names to numbers the predicate reads, e.g.
            select_if(a, "x > threshold", parameters={"threshold": np.float32(0.5)}); numbers as for
            inclusive(). New values build nothing.

    Returns:
        (out[:min(count, out.size)], count): a view of the selected elements written to `out`
        (flattened) and the count, a Python int; the selection has finished. With count_out: (out, event), `out`
        flattened and the event completing when `out` and `count_out` are written. The event is
        also added to the events of `ary`, `out` and `count_out` (Array.events).

    Raises:
        The exceptions of inclusive().
    """
    return _select("select_if", ary, None, predicate, out, count_out, algorithm, wait_for, queue,
                   parameters)


def select_flagged(ary, flags, *, out=None, count_out=None, algorithm="automatic", wait_for=None,
                   queue=None):
    """The elements of `ary` whose flag is nonzero, in order.

        kept, count = clscan.select_flagged(a, b > 0)   # kept.get() == a.get()[b.get() > 0]

    `flags` is a contiguous pyopencl array of uint8, int8 or bool with as many elements as `ary`
    (taken in C order), such as the int8 array of a PyOpenCL comparison, and must not overlap `out`.
    The other arguments, the return value and the exceptions are those of select_if(); like it, the
    call waits for the count unless `count_out` is given.
    """
    return _select("select_flagged", ary, flags, None, out, count_out, algorithm, wait_for, queue)


def partition_if(ary, predicate, *, out=None, count_out=None, algorithm="automatic", wait_for=None,
                 queue=None, parameters=None):
    """Stable partition: the elements for which `predicate` holds, in order, then the others, in
    order.

        parts, k = clscan.partition_if(a, "x > 0")   # parts[:k] the positive elements, parts[k:] the rest

    Returns (out, count): all of `out` (flattened) is written (an `out` smaller than `ary`: its
    out.size first elements), and count is the number of elements for which `predicate` holds. The arguments, the exceptions and count_out are those of
    select_if(); the call waits for the count unless `count_out` is given. It always runs the
    three-stage algorithm (it must know the count before it writes the other elements).
    """
    return _select("partition_if", ary, None, predicate, out, count_out, algorithm, wait_for, queue,
                   parameters)


def unique(ary, *, out=None, count_out=None, algorithm="automatic", wait_for=None, queue=None,
           key_equal=None, parameters=None):
    """The first element of every run of equal consecutive elements (compared with ==, so every NaN
    is kept), in order: numpy's x[np.concatenate(([True], x[1:] != x[:-1]))].

    key_equal: an OpenCL C expression of `a` and `b`, neighbouring elements (a the one before), true
    where b repeats a and is left out, e.g. "a / 16 == b / 16"; it may read `parameters` (as for
    select_if()). None: ==. The other arguments, the return value and the exceptions are those of
    select_if(); like it, the call waits for the count unless `count_out` is given.
    """
    return _select("unique", ary, None, None, out, count_out, algorithm, wait_for, queue, parameters,
                   key_equal)


def _total_dtype(ary, out, dtype, transform):
    """The dtype of reduce's total: `dtype`, else with a transform out's, else ary's; another than
    ary's only with a transform."""
    if dtype is not None:
        total = np.dtype(dtype)
    elif transform and isinstance(out, cla.Array):
        total = out.dtype
    else:
        total = ary.dtype
    if total not in _OPENCL_TYPE:
        raise InvalidArgumentError(f"clscan: dtype {total}; {_DTYPES_TEXT}")
    if total != ary.dtype and not transform:
        raise InvalidArgumentError(
            f"clscan: the total's dtype {total} is not ary's {ary.dtype}; only a transform converts "
            "(give one, e.g. transform=\"x\")")
    return total


def _one_element(array, name, dtype):
    """The checked operand of `array`, which must hold one element of `dtype`."""
    operand = _Operand(array, name)
    if array.dtype != dtype:
        raise InvalidArgumentError(
            f"clscan: {name} has dtype {array.dtype}, the total {dtype}; they must be the same")
    if array.size != 1:
        raise InvalidArgumentError(
            f"clscan: {name} has {array.size} elements; it must have one (e.g. t[i:i + 1] of a longer "
            "array)")
    return operand


def reduce(ary, out=None, *, op="sum", custom_op=None, custom_identity=None, initial=None,
           wait_for=None, queue=None, parameters=None, transform=None, dtype=None):
    """The total of `ary` under `op`: initial op ary[0] op ... op ary[n - 1] (all elements in C order).

        total = clscan.reduce(a)                        # waits; a numpy scalar of a's dtype
        event = clscan.reduce(a, out=t[2:3])            # t[2] = the total; does not wait
        clscan.reduce(b, out=t[0:1], initial=t[2:3])    # t[0] = t[2] + sum(b), read on the device

    Args:
        ary: a contiguous pyopencl.array.Array of int32, uint32, int64, uint64, float32 or float64.
            It is not modified. An empty one gives `initial`, or the operator's identity (as for
            exclusive()).
        out: a pyopencl array of one element of the total's dtype (ary's, or `dtype`; e.g.
            t[i:i + 1]) that receives the total; the call then returns an event without waiting. It may lie in ary's buffer (the
            total is written after every element is read), but not overlap it through another
            buffer.
        op, custom_op, custom_identity, parameters, transform: as for inclusive(). A custom_op need
            not be commutative: elements are combined in their order.
        dtype: with a transform, the dtype of the total where it is not ary's (its result is
            converted to it), e.g. np.int64 for the sum of an int32 array without overflow:
            reduce(a, transform="x", dtype=np.int64). Default: with a transform out's dtype, else
            ary's.
        initial: a number combined in front of the first element, or a pyopencl array of one element
            of ary's dtype whose value is read on the device when the call runs (a total of an
            earlier call, without reading it back).
        wait_for, queue: as for inclusive().

    The result has the same bits every run on a device, for floating-point types too.

    Returns:
        Without `out`: the total, a numpy scalar of ary's dtype (the call waits for it). With `out`:
        a pyopencl.Event completing when it is written, also added to the events of `ary`, `out` and
        an `initial` array (Array.events).

    Raises:
        The exceptions of inclusive(); InvalidArgumentError also for an `out` or `initial` array that
        is not one element of ary's dtype.
    """
    source = _Operand(ary, "ary")
    queue = _command_queue(ary, queue)
    transform = _expression(transform, "transform")
    total_dtype = _total_dtype(ary, out, dtype, transform)
    initial_array = None
    initial_source = None
    if isinstance(initial, cla.Array):
        initial_array = initial
        initial_source = _one_element(initial, "initial", total_dtype)
        initial = None
    op, custom_op, custom_identity, initial = _operator(total_dtype, op, custom_op, custom_identity,
                                                       initial)
    wait_for_result = out is None
    if out is None:
        out = cla.empty(queue, 1, total_dtype, allocator=ary.allocator)
    target = _one_element(out, "out", total_dtype)

    arrays = [a for a in (ary, out, initial_array) if a is not None]
    _same_context(queue, ary=ary, out=out, initial=initial_array)
    waits = _wait_list(wait_for, arrays)
    # An empty array has no buffer (PyOpenCL allocates none): the output's, of which nothing is read,
    # stands in for it.
    in_ptr, in_offset = (source.buffer_ptr, source.offset) if ary.size else (target.buffer_ptr,
                                                                            target.offset)
    event_ptr = _native.reduce(
        target.type, queue.int_ptr, in_ptr, in_offset, target.buffer_ptr, target.offset, ary.size, op,
        custom_op, custom_identity, initial, initial_source.buffer_ptr if initial_source else 0,
        initial_source.offset if initial_source else 0, [e.int_ptr for e in waits],
        parameters=_parameters(parameters), transform=transform,
        # (An empty ary passes out's buffer and offset instead of its own: of out's dtype.)
        input_type=source.type if ary.size and source.type != target.type else "")
    event = cl.Event.from_int_ptr(event_ptr, retain=False)
    _add_event(event, arrays)
    if not wait_for_result:
        return event
    try:
        total = out.get(queue)[0]
    except cl.Error:
        _raise_if_failed(event, "the reduce")
        raise
    # The read can also succeed although the reduce it waited for failed (an event of wait_for that
    # failed after the call): the value it read is not the total.
    _raise_if_failed(event, "the reduce")
    return total


# argsort's index dtypes -> the OpenCL C type the library writes (the same bits for n < 2^63 and
# 2^31 respectively).
_INDEX_TYPE = {
    np.dtype(np.int64): "ulong",
    np.dtype(np.uint64): "ulong",
    np.dtype(np.int32): "uint",
    np.dtype(np.uint32): "uint",
}


def _sort_axis(ary, axis):
    """numpy's axis argument of a sort: clscan sorts the flattened array, so a 1-D array (axis -1 or
    0) or axis=None (any shape, as np.sort(a, axis=None))."""
    if axis is None or (ary.ndim <= 1 and axis in (0, -1)):
        return
    raise InvalidArgumentError(
        f"clscan: sorts along axis {axis} of a {ary.ndim}-D array are not supported; pass axis=None to "
        "sort the flattened array (as np.sort(a, axis=None))")


def _sort_bits(dtype, begin_bit, end_bit):
    bits = 8 * dtype.itemsize
    for name, value in (("begin_bit", begin_bit), ("end_bit", end_bit)):
        if value is None and name == "end_bit":
            continue
        try:
            operator.index(value)
        except TypeError:
            raise TypeError(f"clscan: {name} must be an int, not {type(value).__name__}") from None
    if not 0 <= begin_bit <= (bits if end_bit is None else end_bit) <= bits:
        raise InvalidArgumentError(
            f"clscan: bits [{begin_bit}, {bits if end_bit is None else end_bit}) are not a range of the "
            f"{bits} bits of a {dtype} key (0 <= begin_bit <= end_bit <= {bits})")
    return int(begin_bit), None if end_bit is None else int(end_bit)


def _new_like(ary, queue, dtype=None):
    return cla.empty(queue, ary.size, dtype or ary.dtype, allocator=ary.allocator)


def _sort_call(kind, keys, keys_out, values, values_out, descending, begin_bit, end_bit, algorithm,
               wait_for, queue):
    """Enqueues one sort: keys (and values) are checked operands; keys_out / values_out are the
    arrays to write (checked here). Returns the event, added to every array's events."""
    key_source = _Operand(keys, "keys" if kind != "sort" else "ary")
    queue = _command_queue(keys, queue)
    begin_bit, end_bit = _sort_bits(keys.dtype, begin_bit, end_bit)
    _check_algorithm(algorithm)
    key_target = None
    if keys_out is not None:
        key_target = _Operand(keys_out, "keys_out" if kind == "sort_by_key" else "out")
        if keys_out.dtype != keys.dtype:
            raise InvalidArgumentError(
                f"clscan: the sorted keys' array has dtype {keys_out.dtype}, the keys {keys.dtype}; they "
                "must be the same")
        _same_layout(keys_out, "the sorted keys' array", keys)
    value_source = value_target = None
    if values is not None:
        value_source = _Operand(values, "values")
        _same_layout(values, "values", keys)
    if values_out is not None:
        if kind == "sorted_order":
            value_target = _Operand(values_out, "out", _INDEX_TYPE,
                                    "indices must be int64, uint64, int32 or uint32")
            if values_out.dtype.itemsize == 4 and keys.size > np.iinfo(values_out.dtype).max + 1:
                raise InvalidArgumentError(
                    f"clscan: {keys.size} keys have indices past {values_out.dtype}; use int64")
        else:
            value_target = _Operand(values_out, "values_out")
            if values_out.dtype != values.dtype:
                raise InvalidArgumentError(
                    f"clscan: values_out has dtype {values_out.dtype}, values {values.dtype}; they must be "
                    "the same")
        _same_layout(values_out, "the output", keys)
    arrays = [a for a in (keys, values, keys_out, values_out) if a is not None]
    waits = _wait_list(wait_for, arrays)
    if keys.size == 0:
        event = cl.enqueue_marker(queue, wait_for=waits or None)
    else:
        value_type = "uint"
        if kind == "sorted_order":
            value_type = value_target.type
        elif value_source is not None:
            value_type = value_source.type
        event_ptr = _native.sort(
            kind, key_source.type, value_type, queue.int_ptr, key_source.buffer_ptr, key_source.offset,
            key_target.buffer_ptr if key_target else 0, key_target.offset if key_target else 0,
            value_source.buffer_ptr if value_source else 0, value_source.offset if value_source else 0,
            value_target.buffer_ptr if value_target else 0, value_target.offset if value_target else 0,
            keys.size, bool(descending), begin_bit, end_bit, algorithm, [e.int_ptr for e in waits])
        event = cl.Event.from_int_ptr(event_ptr, retain=False)
    _add_event(event, arrays)
    return event


def sort(ary, out=None, *, axis=-1, descending=False, begin_bit=0, end_bit=None, algorithm="automatic",
         wait_for=None, queue=None):
    """A stable sort of `ary`, as np.sort(ary, kind="stable") (a new array, unless `out` is given).

        s = clscan.sort(a)                  # s.get() == np.sort(a.get(), kind="stable")
        clscan.sort(a, out=a)               # in place, as a.sort() in numpy

    The order is numpy's: integers numerically; floating point -inf < ... < -0.0 == +0.0 < ... < +inf
    < NaN, where -0.0 and +0.0 are equal (they keep their input order) and every NaN, of any sign or
    payload, goes last in input order. The result holds the input's own bits (-0.0 stays -0.0, a NaN
    keeps its payload).

    Args:
        ary: a contiguous pyopencl.array.Array of int32, uint32, int64, uint64, float32 or float64,
            1-D (or any shape with axis=None: sorted flattened, as np.sort(a, axis=None)).
        out: where to write the sorted elements: an array of ary's dtype and size (flattened as
            `ary`); `ary` itself sorts in place. Otherwise it must not overlap `ary`. Default: a new
            1-D array.
        axis: -1 or 0 for a 1-D array, or None; clscan does not sort along one axis of a
            multidimensional array.
        descending: largest first, with the NaNs still last (in input order), unlike
            np.sort(a)[::-1], which puts them first and reverses equal keys.
        begin_bit, end_bit: sort on bits [begin_bit, end_bit) of the key's order-preserving unsigned
            image only (clscan/sort.hpp), e.g. end_bit=20 for unsigned keys below 2^20: fewer passes.
            end_bit None means all of the key's bits.
        algorithm, wait_for, queue: as for inclusive().

    Returns:
        The sorted array (`out`, or the new one), flattened; the call does not wait for the device.
        Its event is added to the events of `ary` and the result (Array.events), so .get() waits.

    Raises:
        The exceptions of inclusive(); InvalidArgumentError also for a bit range outside the key or
        an axis of a multidimensional array.
    """
    _sort_axis(ary, axis)
    queue_ = _command_queue(ary, queue)
    if out is None:
        out = _new_like(ary, queue_)
    _sort_call("sort", ary, out, None, None, descending, begin_bit, end_bit, algorithm, wait_for, queue)
    return out if out.ndim == 1 else out.reshape(out.size)


def argsort(ary, *, axis=-1, descending=False, begin_bit=0, end_bit=None, dtype=np.int64, out=None,
            algorithm="automatic", wait_for=None, queue=None):
    """The indices that sort `ary` stably, as np.argsort(ary, kind="stable"): ary[result] is sorted,
    and equal keys appear in their input order.

        order = clscan.argsort(a)           # order.get() == np.argsort(a.get(), kind="stable")

    The order of floating-point keys (NaNs last, -0.0 == +0.0), `axis`, `descending`, `begin_bit`,
    `end_bit`, `algorithm`, `wait_for` and `queue` are those of sort(). `ary` is not modified.

    Args:
        dtype: the indices' dtype: int64 (default, numpy's), uint64, or int32 / uint32 (half the
            memory) where the indices fit.
        out: an array of `dtype` and ary's size to write them to; default a new one.

    Returns:
        The indices (a 1-D array); the call does not wait for the device. Its event is added to the
        events of `ary` and the result.
    """
    _sort_axis(ary, axis)
    queue_ = _command_queue(ary, queue)
    if out is None:
        dtype = np.dtype(dtype)
        if dtype not in _INDEX_TYPE:
            raise InvalidArgumentError(
                f"clscan: argsort's dtype is {dtype}; use int64, uint64, int32 or uint32")
        out = _new_like(ary, queue_, dtype)
    _sort_call("sorted_order", ary, None, None, out, descending, begin_bit, end_bit, algorithm, wait_for,
               queue)
    return out if out.ndim == 1 else out.reshape(out.size)


def sort_by_key(keys, values, keys_out=None, values_out=None, *, descending=False, begin_bit=0,
                end_bit=None, algorithm="automatic", wait_for=None, queue=None):
    """Sorts `keys` stably and moves `values` with them: numpy's
    order = np.argsort(keys, kind="stable"); keys[order], values[order].

        k, v = clscan.sort_by_key(keys, values)                 # new arrays
        clscan.sort_by_key(keys, values, keys, values)          # in place

    Args:
        keys: as sort()'s `ary` (1-D, or taken flattened).
        values: a contiguous array of any of clscan's dtypes with as many elements as `keys`.
        keys_out, values_out: where the sorted keys and values go, arrays of the keys' and values'
            dtype and size; the inputs themselves (both) sort in place. Default: new arrays.
        descending, begin_bit, end_bit, algorithm, wait_for, queue: as for sort().

    Returns:
        (sorted keys, sorted values), flattened; the call does not wait for the device. Its event is
        added to the events of every array.
    """
    if not isinstance(values, cla.Array):
        raise TypeError(f"clscan: values must be a pyopencl.array.Array, not {type(values).__name__}")
    queue_ = _command_queue(keys, queue)
    if keys_out is None:
        keys_out = _new_like(keys, queue_)
    if values_out is None:
        values_out = _new_like(values, queue_)
    _sort_call("sort_by_key", keys, keys_out, values, values_out, descending, begin_bit, end_bit,
               algorithm, wait_for, queue)
    flat = lambda a: a if a.ndim == 1 else a.reshape(a.size)  # noqa: E731
    return flat(keys_out), flat(values_out)


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


# Last: the calls on runs of equal keys use the checks above.
from ._runs import reduce_by_key, run_length_encode, unique_by_key  # noqa: E402
from ._segmented import exclusive_segmented, inclusive_segmented, reduce_segmented  # noqa: E402
