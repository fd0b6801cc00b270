// Child processes, the one launcher of the tests: a program started with changes to this process's
// environment, stdin from /dev/null, stdout and stderr together into a file, and a time limit after
// which it is taken for a hang and killed. The fault tests run this executable again on a hidden test
// case; the cache tests run clscan-cache-probe, as another user too.
#pragma once

#include <catch2/catch.hpp>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "files.hpp"

extern char** environ;

namespace clscan_test {

struct child_spec {
  std::vector<std::string> command;                      // the program (a path) and its arguments
  std::map<std::string, std::optional<std::string>> env; // changes to this environment; nullopt unsets
};

struct child_result {
  int exit_code = -1; // 128 + signal when killed by a signal
  std::string output; // stdout and stderr together
  bool ok() const { return exit_code == 0 && has("result: ok"); }
  bool has(const std::string& text) const { return output.find(text) != std::string::npos; }
};

struct running_child {
  pid_t pid = -1;
  std::filesystem::path output_file;
};

// The path of this executable.
inline std::string self_executable() {
  char path[4096];
  const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  REQUIRE(length > 0);
  path[length] = '\0';
  return path;
}

// Starts `spec`, its output going to `output_file`. Everything the child needs is prepared before
// fork(); between fork() and execve() it only calls async-signal-safe functions (the parent has
// OpenCL runtime threads).
inline running_child start_child(const child_spec& spec, const std::filesystem::path& output_file) {
  REQUIRE_FALSE(spec.command.empty());
  std::vector<std::string> args = spec.command;
  std::map<std::string, std::string> variables;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq != std::string::npos) variables[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : spec.env) {
    if (value)
      variables[name] = *value;
    else
      variables.erase(name);
  }
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : variables)
    env_strings.push_back(name + "=" + value);
  std::vector<char*> argv, envp;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_strings)
    envp.push_back(e.data());
  envp.push_back(nullptr);

  const int fd = ::open(output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(devnull >= 0);
  std::cout.flush();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(devnull, 0);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(fd);
  ::close(devnull);
  return {pid, output_file};
}

// Waits for the child; one still running after `timeout` is taken for a hang and killed.
inline child_result finish_child(const running_child& child,
                                 std::chrono::seconds timeout = std::chrono::seconds(300)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  bool timed_out = false;
  for (;;) {
    const pid_t done = ::waitpid(child.pid, &status, WNOHANG);
    if (done == child.pid || (done < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child.pid, SIGKILL);
      ::waitpid(child.pid, &status, 0);
      timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  child_result result;
  result.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  result.output = read_file(child.output_file);
  if (timed_out)
    result.output += "\n[killed: still running after " + std::to_string(timeout.count()) + " s]\n";
  return result;
}

// Starts `spec` and waits for it, its output in a new file in `work_dir`.
inline child_result run_child(const child_spec& spec, const std::filesystem::path& work_dir,
                              std::chrono::seconds timeout = std::chrono::seconds(300)) {
  static int counter = 0;
  return finish_child(start_child(spec, work_dir / ("child-" + std::to_string(counter++) + ".out")), timeout);
}

} // namespace clscan_test
