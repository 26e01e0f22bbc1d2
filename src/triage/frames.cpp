// frames.cpp - backtrace and fatal-line extraction from stderr (see frames.h).
#include "triage/frames.h"

#include <cxxabi.h>

#include <cstdlib>
#include <optional>

#include "triage/normalize.h"

namespace nnfuzz {

namespace {

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

std::string baseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string demangle(const std::string& name) {
  if (!startsWith(name, "_Z")) return name;
  int status = 0;
  char* out = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string result = status == 0 && out ? std::string(out) : name;
  std::free(out);
  return result;
}

// "ns::Foo<int>::bar(int, float) const /src/x.cc:3" -> "ns::Foo<int>::bar": the name up to
// its argument list or the first space outside template brackets.
std::string functionName(std::string text) {
  for (auto [from, to] : {std::pair<std::string_view, std::string_view>{"(anonymous namespace)", "{anon}"},
                          {"operator()", "operator{call}"}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }
  int depth = 0;
  size_t end = 0;
  for (; end < text.size(); ++end) {
    const char c = text[end];
    if (c == '<') ++depth;
    if (c == '>' && depth > 0) --depth;
    if (depth == 0 && (c == '(' || c == ' ')) break;
  }
  return text.substr(0, end);
}

// A symbol with "+0x1c" or "+28" dropped.
std::string dropOffset(std::string_view sym) {
  const size_t plus = sym.find('+');
  return std::string(plus == std::string_view::npos ? sym : sym.substr(0, plus));
}

// The function of one frame line, or nullopt when the line is not a frame.
std::optional<std::string> parseFrame(std::string_view line) {
  if (line.size() > 1 && line[0] == '#' && line[1] >= '0' && line[1] <= '9') {  // ASan, gdb, LLVM
    size_t i = 1;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
    std::string_view rest = line.substr(i);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (startsWith(rest, "0x")) {
      const size_t space = rest.find(' ');
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
      if (startsWith(rest, "in ")) rest.remove_prefix(3);
    }
    if (rest.empty()) return std::nullopt;
    if (rest.front() == '(') {  // unsymbolised: "(/lib/libx.so+0x1234)"
      const std::string_view inner = rest.substr(1, rest.find(')') - 1);
      return baseName(dropOffset(inner));
    }
    // A mangled name has no spaces; a demangled one has arguments after the name.
    if (startsWith(rest, "_Z")) return functionName(demangle(std::string(rest.substr(0, rest.find(' ')))));
    return functionName(std::string(rest));
  }
  if (startsWith(line, "File \"")) {  // Python faulthandler or traceback
    const size_t in = line.rfind(" in ");
    if (in == std::string_view::npos) return std::nullopt;
    return std::string(line.substr(in + 4));
  }
  if (startsWith(line, "Binary file \"")) {  // Python 3.13+ C stack
    const size_t at = line.find("\", at ");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view sym = line.substr(at + 6);
    sym = sym.substr(0, sym.find(' '));
    if (sym.empty() || sym.front() == '+') return baseName(line.substr(13, line.find('"', 13) - 13));
    return demangle(dropOffset(sym));
  }
  // glibc backtrace_symbols: MODULE(SYMBOL+0xOFF)[0xADDR]
  if (line.size() > 3 && line.back() == ']' && contains(line, ")[0x")) {
    const size_t open = line.rfind('(', line.rfind(")[0x"));
    if (open == std::string_view::npos) return std::nullopt;
    const std::string_view sym = line.substr(open + 1, line.rfind(")[0x") - open - 1);
    if (sym.empty() || sym.front() == '+') return baseName(line.substr(0, open));
    return functionName(demangle(dropOffset(sym)));
  }
  return std::nullopt;
}

// Frames every crash shares: the signal, abort and interpreter plumbing around the real site.
bool isNoise(std::string_view f) {
  for (std::string_view exact : {"raise", "abort", "gsignal", "pthread_kill", "__pthread_kill_implementation",
                                 "__pthread_kill_internal", "__GI_raise", "__GI_abort", "__libc_message",
                                 "malloc_printerr", "__restore_rt", "__fortify_fail", "__chk_fail", "_start",
                                 "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl",
                                 "std::terminate", "__cxa_throw", "__cxa_rethrow", "<module>", "killpg", "kill"})
    if (f == exact) return true;
  for (std::string_view prefix : {"_Py", "Py", "__asan", "__sanitizer", "__interceptor", "__ubsan",
                                  "__gnu_cxx::__verbose_terminate_handler", "std::__terminate", "__cxxabiv1::",
                                  "faulthandler", "cfunction_", "method_vectorcall", "_PyEval", "libpython"})
    if (startsWith(f, prefix)) return true;
  return f.empty();
}

}  // namespace

std::vector<std::string> extractFrames(std::string_view stderrTail, size_t limit) {
  const auto lines = splitLines(stderrTail);
  // Blocks of consecutive frame lines, with the index of their first line.
  struct Block {
    size_t firstLine;
    std::vector<std::string> frames;
  };
  std::vector<Block> blocks;
  bool inBlock = false;
  size_t asanAt = SIZE_MAX, currentThreadAt = SIZE_MAX;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (contains(lines[i], "ERROR: AddressSanitizer")) asanAt = i;
    if (startsWith(lines[i], "Current thread")) currentThreadAt = i;
    auto frame = parseFrame(lines[i]);
    if (!frame) {
      inBlock = false;
      continue;
    }
    if (!inBlock) blocks.push_back({i, {}});
    inBlock = true;
    blocks.back().frames.push_back(std::move(*frame));
  }
  const Block* chosen = blocks.empty() ? nullptr : &blocks.back();
  for (size_t marker : {currentThreadAt, asanAt}) {  // ASan wins over faulthandler
    if (marker == SIZE_MAX) continue;
    for (const auto& b : blocks)
      if (b.firstLine > marker) {
        chosen = &b;
        break;
      }
  }
  std::vector<std::string> out;
  if (!chosen) return out;
  for (const auto& f : chosen->frames) {
    if (isNoise(f)) continue;
    out.push_back(f);
    if (out.size() == limit) break;
  }
  return out;
}

std::string fatalLine(std::string_view stderrTail) {
  const auto lines = splitLines(stderrTail);
  std::string found;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view l = lines[i];
    const bool fatal =
        startsWith(l, "Fatal Python error") || contains(l, "AddressSanitizer:") || contains(l, "LeakSanitizer:") ||
        contains(l, "runtime error:") || startsWith(l, "malloc(): ") || startsWith(l, "free(): ") ||
        startsWith(l, "realloc(): ") || startsWith(l, "double free or corruption") ||
        startsWith(l, "corrupted ") || startsWith(l, "munmap_chunk(): ") || startsWith(l, "Fatal glibc error") ||
        contains(l, "*** stack smashing detected") || contains(l, "*** buffer overflow detected") ||
        contains(l, "Assertion `") || startsWith(l, "terminate called") || startsWith(l, "LLVM ERROR") ||
        contains(l, "Check failed") || startsWith(l, "Segmentation fault") || startsWith(l, "Illegal instruction");
    if (!fatal || startsWith(l, "SUMMARY:")) continue;
    found = std::string(l);
    if (startsWith(l, "terminate called") && i + 1 < lines.size() && startsWith(lines[i + 1], "what():"))
      found += " " + std::string(lines[i + 1]);
  }
  return normalizeLine(found);
}

}  // namespace nnfuzz
