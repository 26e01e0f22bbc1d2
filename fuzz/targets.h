// targets.h - fuzz targets for nnfuzz's own parsers of untrusted input.
//
// Each target takes arbitrary bytes and either refuses them with nnfuzz::Error or holds
// its invariants; anything else (another exception, a crash, a sanitizer report, an
// abort from a broken invariant) is a bug. Built two ways: as libFuzzer programs with
// clang (scripts/fuzz.sh, NNFUZZ_FUZZ=ON), and into fuzz_test, which runs every target
// on seeds made from generated cases and on deterministic mutants of them (every build,
// also under ASan/UBSan in CI).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nnfuzz::fuzz {

/// Bytes of an ONNX model: guard, checker, import, text round trip, export, and the
/// reference on small enough imports.
void onnxModel(std::string_view bytes);
/// GraphIR text: parse, verify, print, parse again, print the same.
void irText(std::string_view text);
/// A JSON generator config: apply, validate, write back, apply again to the same hash.
void configJson(std::string_view text);
/// A worker's stdout line, read as a hello and as prepare and run replies.
void workerReply(std::string_view line);

/// Starting inputs per target, from `n` generated cases (fixed seed).
std::vector<std::string> onnxModelSeeds(int n);
std::vector<std::string> irTextSeeds(int n);
std::vector<std::string> configJsonSeeds();
std::vector<std::string> workerReplySeeds();

/// Reports a broken invariant on stderr and aborts: how a target tells the fuzzer.
[[noreturn]] void broken(const std::string& invariant, const std::string& detail);

/// A deterministic mutant of `seed` (byte flips, cuts, splices, repeats), as libFuzzer's
/// simplest mutators would make, for builds without libFuzzer.
std::string mutate(const std::string& seed, uint64_t salt);

}  // namespace nnfuzz::fuzz

/// Every target file ends with this: the libFuzzer entry point in libFuzzer builds only.
#ifdef NNFUZZ_LIBFUZZER
#define NNFUZZ_FUZZ_ENTRY(target)                                                \
  extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) { \
    target(std::string_view(reinterpret_cast<const char*>(data), size));         \
    return 0;                                                                    \
  }
#else
#define NNFUZZ_FUZZ_ENTRY(target)
#endif
