"""clscan.inclusive_segmented, exclusive_segmented and reduce_segmented: scans and reductions over segments
given by offsets, CSR style (CUB's DeviceSegmentedScan and DeviceSegmentedReduce), on the checks of the
package's other calls (clscan/__init__.py, which imports this module last)."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from . import (_Operand, _add_event, _check_algorithm, _command_queue, _native, _operator, _output,
               _parameters, _same_context, _wait_list)
from ._errors import InvalidArgumentError

# The offsets' dtypes -> the OpenCL C type the library reads.
_OFFSET_TYPE = {np.dtype(np.uint32): "uint", np.dtype(np.uint64): "ulong"}


def _offsets(offsets):
    operand = _Operand(offsets, "offsets", _OFFSET_TYPE, "offsets must be uint32 or uint64")
    if offsets.size == 0:
        raise InvalidArgumentError(
            "clscan: offsets is empty; it holds num_segments + 1 entries (one, [0], for no segments)")
    return operand


def _segmented(kind, ary, offsets, out, op, custom_op, custom_identity, initial, deterministic, algorithm,
               wait_for, queue, parameters):
    source = _Operand(ary, "ary")
    offset_source = _offsets(offsets)
    segments = offsets.size - 1
    queue = _command_queue(ary, queue)
    op, custom_op, custom_identity, initial = _operator(ary.dtype, op, custom_op, custom_identity,
                                                       initial)
    _check_algorithm(algorithm)
    result = None
    if kind == "reduce":
        if out is None:
            result = out = cla.empty(queue, segments, ary.dtype, allocator=ary.allocator)
        elif out.dtype != ary.dtype:
            raise InvalidArgumentError(f"clscan: out has dtype {out.dtype}, ary {ary.dtype}; they must be the same")
        elif out.size != segments:
            raise InvalidArgumentError(
                f"clscan: out has {out.size} elements; it must have one per segment, {segments} "
                "(offsets.size - 1)")
        target = _Operand(out, "out")
    else:
        target = _output(out, ary) or source

    arrays = [a for a in (ary, offsets, out) if a is not None]
    _same_context(queue, ary=ary, offsets=offsets, out=out)
    waits = _wait_list(wait_for, arrays)
    n = ary.size
    if (kind != "reduce" and n == 0) or (kind == "reduce" and segments == 0):
        # Nothing to write, and no buffer to pass (PyOpenCL allocates none for empty arrays).
        event = cl.enqueue_marker(queue, wait_for=waits or None)
    else:
        # An empty input has no buffer: a reduction's output, of which nothing is read, stands in for it.
        in_ptr, in_offset = (source.buffer_ptr, source.offset) if n else (target.buffer_ptr, target.offset)
        event_ptr = _native.segmented(
            kind, source.type, offset_source.type, queue.int_ptr, in_ptr, in_offset, target.buffer_ptr,
            target.offset, n, offset_source.buffer_ptr, offset_source.offset, segments, op, custom_op,
            custom_identity, initial, bool(deterministic), algorithm, [e.int_ptr for e in waits],
            parameters=_parameters(parameters))
        event = cl.Event.from_int_ptr(event_ptr, retain=False)
    _add_event(event, arrays)
    return result if result is not None else event


def inclusive_segmented(ary, offsets, out=None, *, op="sum", custom_op=None, custom_identity=None,
                        initial=None, deterministic=False, algorithm="automatic", wait_for=None, queue=None,
                        parameters=None):
    """Inclusive scan of each segment of `ary` on its own, segments given by offsets (CSR row pointers):
    segment s is ary[offsets[s]:offsets[s + 1]].

        clscan.inclusive_segmented(values, row_ptr)        # in place: per-row running sums

    Element i starts a segment when i == 0 or i equals some entry of `offsets` (the last one too), so
    entries at or past ary.size start nothing and their order does not matter; elements before
    offsets[0] and from offsets[-1] on are segments of their own. out[i] = ary[h] op ... op ary[i], h
    the start of i's segment (initial op ... where `initial` is given: every segment starts from it).

    Args:
        ary: a contiguous pyopencl.array.Array of int32, uint32, int64, uint64, float32 or float64,
            scanned in place when `out` is None.
        offsets: a contiguous pyopencl array of uint32 or uint64, num_segments + 1 entries (at least
            one). It is only read, and must not overlap `out`.
        out, op, custom_op, custom_identity, initial, deterministic, algorithm, wait_for, queue,
            parameters: as for inclusive_by_key() (no key_equal: the offsets give the segments).

    Returns:
        A pyopencl.Event that completes when the result is in place, also added to the events of
        `ary`, `offsets` and `out` (Array.events). The call does not wait for the device.

    Raises:
        The exceptions of inclusive(); InvalidArgumentError also for offsets of another dtype or none.
    """
    return _segmented("inclusive", ary, offsets, out, op, custom_op, custom_identity, initial,
                      deterministic, algorithm, wait_for, queue, parameters)


def exclusive_segmented(ary, offsets, out=None, *, op="sum", custom_op=None, custom_identity=None,
                        initial=None, deterministic=False, algorithm="automatic", wait_for=None, queue=None,
                        parameters=None):
    """Exclusive scan of each segment on its own: out[h] = initial (else the operator's identity) at
    the start h of each segment, then out[i] = initial op ary[h] op ... op ary[i - 1] within it.

    The segments, arguments, return value and exceptions are those of inclusive_segmented().
    """
    return _segmented("exclusive", ary, offsets, out, op, custom_op, custom_identity, initial,
                      deterministic, algorithm, wait_for, queue, parameters)


def reduce_segmented(ary, offsets, out=None, *, op="sum", custom_op=None, custom_identity=None, initial=None,
                     deterministic=False, algorithm="automatic", wait_for=None, queue=None, parameters=None):
    """The reduction of each segment: out[s] = initial op ary[b] op ... op ary[e - 1] with
    b = offsets[s], e = min(ary.size, offsets[s + 1]), or `initial` (else the operator's identity)
    where the segment is empty (b >= e). CUB's DeviceSegmentedReduce, on CSR offsets.

        sums = clscan.reduce_segmented(values, row_ptr)     # sums[s], s < row_ptr.size - 1

    Each range is reduced on its own, whatever the others: offsets that are not CSR (unsorted,
    overlapping ranges) give each segment the reduction of its own range.

    Args:
        ary, offsets, op, custom_op, custom_identity, initial, deterministic, algorithm, wait_for, queue,
            parameters: as for inclusive_segmented(); `ary` is not modified.
        out: an array of ary's dtype and offsets.size - 1 elements for the results; by default a new
            one. It must not overlap `offsets` (nor `ary`, but through the same buffer at the same
            element).

    Returns:
        Without `out`: the new array of results, whose events (Array.events) hold the call's: the call
        does not wait, and .get() waits for it. With `out`: a pyopencl.Event completing when it is
        written, also added to the events of `ary`, `offsets` and `out`.

    Raises:
        The exceptions of inclusive_segmented(); InvalidArgumentError also for an `out` of another
        dtype or size.
    """
    return _segmented("reduce", ary, offsets, out, op, custom_op, custom_identity, initial, deterministic,
                      algorithm, wait_for, queue, parameters)
