"""Arrays of other contexts and queues, and events: wait_for, the returned event, PyOpenCL's own
event tracking (Array.events)."""

import threading
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import clscan
from conftest import sample

N = 20_011


def test_array_of_a_second_context(device, queue):
    """A context of the caller's that clscan has not seen before: clscan builds (or loads) for it and
    scans there, and the first context keeps working."""
    x = sample(np.int64, N, seed=20)
    second = cl.CommandQueue(cl.Context([device]))
    a = cla.to_device(second, x)
    clscan.inclusive(a).wait()
    np.testing.assert_array_equal(a.get(), np.cumsum(x))
    clscan.release_cached_resources(second.context)

    b = cla.to_device(queue, x)
    clscan.inclusive(b).wait()
    np.testing.assert_array_equal(b.get(), np.cumsum(x))


def test_queue_argument(context, queue):
    """An array made without a queue is scanned on the queue given."""
    x = sample(np.int32, N, seed=21)
    a = cla.Array(context, N, np.int32)
    cl.enqueue_copy(queue, a.base_data, x).wait()
    with pytest.raises(clscan.InvalidArgumentError, match="pass queue="):
        clscan.inclusive(a)
    clscan.inclusive(a, queue=queue).wait()
    np.testing.assert_array_equal(a.with_queue(queue).get(), np.cumsum(x, dtype=np.int32))


@pytest.fixture
def gate(context):
    """A user event, set at the latest when the test ends (so that nothing stays blocked on it)."""
    event = cl.UserEvent(context)
    yield event
    if event.command_execution_status != cl.command_execution_status.COMPLETE:
        event.set_status(cl.command_execution_status.COMPLETE)


def gated_write(context, gate, array, data):
    """Writes `data` into `array` on a queue of its own once `gate` is set; returns the write's event."""
    writer = cl.CommandQueue(context)
    written = cl.enqueue_copy(writer, array.base_data, data, is_blocking=False, wait_for=[gate])
    writer.flush()
    return written


def settle(queue):
    """Gives commands that wrongly ignore their wait list a moment to run (so that the checks after it
    can see them); a correct scan waits however long this takes."""
    queue.flush()
    time.sleep(0.05)


def test_wait_for_and_returned_event(context, queue, gate):
    """The scan reads its input only after the events of wait_for: here a write on another queue
    that waits for a user event."""
    x = sample(np.int32, N, seed=22)
    a = cla.to_device(queue, np.zeros(N, np.int32))
    written = gated_write(context, gate, a, x)
    event = clscan.inclusive(a, wait_for=[written])
    assert isinstance(event, cl.Event)
    settle(queue)
    assert event.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    event.wait()
    assert event.command_execution_status == cl.command_execution_status.COMPLETE
    np.testing.assert_array_equal(a.get(), np.cumsum(x, dtype=np.int32))


def test_array_events(context, queue, gate):
    """The scan waits for the events PyOpenCL recorded on its arrays (Array.events), as PyOpenCL's
    own operations do, and adds its event to both arrays'."""
    x = sample(np.int32, N, seed=25)
    a = cla.to_device(queue, np.zeros(N, np.int32))
    written = gated_write(context, gate, a, x)
    a.add_event(written)
    out = cla.empty_like(a)
    event = clscan.exclusive(a, out)
    assert out.events[-1].int_ptr == event.int_ptr
    assert a.events[-1].int_ptr == event.int_ptr  # a later write to `a` waits until the scan read it
    settle(queue)
    assert event.command_execution_status != cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    np.testing.assert_array_equal(out.get(), np.concatenate(([0], np.cumsum(x[:-1], dtype=np.int32))))


def test_out_of_order_queue(device, context):
    """Two dependent scans and reads on an out-of-order queue, ordered only by the arrays' events."""
    if not device.queue_properties & cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE:
        pytest.skip(f"{device.name} has no out-of-order queues")
    ooo = cl.CommandQueue(context, properties=cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    x = sample(np.uint32, N, seed=23)
    a = cla.to_device(ooo, x)
    out = cla.empty_like(a)
    clscan.inclusive(a)
    clscan.exclusive(a, out)
    assert out.events  # the scan's event, which out.get() waits for
    expected = np.cumsum(x, dtype=np.uint32)
    np.testing.assert_array_equal(out.get(), np.concatenate(([0], np.cumsum(expected[:-1], dtype=np.uint32))))
    np.testing.assert_array_equal(a.get(), expected)


def test_release_cached_resources(queue):
    clscan.release_cached_resources()
    x = sample(np.int32, 100, seed=24)
    a = cla.to_device(queue, x)
    clscan.inclusive(a).wait()
    np.testing.assert_array_equal(a.get(), np.cumsum(x, dtype=np.int32))


@pytest.mark.parametrize("call", ["select_if", "unique", "partition_if", "reduce"])
def test_wait_for_that_fails_while_the_call_waits(context, queue, call):
    """An event of wait_for fails while the call waits for its result (a selection without count_out,
    reduce without out): OpenCLError, not the count or total of whatever the buffers held. Later calls
    are exact."""
    x = sample(np.int32, 600_000, seed=36) % 3
    a = cla.to_device(queue, x)

    def run(array, wait_for=None):
        if call == "reduce":
            return clscan.reduce(array, wait_for=wait_for)
        if call == "unique":
            return clscan.unique(array, algorithm="three_stage", wait_for=wait_for)
        return getattr(clscan, call)(array, "x > 0", algorithm="three_stage", wait_for=wait_for)

    # Built first, so that the call is waiting for its result when the event fails.
    run(cla.to_device(queue, x))
    failing = cl.UserEvent(context)
    timer = threading.Timer(0.5, failing.set_status, (-1,))
    timer.start()
    try:
        with pytest.raises(clscan.OpenCLError):
            run(a, [failing])
    finally:
        timer.join()

    b = cla.to_device(queue, x)  # `a` holds the failed event among its events
    if call == "reduce":
        assert run(b) == x.sum(dtype=np.int32)
        return
    # The same algorithm as the failed call: whether a first three-stage selection on a fresh context
    # misleads later automatic ones is a matter of the call order, not of the failure.
    out, count = run(b)
    if call == "unique":
        expected = x[np.concatenate(([True], x[1:] != x[:-1]))]
    else:
        expected = x[x > 0]
    assert count == expected.size
    got = out.get()
    np.testing.assert_array_equal(got[:count], expected)
    if call == "partition_if":
        np.testing.assert_array_equal(got[count:], x[~(x > 0)])


def test_arrays_of_another_context_are_named(device, queue):
    """Keys, flags and outputs of another context than the queue's: the message names the argument,
    not an event of the wait list that came with the array."""
    other = cl.CommandQueue(cl.Context([device]))
    x = sample(np.int32, N, seed=26)
    a = cla.to_device(queue, x)
    foreign_keys = cla.to_device(other, x)
    foreign_flags = cla.to_device(other, (x > 0).astype(np.uint8))
    foreign_out = cla.empty(other, N, np.int32)
    for array in (foreign_keys, foreign_flags, foreign_out):
        array.add_event(cl.enqueue_marker(other))  # an event of the other context on the array
    with pytest.raises(clscan.InvalidArgumentError, match="keys belongs to another context than the queue"):
        clscan.inclusive_by_key(foreign_keys, a)
    with pytest.raises(clscan.InvalidArgumentError, match="flags belongs to another context than the queue"):
        clscan.select_flagged(a, foreign_flags)
    with pytest.raises(clscan.InvalidArgumentError, match="out belongs to another context than the queue"):
        clscan.inclusive(a, foreign_out)
    with pytest.raises(clscan.InvalidArgumentError, match="ary belongs to another context than the queue"):
        clscan.reduce(foreign_keys, queue=queue)
    other.finish()
