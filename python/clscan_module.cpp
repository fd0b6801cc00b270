// clscan._native: the compiled half of the clscan Python package (python/src/clscan/__init__.py checks the
// PyOpenCL arrays and calls it). OpenCL objects arrive as the integers PyOpenCL's `int_ptr` gives; they
// are wrapped with a reference of their own, so PyOpenCL's references stay PyOpenCL's. A scan runs
// with the GIL released (its first call on a device may build kernels for seconds). clscan's
// exceptions become the classes of clscan._errors, their details attributes.
#include <clscan/clscan.hpp>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

// What a scan call needs besides its buffers, as the Python layer hands it over.
struct scan_arguments {
  clscan::scan_kind kind = clscan::scan_kind::inclusive;
  clscan::algorithm algorithm = clscan::algorithm::automatic;
  clscan::op operation = clscan::op::sum;
  std::string custom_op;
  py::object custom_identity; // None, or a Python int / float that fits the element type
  py::object initial;         // the same
  bool deterministic = false;
  std::size_t in_offset = 0;
  std::size_t out_offset = 0;
  std::vector<cl::Event> wait_list;
};

template <typename T>
cl::Event scan_as(const cl::CommandQueue& queue, const cl::Buffer& in, const cl::Buffer& out, std::size_t n,
                  const scan_arguments& args) {
  clscan::options<T> opts;
  opts.algorithm = args.algorithm;
  opts.operation = args.operation;
  opts.custom_op = args.custom_op;
  // The Python layer has checked that these are numbers in T's range.
  if (!args.custom_identity.is_none()) opts.custom_identity = args.custom_identity.cast<T>();
  if (!args.initial.is_none()) opts.initial = args.initial.cast<T>();
  opts.deterministic = args.deterministic;
  opts.in_offset = args.in_offset;
  opts.out_offset = args.out_offset;
  opts.wait_list = args.wait_list;
  py::gil_scoped_release unlocked;
  return args.kind == clscan::scan_kind::inclusive ? clscan::inclusive<T>(queue, in, out, n, opts)
                                                   : clscan::exclusive<T>(queue, in, out, n, opts);
}

template <typename Value>
Value parse_or_throw(std::optional<Value> value, const char* what, const std::string& name,
                     const char* choices) {
  if (!value)
    throw clscan::invalid_argument("clscan: unknown " + std::string(what) + " '" + name + "' (" + choices +
                                   ")");
  return *value;
}

// The scan call behind clscan.inclusive and clscan.exclusive. Returns the cl_event of the scan with a
// reference that the caller owns (pyopencl.Event.from_int_ptr(..., retain=False) takes it over).
std::uintptr_t scan(const std::string& kind, const std::string& type, std::uintptr_t queue_ptr,
                    std::uintptr_t in_ptr, std::size_t in_offset, std::uintptr_t out_ptr,
                    std::size_t out_offset, std::size_t n, const std::string& op,
                    const std::string& custom_op, py::object custom_identity, py::object initial,
                    bool deterministic, const std::string& algorithm,
                    const std::vector<std::uintptr_t>& wait_for) {
  scan_arguments args;
  args.kind = parse_or_throw(clscan::parse_scan_kind(kind), "scan kind", kind, "inclusive or exclusive");
  args.algorithm = parse_or_throw(clscan::parse_algorithm(algorithm), "algorithm", algorithm,
                                  "automatic, single_pass or three_stage");
  args.operation =
      parse_or_throw(clscan::parse_op(op), "op", op, "sum, min, max, bit_and, bit_or, bit_xor or custom");
  const clscan::element_type element = parse_or_throw(clscan::parse_element_type(type), "element type", type,
                                                      "int, uint, long, ulong, float or double");
  args.custom_op = custom_op;
  args.custom_identity = std::move(custom_identity);
  args.initial = std::move(initial);
  args.deterministic = deterministic;
  args.in_offset = in_offset;
  args.out_offset = out_offset;
  for (const std::uintptr_t event : wait_for)
    args.wait_list.emplace_back(reinterpret_cast<cl_event>(event), /*retainObject=*/true);

  const cl::CommandQueue queue(reinterpret_cast<cl_command_queue>(queue_ptr), /*retainObject=*/true);
  const cl::Buffer in(reinterpret_cast<cl_mem>(in_ptr), /*retainObject=*/true);
  const cl::Buffer out(reinterpret_cast<cl_mem>(out_ptr), /*retainObject=*/true);
  cl::Event done;
  switch (element) {
  case clscan::element_type::int32: done = scan_as<cl_int>(queue, in, out, n, args); break;
  case clscan::element_type::uint32: done = scan_as<cl_uint>(queue, in, out, n, args); break;
  case clscan::element_type::int64: done = scan_as<cl_long>(queue, in, out, n, args); break;
  case clscan::element_type::uint64: done = scan_as<cl_ulong>(queue, in, out, n, args); break;
  case clscan::element_type::float32: done = scan_as<cl_float>(queue, in, out, n, args); break;
  case clscan::element_type::float64: done = scan_as<cl_double>(queue, in, out, n, args); break;
  }
  const cl_event event = done.get();
  const cl_int status = clRetainEvent(event);
  if (status != CL_SUCCESS) throw clscan::opencl_error(status, "clRetainEvent");
  return reinterpret_cast<std::uintptr_t>(event);
}

// Python text from bytes that may not be UTF-8 (a compiler's build log): invalid bytes become U+FFFD
// instead of making the exception itself fail.
py::str text(const std::string& bytes) {
  PyObject* decoded = PyUnicode_DecodeUTF8(bytes.data(), static_cast<Py_ssize_t>(bytes.size()), "replace");
  if (!decoded) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(decoded);
}

void raise_as(const char* class_name, const std::exception& e, const py::dict& details) {
  const py::object type = py::module_::import("clscan._errors").attr(class_name);
  const py::object instance = type(text(e.what()), **details);
  PyErr_SetObject(type.ptr(), instance.ptr());
}

void translate_clscan_errors(std::exception_ptr thrown) {
  try {
    if (thrown) std::rethrow_exception(thrown);
  } catch (const clscan::build_error& e) {
    raise_as("BuildError", e,
             py::dict("status"_a = e.status(), "call"_a = text(e.call()), "build_log"_a = text(e.build_log()),
                      "options"_a = text(e.options()), "device_name"_a = text(e.device_name())));
  } catch (const clscan::opencl_error& e) {
    raise_as("OpenCLError", e, py::dict("status"_a = e.status(), "call"_a = text(e.call())));
  } catch (const clscan::invalid_argument& e) {
    raise_as("InvalidArgumentError", e, py::dict());
  } catch (const clscan::unsupported_error& e) {
    raise_as("UnsupportedError", e, py::dict());
  } catch (const clscan::error& e) {
    raise_as("Error", e, py::dict());
  }
}

} // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "The compiled part of the clscan package: the C++ library's calls on raw OpenCL handles. Use "
            "the functions of the clscan package instead, which take PyOpenCL objects.";
  m.attr("version") = CLSCAN_VERSION_STRING;
  py::register_exception_translator(&translate_clscan_errors);

  m.def("scan", &scan, "kind"_a, "type"_a, "queue"_a, "in_buffer"_a, "in_offset"_a, "out_buffer"_a,
        "out_offset"_a, "n"_a, "op"_a, "custom_op"_a, "custom_identity"_a, "initial"_a, "deterministic"_a,
        "algorithm"_a, "wait_for"_a,
        "Enqueues an inclusive or exclusive scan of n elements of OpenCL C type `type` (int, uint, long, "
        "ulong, float, double) from in_buffer[in_offset:] to out_buffer[out_offset:] (element offsets) on "
        "`queue`, after the events of `wait_for`. Handles are int_ptr values. Returns the scan's cl_event "
        "with a reference the caller owns.");
  m.def(
      "select_device", []() { return reinterpret_cast<std::uintptr_t>(clscan::select_device().get()); },
      "The cl_device_id (as an int) that clscan::select_device() picks: CLSCAN_PLATFORM / CLSCAN_DEVICE, "
      "else the first GPU, else the first device.");
  m.def(
      "release_cached_resources",
      [](std::uintptr_t context) {
        if (context == 0) {
          clscan::release_cached_resources();
        } else {
          clscan::release_cached_resources(cl::Context(reinterpret_cast<cl_context>(context), true));
        }
      },
      "context"_a,
      "Releases clscan's programs, kernels and temporary buffers of one cl_context (an int_ptr), or of "
      "every context for 0.");
}
