// normalize.h - error messages reduced to what stays the same when the same bug recurs.
//
// Two reports of one bug differ in sizes, addresses, file locations and the names our exporter
// gives tensors and nodes; the normalised message keeps the words and drops those:
//   numbers         12, -1, 0.5, 1e-05         -> <n>      (but error codes stay: "] : 6 :", "code 13")
//   tuples, shapes  [1,?,3], (2, 2), 3x4, 1..3 -> <n>      (a run of numbers is one <n>: ranks vary too)
//   hex             0x7ffd1234, deadbeef0042   -> <hex>
//   paths           /usr/lib/x.so, onnxruntime/core/a.cc -> <path>
//   names           output_3, Conv_4, t17, lv2, tmp3 -> <name>   (a word ending in _digits, t/lv/gv/tmp+digits)
//   non-ASCII runs                             -> ?
//   C++ template arguments  f(T*) [with T = signed char; ...], f(T*) [T = int] -> f(T*)
//   whitespace runs                            -> one space
// Multi-line messages lose traceback lines (Python "File ..." frames, TVM "N: fn" frames,
// "#N 0x..." frames, ^~~~ markers, quoted LLVM IR "%x = ..." lines) and repeats of a line
// already kept; of what is left, the
// first three lines and the last are kept, joined by " | ", and the result is cut at
// kMaxNormalizedMessage characters.
// A compiler's wrapping of the model's own exception (torch.compile's: triage/unwrap.h) is
// taken off first.
// repro.py carries a line-for-line Python port of this algorithm (src/store/repro/common.py);
// the two must stay in step, and a test checks they agree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nnfuzz {

/// Longest normalised message: a signature needs the gist, not a 100 KB IR dump.
inline constexpr size_t kMaxNormalizedMessage = 300;

/// OpenVINO's list of the nodes whose conversion failed follows these words.
inline constexpr std::string_view kConversionFailedFor = "Conversion is failed for: ";

/// A message's OpenVINO failed-node list: the text up to and with kConversionFailedFor, and the
/// nodes after it ("DFT-<n>", "Scan-<n>"). False when the message has no such list.
bool failedNodeList(const std::string& message, std::string& before, std::vector<std::string>& nodes);

/// One line normalised (see the file comment); no line structure is looked at.
std::string normalizeLine(std::string_view line);

/// A whole message normalised: traceback lines dropped, at most four lines kept.
std::string normalizeMessage(std::string_view message);

}  // namespace nnfuzz
