// outcome.cpp - names of run statuses (as stored and printed).
#include "run/outcome.h"

namespace nnfuzz {

const char* runStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::Ok: return "ok";
    case RunStatus::PrepareError: return "prepare_error";
    case RunStatus::RunError: return "run_error";
    case RunStatus::Crash: return "crash";
    case RunStatus::Timeout: return "timeout";
    case RunStatus::OutOfMemory: return "out_of_memory";
    case RunStatus::WorkerError: return "worker_error";
  }
  return "?";
}

}  // namespace nnfuzz
