// outcome.cpp - names of run statuses (see outcome.h).
#include "run/outcome.h"

namespace nnfuzz {

const char* runStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::Ok: return "ok";
    case RunStatus::PrepareError: return "prepare-error";
    case RunStatus::RunError: return "run-error";
    case RunStatus::Crash: return "crash";
    case RunStatus::Timeout: return "timeout";
    case RunStatus::OutOfMemory: return "out-of-memory";
    case RunStatus::WorkerError: return "worker-error";
  }
  return "unknown";
}

}  // namespace nnfuzz
