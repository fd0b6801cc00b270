import sys

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import clscan

device = clscan.select_device()  # honours CLSCAN_PLATFORM / CLSCAN_DEVICE; any pyopencl device works
context = cl.Context([device])
queue = cl.CommandQueue(context)

n = 100000
data = (np.arange(n) % 17 - 8).astype(np.int32)
a = cla.to_device(queue, data)
b = cla.empty_like(a)

clscan.exclusive(a, b)  # out of place: `a` is not modified
clscan.inclusive(a)  # in place
# Both return a pyopencl.Event and add it to the arrays' events, which .get() waits for.
incl, excl = a.get(), b.get()
ok = np.array_equal(incl, np.cumsum(data)) and np.array_equal(excl, np.cumsum(data) - data)

# Options: another operator, an initial value, slices (offsets into the buffers).
peaks = cla.empty_like(a)
clscan.inclusive(a[1000:], peaks[1000:], op="max", initial=-1).wait()
expected = np.maximum.accumulate(np.concatenate(([-1], incl[1000:])))[1:]
ok = ok and np.array_equal(peaks[1000:].get(), expected)

print(f"scanned {n} ints on {device.name}: last inclusive sum {incl[-1]},",
      "all scans match numpy" if ok else "WRONG RESULT")
sys.exit(0 if ok else 1)
