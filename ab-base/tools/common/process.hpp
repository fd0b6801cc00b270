// The tools' one child-process launcher: runs a program with an edited environment, captures its
// standard output (standard error passes through), and can stop it after a time limit.
#pragma once

#include <string>
#include <vector>

namespace clscan_tools {

struct process_request {
  std::vector<std::string> args;      // args[0] is the program's path (no PATH search)
  std::vector<std::string> set_env;   // NAME=VALUE, replacing any NAME of this process's environment
  std::vector<std::string> unset_env; // NAMEs left out of the child's environment
  double timeout_s = 0;               // > 0: killed (SIGKILL) after this many seconds
};

struct process_result {
  bool started = false; // false: `error` says why it could not be started
  int exit_status = -1; // when it exited
  int signal = 0;       // when a signal ended it
  bool timed_out = false;
  std::string output; // its standard output
  std::string error;  // why it could not be started

  bool succeeded() const { return started && !timed_out && signal == 0 && exit_status == 0; }
  // "exit status N", "signal N", "timed out after N s", or why it did not start.
  std::string status_text() const;
};

process_result run_process(const process_request& request);

// The path of the running program (/proc/self/exe); clscan::error when it cannot be read.
std::string self_executable();

} // namespace clscan_tools
