// outcome.h - what one backend worker did with one test case: the contract between the
// run module (which produces it), the oracle (which judges it) and the campaign store.
#pragma once

#include <string>
#include <vector>

#include "ir/tensor.h"

namespace nnfuzz {

/// How a worker's attempt at a case ended.
enum class RunStatus {
  Ok,             ///< both phases finished; outputs are set
  PrepareError,   ///< the SUT refused or failed to convert/compile (an error it reported)
  RunError,       ///< the SUT failed while running (an error it reported)
  Crash,          ///< the worker died by a signal (phase says when)
  Timeout,        ///< a phase ran past its time limit; the worker was killed
  OutOfMemory,    ///< the worker hit its memory limit
  WorkerError,    ///< the worker broke the protocol or could not start
};

/// "ok", "prepare-error", "run-error", "crash", "timeout", "out-of-memory", "worker-error".
const char* runStatusName(RunStatus status);

struct RunOutcome {
  std::string backend;  ///< e.g. "onnxruntime"
  std::string mode;     ///< e.g. "opt"
  std::string version;  ///< the SUT's version, from the worker's hello
  RunStatus status = RunStatus::WorkerError;
  std::string phase;       ///< "prepare" or "run": where it ended (empty when Ok); or the step of
                           ///< prepare the worker named ("convert", "optimize")
  std::string errorType;   ///< the SUT's exception type, e.g. "NotImplemented"
  std::string message;     ///< the SUT's error message (full text)
  int signal = 0;          ///< for Crash: the signal number
  std::string stderrTail;  ///< last 64 KiB of the worker's stderr (crashes, aborts)
  std::vector<Tensor> outputs;  ///< for Ok: one per model output, in order
  double prepareSeconds = 0, runSeconds = 0;
  int exitCode = -1;          ///< for a worker that exited (not by a signal) mid-case: its status
  double wallSeconds = 0;     ///< nnfuzz's clock from request to last reply (protocol included)
  double startSeconds = 0;    ///< of wallSeconds: starting the worker first (0 when it was running)
};

}  // namespace nnfuzz
