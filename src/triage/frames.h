// frames.h - what a dying worker's stderr says about where and why it died.
//
// A crash leaves its story in the last lines of stderr: a fatal line (glibc's "free(): invalid
// pointer", "Fatal Python error: Segmentation fault", an ASan report, an uncaught C++
// exception) and often a backtrace. Recognised backtrace forms:
//   ASan / gdb / LLVM   #3 0x7f12 in onnxruntime::Foo::Compute(Ctx*) const /src/foo.cc:12:3
//   glibc backtrace()   /usr/lib/libfoo.so(_ZN3foo3barEv+0x1c)[0x7f12]
//   Python faulthandler File "/x/worker.py", line 12 in run
//   Python >= 3.13      Binary file "/lib/libc.so.6", at abort+0x1c [0x7f12]
// Frames become function names only (arguments, addresses, offsets and paths dropped; an
// unsymbolised frame becomes its module's file name), signal and abort plumbing is skipped,
// so the frames of one bug are the same on every machine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nnfuzz {

/// The function names of the crash's backtrace in `stderrTail`, innermost first, at most `limit`.
/// The block chosen: the first after the last ASan report, else the "Current thread" one of a
/// faulthandler dump, else the last block in the text.
std::vector<std::string> extractFrames(std::string_view stderrTail, size_t limit = 5);

/// The last line of `stderrTail` that states why a process died (glibc heap check, assertion,
/// sanitizer, Python fatal error, uncaught exception with its what()), normalised; "" if none.
std::string fatalLine(std::string_view stderrTail);

}  // namespace nnfuzz
