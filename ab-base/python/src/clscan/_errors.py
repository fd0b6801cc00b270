"""The exceptions clscan raises, one for each class of the C++ library's <clscan/error.hpp>.

    clscan::error             -> clscan.Error                 (a RuntimeError)
    clscan::invalid_argument  -> clscan.InvalidArgumentError  (also a ValueError)
    clscan::unsupported_error -> clscan.UnsupportedError
    clscan::opencl_error      -> clscan.OpenCLError           (.status, .call)
    clscan::build_error       -> clscan.BuildError            (an OpenCLError; .build_log, .options,
                                                               .device_name)

The compiled module (clscan._native) raises these for the C++ exceptions; the Python layer raises
InvalidArgumentError for arrays and values it rejects before calling it.
"""


class Error(RuntimeError):
    """Base of every exception clscan raises (clscan::error)."""


class InvalidArgumentError(Error, ValueError):
    """The arguments of a call are wrong: an unsupported dtype, a non-contiguous array, an output of
    another size or dtype, arrays of another context than the queue's, an unknown operator name, a
    bitwise operator on a floating-point array, a value that does not fit the element type.

    Raised before anything is enqueued: the arrays keep their contents.
    """


class UnsupportedError(Error):
    """The device lacks what the request needs, e.g. fp64 (cl_khr_fp64) for a float64 scan."""


class OpenCLError(Error):
    """An OpenCL call failed.

    Attributes:
        status: the OpenCL status code (an int, e.g. -5 for CL_OUT_OF_RESOURCES).
        call: the name of the call that failed, e.g. "clEnqueueNDRangeKernel".
    """

    def __init__(self, message, status=None, call=None):
        super().__init__(message)
        self.status = status
        self.call = call


class BuildError(OpenCLError):
    """clscan's kernels did not build for the device, e.g. because a custom_op does not compile.

    Attributes (besides status and call):
        build_log: the OpenCL compiler's log, which says why.
        options: the build options the program was built with.
        device_name: the device it was built for.
    """

    def __init__(self, message, status=None, call=None, build_log="", options="", device_name=""):
        super().__init__(message, status, call)
        self.build_log = build_log
        self.options = options
        self.device_name = device_name


# Shown as clscan.Error etc., the names users catch them by.
for _class in (Error, InvalidArgumentError, UnsupportedError, OpenCLError, BuildError):
    _class.__module__ = "clscan"
del _class
