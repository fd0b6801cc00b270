// clscan-info's listing: every platform and device with its capabilities, dispatch plan and disk cache
// state, as a table or as JSON.
#include "info.hpp"

#include <clscan/names.hpp>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>

namespace clscan_info {
namespace {

using clscan_tools::json_writer;

std::string type_name(cl_device_type type) {
  std::string names;
  const auto add = [&](cl_device_type bit, const char* name) {
    if (!(type & bit)) return;
    if (!names.empty()) names += '|';
    names += name;
  };
  add(CL_DEVICE_TYPE_CPU, "CPU");
  add(CL_DEVICE_TYPE_GPU, "GPU");
  add(CL_DEVICE_TYPE_ACCELERATOR, "ACCELERATOR");
  add(CL_DEVICE_TYPE_DEFAULT, "DEFAULT");
#ifdef CL_DEVICE_TYPE_CUSTOM
  add(CL_DEVICE_TYPE_CUSTOM, "CUSTOM");
#endif
  return names.empty() ? "UNKNOWN" : names;
}

std::string bytes_text(cl_ulong bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[64];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%llu bytes", static_cast<unsigned long long>(bytes));
  else
    std::snprintf(text, sizeof text, "%.1f %s (%llu bytes)", value, units[unit],
                  static_cast<unsigned long long>(bytes));
  return text;
}

std::string tuning_text(const clscan::tuning& t, bool single_pass) {
  std::ostringstream text;
  text << "work_group_size " << t.work_group_size << ", items_per_thread " << t.items_per_thread
       << ", vector_width " << t.vector_width;
  if (single_pass) text << ", lookback " << t.lookback << ", run_lanes " << t.run_lanes;
  text << ", tile " << t.work_group_size * t.items_per_thread << " (" << t.origin << ")";
  return text.str();
}

void write_tuning(json_writer& json, const clscan::tuning& t) {
  json.begin_object();
  json.field("work_group_size", static_cast<unsigned long long>(t.work_group_size));
  json.field("items_per_thread", static_cast<unsigned long long>(t.items_per_thread));
  json.field("vector_width", static_cast<unsigned long long>(t.vector_width));
  json.field("lookback", static_cast<unsigned long long>(t.lookback));
  json.field("run_lanes", static_cast<unsigned long long>(t.run_lanes));
  json.field("tile", static_cast<unsigned long long>(t.work_group_size * t.items_per_thread));
  json.field("origin", t.origin);
  json.end_object();
}

} // namespace

void print_table(const machine& m) {
  std::printf("clscan %s\n", CLSCAN_VERSION_STRING);
  std::printf("disk cache directory: %s\n", m.cache.directory.empty() ? "(none)" : m.cache.directory.c_str());
  std::printf("disk cache state: %s\n", cache_state_text(m.cache).c_str());
  std::printf("disk cache size: %s\n", cache_size_text(m.cache).c_str());
  if (!m.error.empty()) {
    std::printf("error: %s\n", m.error.c_str());
    return;
  }
  if (!m.selection_error.empty())
    std::printf("%sselect_device(): %s\n", m.selected_only ? "error: " : "", m.selection_error.c_str());

  const auto row = [](const char* label, const std::string& value) {
    std::printf("    %-22s %s\n", label, value.c_str());
  };
  const auto yes_no = [](bool flag) { return std::string(flag ? "yes" : "no"); };
  for (const platform_entry& platform : m.platforms) {
    std::printf("\nplatform %zu: %s\n", platform.index, platform.name.c_str());
    std::printf("  version: %s\n", platform.version.c_str());
    if (!platform.error.empty()) std::printf("  error: %s\n", platform.error.c_str());
    if (platform.devices.empty() && platform.error.empty()) std::printf("  (no devices)\n");
    for (const device_entry& device : platform.devices) {
      std::printf("\n  device %zu: %s%s\n", device.index, device.name.c_str(),
                  device.selected ? "   [selected: clscan::select_device()]" : "");
      if (!device.error.empty()) {
        std::printf("    error: %s\n", indent_lines(device.error, "      ").c_str());
        continue;
      }
      const clscan::device_capabilities& c = *device.caps;
      row("vendor", c.vendor);
      row("type", type_name(c.type));
      row("device version", c.version);
      row("OpenCL C version", c.opencl_c_version);
      row("driver version", c.driver_version);
      row("compute units", std::to_string(c.compute_units));
      row("max work-group size", std::to_string(c.max_work_group_size));
      row("local memory", bytes_text(c.local_mem_size));
      row("global memory", bytes_text(c.global_mem_size));
      row("max allocation", bytes_text(c.max_mem_alloc_size));
      row("fp64", yes_no(c.fp64));
      row("int64 atomics", yes_no(c.int64_atomics));
      row("int32 global atomics", yes_no(c.int32_global_atomics));
      row("subgroups", yes_no(c.subgroups));
      row("NVIDIA warp PTX", yes_no(c.nvidia_warp_ptx));
      row("reqd size trusted", yes_no(c.required_size_fits));
      if (device.plan) {
        const clscan::dispatch_plan& plan = *device.plan;
        std::printf("    dispatch plan (cl_int):\n");
        row("  large sizes use", clscan::to_string(plan.large));
        row("  single pass", plan.single_pass_qualification);
        row("  memory model", plan.single_pass_memory_model);
        row("  three_stage", tuning_text(plan.three_stage, false));
        row("  single_pass", tuning_text(plan.single_pass, true));
        if (plan.small_input_bytes)
          row("  single_pass small", tuning_text(plan.single_pass_small, true) + " (inputs up to " +
                                         std::to_string(plan.small_input_bytes >> 20) + " MiB, by key " +
                                         std::to_string(plan.by_key_small_input_bytes >> 20) +
                                         " MiB, and where its tiles reach the tree but large ones do not)");
        if (plan.fixed_order_last_tiles)
          row("  single_pass tree", std::to_string(plan.fixed_order_first_tiles) + " to " +
                                        std::to_string(plan.fixed_order_last_tiles) +
                                        " tiles (fixed order, as deterministic scans)");
        row("  reduce", tuning_text(plan.reduce, false));
      } else {
        row("dispatch plan", "error: " + indent_lines(device.plan_error, "      "));
      }
      row("disk cache", cache_state_text(m.cache));
      row("disk cache entries", std::to_string(device.cache_entries));
      if (!device.tuning_file.empty()) row("tuning file", device.tuning_file);
    }
  }
}

void write_json_header(json_writer& json, const machine& m) {
  json.field("clscan_version", CLSCAN_VERSION_STRING);
  json.text_or_null("cache_directory", m.cache.directory);
  json.key("cache");
  json.begin_object();
  json.text_or_null("directory", m.cache.directory);
  json.field("state", state_name(m.cache.state));
  if (!m.cache.reason.empty()) json.field("reason", m.cache.reason);
  json.field("bytes", static_cast<unsigned long long>(m.cache.bytes));
  if (m.cache.limit_error.empty())
    json.field("limit_bytes", static_cast<unsigned long long>(m.cache.limit));
  else
    json.field("limit_error", m.cache.limit_error);
  json.end_object();
  json.field("selected_only", m.selected_only);
  if (!m.selection_error.empty()) json.field("selection_error", m.selection_error);
  if (!m.error.empty()) json.field("error", m.error);
}

namespace {

// One device's object of the listing.
void write_device(json_writer& json, const device_entry& device, const machine& m) {
  json.begin_object();
  json.field("index", static_cast<unsigned long long>(device.index));
  json.field("name", device.name);
  json.field("selected", device.selected);
  if (!device.error.empty()) {
    json.field("error", device.error);
    json.end_object();
    return;
  }
  const clscan::device_capabilities& c = *device.caps;
  json.field("vendor", c.vendor);
  json.field("type", type_name(c.type));
  json.field("version", c.version);
  json.field("opencl_c_version", c.opencl_c_version);
  json.field("driver_version", c.driver_version);
  json.field("compute_units", static_cast<unsigned long long>(c.compute_units));
  json.field("max_work_group_size", static_cast<unsigned long long>(c.max_work_group_size));
  json.field("local_mem_size", static_cast<unsigned long long>(c.local_mem_size));
  json.field("global_mem_size", static_cast<unsigned long long>(c.global_mem_size));
  json.field("max_mem_alloc_size", static_cast<unsigned long long>(c.max_mem_alloc_size));
  json.field("fp64", c.fp64);
  json.field("int64_atomics", c.int64_atomics);
  json.field("int32_global_atomics", c.int32_global_atomics);
  json.field("subgroups", c.subgroups);
  json.field("nvidia_warp_ptx", c.nvidia_warp_ptx);
  json.field("required_size_fits", c.required_size_fits);
  json.key("dispatch_plan");
  if (device.plan) {
    const clscan::dispatch_plan& plan = *device.plan;
    json.begin_object();
    json.field("element_type", "int");
    json.field("large", clscan::to_string(plan.large));
    json.field("single_pass_available", plan.single_pass_available);
    json.field("single_pass_qualification", plan.single_pass_qualification);
    json.field("single_pass_memory_model", plan.single_pass_memory_model);
    json.key("three_stage");
    write_tuning(json, plan.three_stage);
    json.key("single_pass");
    write_tuning(json, plan.single_pass);
    json.key("single_pass_small");
    write_tuning(json, plan.single_pass_small);
    json.field("small_input_bytes", static_cast<std::uint64_t>(plan.small_input_bytes));
    json.field("by_key_small_input_bytes", static_cast<std::uint64_t>(plan.by_key_small_input_bytes));
    json.field("fixed_order_first_tiles", static_cast<std::uint64_t>(plan.fixed_order_first_tiles));
    json.field("fixed_order_last_tiles", static_cast<std::uint64_t>(plan.fixed_order_last_tiles));
    json.key("reduce");
    write_tuning(json, plan.reduce);
    json.end_object();
  } else {
    json.begin_object();
    json.field("error", device.plan_error);
    json.end_object();
  }
  json.field("cache_entries", static_cast<unsigned long long>(device.cache_entries));
  json.key("cache");
  json.begin_object();
  json.field("state", state_name(m.cache.state));
  json.field("entries", static_cast<unsigned long long>(device.cache_entries));
  json.text_or_null("tuning_file", device.tuning_file);
  json.end_object();
  json.end_object();
}

} // namespace

void print_json(const machine& m) {
  std::string out;
  json_writer json(out);
  json.begin_object();
  write_json_header(json, m);
  json.key("platforms");
  json.begin_array();
  for (const platform_entry& platform : m.platforms) {
    json.begin_object();
    json.field("index", static_cast<unsigned long long>(platform.index));
    json.field("name", platform.name);
    json.field("version", platform.version);
    if (!platform.error.empty()) json.field("error", platform.error);
    json.key("devices");
    json.begin_array();
    for (const device_entry& device : platform.devices)
      write_device(json, device, m);
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.end_object();
  std::fputs(out.c_str(), stdout);
}

bool listing_ok(const machine& m) {
  bool ok = m.error.empty() && (!m.selected_only || m.selection_error.empty());
  for (const platform_entry& platform : m.platforms) {
    ok = ok && platform.error.empty();
    for (const device_entry& device : platform.devices)
      ok = ok && device.error.empty() && device.plan_error.empty();
  }
  return ok;
}

} // namespace clscan_info
