#include "process.hpp"

#include <clscan/clscan.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace clscan_tools {
namespace {

std::string name_of(const std::string& entry) { return entry.substr(0, entry.find('=')); }

// This process's environment, less `unset` and the names `set` gives, plus `set`.
std::vector<std::string> child_environment(const process_request& request) {
  std::vector<std::string> entries;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = name_of(entry);
    bool drop =
        std::find(request.unset_env.begin(), request.unset_env.end(), name) != request.unset_env.end();
    for (const std::string& s : request.set_env)
      drop = drop || name_of(s) == name;
    if (!drop) entries.push_back(entry);
  }
  entries.insert(entries.end(), request.set_env.begin(), request.set_env.end());
  return entries;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (std::string& s : strings)
    result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

// Reads `fd` to its end into `output`; false when the deadline (if any) passed first.
bool read_all(int fd, std::string& output, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buffer[4096];
  for (;;) {
    if (timeout_s > 0) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd wait_for{fd, POLLIN, 0};
      const int ready = ::poll(&wait_for, 1, static_cast<int>(std::min<long long>(left.count(), 1000000LL)));
      if (ready < 0 && errno != EINTR) return true;
      if (ready <= 0) continue;
    }
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got == 0) return true;
    if (got < 0) {
      if (errno == EINTR) continue;
      return true;
    }
    output.append(buffer, static_cast<std::size_t>(got));
  }
}

} // namespace

std::string process_result::status_text() const {
  if (!started) return error;
  if (timed_out) return "timed out";
  if (signal) return "signal " + std::to_string(signal);
  return "exit status " + std::to_string(exit_status);
}

process_result run_process(const process_request& request) {
  process_result result;
  std::vector<std::string> env_strings = child_environment(request);
  std::vector<std::string> arg_strings = request.args;
  std::vector<char*> envp = pointers(env_strings), argv = pointers(arg_strings);

  int fds[2];
  if (::pipe(fds) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    result.error = std::string("posix_spawn: ") + std::strerror(spawned);
    return result;
  }
  result.started = true;
  if (!read_all(fds[0], result.output, request.timeout_s)) {
    result.timed_out = true;
    ::kill(pid, SIGKILL);
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

std::string self_executable() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw clscan::error("cannot read /proc/self/exe: " + ec.message());
  return path.string();
}

} // namespace clscan_tools
