// error.h - the error type for bad input (configs, models, command lines).
//
// Anything a user can get wrong raises nnfuzz::Error with one line of text that names
// the culprit; the CLI prints it on stderr and exits non-zero. Internal invariant
// violations are not Errors: they are bugs and abort in tests.
#pragma once

#include <stdexcept>
#include <string>

namespace nnfuzz {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace nnfuzz
