"""clscan.reduce_by_key, unique_by_key and run_length_encode: the calls on runs of equal consecutive
keys (compared with ==, so every NaN key is a run of its own), on the checks of the package's other
calls (clscan/__init__.py, which imports this module last)."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from . import (_COUNT_TYPE, _Operand, _add_event, _at_offset_zero, _check_algorithm, _command_queue,
               _native, _operator, _same_context, _same_layout, _wait_list)
from ._errors import InvalidArgumentError

# run_length_encode's length dtypes -> the OpenCL C type the library writes.
_LENGTH_TYPE = {np.dtype(np.uint32): "uint", np.dtype(np.uint64): "ulong"}


def _output_of(array, name, like, dtype, queue):
    """A new output of `like`'s size and `dtype`, or the checked given one: of `like`'s size, or of
    fewer elements (at least one), sized for the result."""
    if array is None:
        array = cla.empty(queue, like.size, dtype, allocator=like.allocator)
    elif array.dtype != dtype:
        raise InvalidArgumentError(f"clscan: {name} has dtype {array.dtype}; it must be {np.dtype(dtype)}")
    if like.size and (array.size > like.size or array.size == 0):
        _same_layout(array, name, like)
    return array, _Operand(array, name)


def _runs(kind, keys, values, keys_out, values_out, count_out, length_dtype, operator_args, deterministic,
          algorithm, wait_for, queue):
    key_source = _Operand(keys, "keys")
    value_source = None
    if values is not None:
        value_source = _Operand(values, "values")
        _same_layout(values, "values", keys)
    queue = _command_queue(keys, queue)
    value_dtype = values.dtype if values is not None else np.dtype(length_dtype)
    if values is None and value_dtype not in _LENGTH_TYPE:
        raise InvalidArgumentError(f"clscan: the lengths' dtype is {value_dtype}; it must be uint32 or uint64")
    op, custom_op, custom_identity, initial = _operator(value_dtype, *operator_args)
    keys_out, key_target = _output_of(keys_out, "keys_out", keys, keys.dtype, queue)
    values_out, value_target = _output_of(values_out, "values_out", keys, value_dtype, queue)
    if keys.size and key_target.offset != value_target.offset:
        raise InvalidArgumentError(
            f"clscan: keys_out starts at element {key_target.offset} of its buffer, values_out at "
            f"{value_target.offset}; the library writes both at one offset (pass arrays that start alike)")
    # Outputs smaller than the keys are sized for the result: nothing past the smaller one's end is
    # written.
    capacity = min(keys_out.size, values_out.size)
    capacity = capacity if capacity < keys.size else None
    count_target = None
    if count_out is not None:
        count_target = _Operand(count_out, "count_out", _COUNT_TYPE, "count_out must be uint64")
        if count_out.size != 1:
            raise InvalidArgumentError(f"clscan: count_out has {count_out.size} elements; it must have one")
    _check_algorithm(algorithm)

    arrays = [a for a in (keys, values, keys_out, values_out, count_out) if a is not None]
    _same_context(queue, keys=keys, values=values, keys_out=keys_out, values_out=values_out,
                  count_out=count_out)
    waits = _wait_list(wait_for, arrays)
    count = 0
    n = keys.size
    if n == 0:
        if count_target is None:
            event = cl.enqueue_marker(queue, wait_for=waits or None)
        else:
            itemsize = count_out.dtype.itemsize
            event = cl.enqueue_fill_buffer(queue, count_out.base_data, np.zeros(1, np.uint64),
                                           count_target.offset * itemsize, itemsize, wait_for=waits or None)
    else:
        keys_ptr, in_offset = key_source.buffer_ptr, key_source.offset
        values_ptr = value_source.buffer_ptr if value_source else 0
        call_waits = waits
        copies = []  # held until the call is enqueued; OpenCL keeps them for it after that
        if value_source and key_source.offset != value_source.offset:
            # The library reads the keys and the values at one offset: whichever of them is not at
            # the start of its buffer is copied to the start of one of its own.
            call_waits = list(waits)
            for operand in (key_source, value_source):
                if operand.offset != 0:
                    copy, copied = _at_offset_zero(queue, operand, n, waits)
                    copies.append(copy)
                    call_waits.append(copied)
                    if operand is key_source:
                        keys_ptr = copy.int_ptr
                    else:
                        values_ptr = copy.int_ptr
            in_offset = 0
        event_ptr, count = _native.runs(
            kind, key_source.type, _LENGTH_TYPE[value_dtype] if values is None else value_source.type,
            queue.int_ptr, keys_ptr, values_ptr, in_offset, key_target.buffer_ptr,
            value_target.buffer_ptr, key_target.offset, count_target.buffer_ptr if count_target else 0,
            count_target.offset if count_target else 0, n, op, custom_op, custom_identity, initial,
            bool(deterministic), algorithm, [e.int_ptr for e in call_waits], out_capacity=capacity)
        event = cl.Event.from_int_ptr(event_ptr, retain=False)
    _add_event(event, arrays)
    if count_target is not None:
        return keys_out, values_out, event
    if n == 0:
        event.wait()
    written = min(count, keys_out.size, values_out.size)
    return keys_out[:written], values_out[:written], count


def reduce_by_key(keys, values, *, keys_out=None, values_out=None, count_out=None, op="sum",
                  custom_op=None, custom_identity=None, initial=None, deterministic=False,
                  algorithm="automatic", wait_for=None, queue=None):
    """For each run of equal consecutive keys: its first key and its values combined with `op`.

        k, sums, count = clscan.reduce_by_key(keys, values)   # Thrust's reduce_by_key

    Args:
        keys, values: contiguous 1-D pyopencl arrays of the same size (any dtype of DTYPES each),
            not modified.
        keys_out, values_out: arrays of keys' size and of keys' and values' dtype to write to
            (elements past the count keep their contents), starting at the same element offset of
            their buffers; by default new ones. They must overlap no other argument. Outputs of fewer
            elements (at least one) are sized for the result: nothing past the smaller one's size
            is written, and the count still counts every run.
        count_out: a pyopencl array of one uint64 for the count; the call then does not wait.
        op, custom_op, custom_identity: as for inclusive(). initial: a number combined in front of
            every run's values. deterministic, algorithm, wait_for, queue: as for inclusive_by_key().

    Returns:
        (keys_out[:k], values_out[:k], count), k the runs written (count, or fewer where the
        outputs are smaller), once the call has finished; with count_out,
        (keys_out, values_out, event), without waiting.
    """
    return _runs("reduce_by_key", keys, values, keys_out, values_out, count_out, None,
                 (op, custom_op, custom_identity, initial), deterministic, algorithm, wait_for, queue)


def unique_by_key(keys, values, *, keys_out=None, values_out=None, count_out=None, algorithm="automatic",
                  wait_for=None, queue=None):
    """For each run of equal consecutive keys: its first key and the value beside it (Thrust's
    unique_by_key). Arguments and results as for reduce_by_key(), without the operator."""
    return _runs("unique_by_key", keys, values, keys_out, values_out, count_out, None,
                 ("sum", None, None, None), False, algorithm, wait_for, queue)


def run_length_encode(ary, *, unique_out=None, lengths_out=None, count_out=None, dtype=np.uint32,
                      algorithm="automatic", wait_for=None, queue=None):
    """For each run of equal consecutive elements of `ary`: its first element and its length (CUB's
    DeviceRunLengthEncode::Encode). `dtype` is the lengths' dtype: uint32 (ary must then have fewer
    than 2^32 elements) or uint64.

        values, lengths, count = clscan.run_length_encode(a)

    Returns (unique_out[:count], lengths_out[:count], count), or with count_out (unique_out,
    lengths_out, event) without waiting; the arguments are reduce_by_key()'s."""
    return _runs("run_length_encode", ary, None, unique_out, lengths_out, count_out, dtype,
                 ("sum", None, None, None), False, algorithm, wait_for, queue)
