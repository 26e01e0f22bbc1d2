// normalize.cpp - the message normaliser (see normalize.h). Written as a scanner rather than
// regexes: it is ported to Python in repro.py and must behave identically there.
#include "triage/normalize.h"

#include "triage/unwrap.h"

#include <algorithm>
#include <string>
#include <vector>

namespace nnfuzz {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isWord(char c) { return isDigit(c) || isAlpha(c) || c == '_'; }
bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }
bool isHigh(char c) { return static_cast<unsigned char>(c) >= 0x80; }
bool isPathChar(char c) { return isWord(c) || c == '.' || c == '/' || c == '-' || c == '+' || c == '~'; }

// A word (run of [A-Za-z0-9_]) that names a tensor, node or temporary, not a concept.
bool isName(std::string_view w) {
  const size_t us = w.rfind('_');
  if (us != std::string_view::npos && us > 0 && us + 1 < w.size()) {
    bool digits = true;
    for (size_t i = us + 1; i < w.size(); ++i) digits = digits && isDigit(w[i]);
    if (digits) return true;
  }
  for (std::string_view prefix : {"t", "lv", "gv", "tmp"}) {
    if (w.size() <= prefix.size() || w.substr(0, prefix.size()) != prefix) continue;
    bool digits = true;
    for (size_t i = prefix.size(); i < w.size(); ++i) digits = digits && isDigit(w[i]);
    if (digits) return true;
  }
  return false;
}

// A word our exporter built from a node name and a suffix ("Loop_2_body", "QuantizeLinear_5Parameter"):
// the digits right after an inner '_' number the node, so they become <n>. Node names start with
// their operator, CamelCase; "CV_32F" (OpenCV's element types) is not one. Empty when none is there.
std::string withNodeNumbers(std::string_view w) {
  if (w.empty() || !(w[0] >= 'A' && w[0] <= 'Z')) return {};
  const size_t firstUnderscore = w.find('_');
  bool lower = false;
  for (size_t i = 0; i < w.size() && i < firstUnderscore; ++i) lower = lower || (w[i] >= 'a' && w[i] <= 'z');
  if (!lower) return {};
  std::string out;
  bool numbered = false;
  for (size_t i = 0; i < w.size();) {
    if (w[i] == '_' && i > 0 && i + 1 < w.size() && isDigit(w[i + 1])) {
      out += "_<n>";
      i += 1;
      while (i < w.size() && isDigit(w[i])) ++i;
      numbered = true;
      continue;
    }
    out += w[i++];
  }
  return numbered ? out : std::string();
}

// 8+ hex digits with at least one digit and one letter: an address or hash without 0x.
bool isBareHex(std::string_view w) {
  if (w.size() < 8) return false;
  bool digit = false, letter = false;
  for (char c : w) {
    if (!isHex(c)) return false;
    (isDigit(c) ? digit : letter) = true;
  }
  return digit && letter;
}

// Frame and marker lines of tracebacks: where a failure was raised, not what it is. LLVM IR
// instructions quoted by a verifier ("%6 = fcmp oeq i1 false, %5") name registers, not the bug.
bool isTracebackLine(std::string_view t) {
  if (t.empty()) return true;
  if (t[0] == '%' && t.find(" = ") != std::string_view::npos) return true;
  if (t.substr(0, 9) == "Traceback" || t.substr(0, 6) == "File \"") return true;
  if (t[0] == '#' && t.size() > 1 && isDigit(t[1])) return true;
  size_t i = 0;
  while (i < t.size() && isDigit(t[i])) ++i;
  if (i > 0 && i + 1 < t.size() && t[i] == ':' && t[i + 1] == ' ') return true;
  bool marker = true;
  for (char c : t) marker = marker && (c == '^' || c == '~' || c == ' ');
  return marker;
}

// An error code: digits that a SUT prints as the code of its status ("[ONNXRuntimeError] : 1 :",
// "error code 13", "errno 2"). Codes tell failure kinds apart; other numbers are data.
bool isErrorCode(std::string_view s, size_t begin, size_t end) {
  const std::string_view before = s.substr(0, begin);
  const std::string_view after = s.substr(end);
  auto endsWith = [&](std::string_view t) { return before.size() >= t.size() && before.substr(before.size() - t.size()) == t; };
  if (endsWith("] : ") && after.substr(0, 3) == " : ") return true;
  return endsWith("code ") || endsWith("code: ") || endsWith("errno ") || endsWith("errno: ");
}

bool isTupleSeparator(std::string_view sep) {
  return sep == "," || sep == ", " || sep == "x" || sep == " x " || sep == ".." || sep == "*" || sep == " ";
}

// Numbers in a row (a shape, a tuple, a dims list) become one <n>: a shape's rank is as much
// an accident of the model as its dims, and "[<n>,<n>]" vs "[<n>,<n>,<n>]" split one bug into
// as many as there are ranks. '?' (a dynamic dim) counts as a number inside such a run.
std::string collapseTuples(const std::string& line) {
  std::string out;
  const size_t n = line.size();
  size_t i = 0;
  auto elementAt = [&](size_t at) -> size_t {  // length of an element at `at`, 0 if none
    // "<n>KiB" is a quantity, not a tuple element; "<n>x<n>" is a shape.
    if (line.compare(at, 3, "<n>") == 0 &&
        (at + 3 >= n || !isWord(line[at + 3]) || line.compare(at + 3, 4, "x<n>") == 0))
      return 3;
    if (at < n && line[at] == '?' && (at + 1 >= n || !isWord(line[at + 1]))) return 1;
    return 0;
  };
  while (i < n) {
    size_t len = elementAt(i);
    if (len == 0 || (i > 0 && isWord(line[i - 1]))) {
      out += line[i++];
      continue;
    }
    size_t end = i + len;
    size_t count = 1;
    bool number = len == 3;
    while (end < n) {
      size_t sep = end;
      while (sep < n && sep - end < 3 && !elementAt(sep)) ++sep;
      if (sep >= n || !elementAt(sep) || !isTupleSeparator(line.substr(end, sep - end))) break;
      // A space alone separates only numbers ("1 2 3"), not a number from a following word.
      const size_t next = elementAt(sep);
      number = number || next == 3;
      end = sep + next;
      ++count;
    }
    out += (count > 1 || number) ? "<n>" : "?";
    i = end;
  }
  return out;
}

// The length of a C++ __PRETTY_FUNCTION__'s template argument list at s[i] (GCC's
// "[with T = signed char; ...]", clang's "[T = signed char]" right after the parameter
// list's ") "), brackets nested; to the end of the line if it is cut off. 0 if none is there.
size_t templateArgumentsAt(std::string_view s, size_t i) {
  if (s[i] != '[') return 0;
  bool found = s.compare(i, 6, "[with ") == 0;
  if (!found && i >= 2 && s[i - 1] == ' ' && s[i - 2] == ')') {
    size_t j = i + 1;
    while (j < s.size() && isWord(s[j])) ++j;
    found = j > i + 1 && s.compare(j, 3, " = ") == 0;
  }
  if (!found) return 0;
  size_t depth = 0, j = i;
  for (; j < s.size(); ++j) {
    if (s[j] == '[') ++depth;
    if (s[j] == ']' && --depth == 0) return j + 1 - i;
  }
  return j - i;
}

std::string_view trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && isSpace(s[b])) ++b;
  while (e > b && isSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// OpenVINO names every node whose conversion failed ("Conversion is failed for: DFT-<n>,
// Scan-<n>"). A failing If, Loop or Scan is the failure: which other nodes fail beside it
// (its body's, or a second bug's the reducer cannot then cut away) is an accident of the model.
std::string keepControlFlowFailures(std::string line) {
  std::string before;
  std::vector<std::string> nodes, kept;
  if (!failedNodeList(line, before, nodes)) return line;
  for (const std::string& item : nodes) {
    const std::string name = item.substr(0, item.find('-'));
    if ((name == "If" || name == "Loop" || name == "Scan") && std::find(kept.begin(), kept.end(), item) == kept.end())
      kept.push_back(item);
  }
  if (kept.empty()) return line;
  for (size_t k = 0; k < kept.size(); ++k) before += (k ? ", " : "") + kept[k];
  return before;
}

// ONNX Runtime says where a kernel failed around the kernel's own words: "Non-zero status code
// returned while running ReduceSum node. Name:'x' Status Message: <words>" at run (nested once
// per enclosing If or Loop), "Exception during initialization: <words>" when its constant folding
// ran the kernel while the session was created. One kernel check is one bug in either place.
std::string withoutOnnxRuntimeWrappers(std::string message) {
  constexpr std::string_view kRunning = "Non-zero status code returned while running ";
  constexpr std::string_view kStatus = "Status Message: ";
  constexpr std::string_view kInit = "Exception during initialization: ";
  for (size_t at; (at = message.find(kRunning)) != std::string::npos;) {
    const size_t status = message.find(kStatus, at);
    if (status == std::string::npos) break;
    message.erase(at, status + kStatus.size() - at);
  }
  for (size_t at; (at = message.find(kInit)) != std::string::npos;) message.erase(at, kInit.size());
  return message;
}

// TVM's VM codegen quotes the call it cannot emit ("Offending call: R.add(alloc1, ...)"). The
// call is whichever operator first consumes a data-dependent shape left unlowered, and its
// operands are TVM's allocation counters: the sentence before the quote is the bug.
std::string_view withoutOffendingCall(std::string_view message) {
  constexpr std::string_view kOffendingCall = "Offending call:";
  const size_t at = message.find(kOffendingCall);
  return at == std::string_view::npos ? message : message.substr(0, at);
}

}  // namespace

bool failedNodeList(const std::string& message, std::string& before, std::vector<std::string>& nodes) {
  const size_t at = message.find(kConversionFailedFor);
  if (at == std::string::npos) return false;
  const size_t from = at + kConversionFailedFor.size();
  before = message.substr(0, from);
  nodes.clear();
  for (size_t i = from; i < message.size();) {
    size_t end = message.find(", ", i);
    if (end == std::string::npos) end = message.size();
    nodes.push_back(message.substr(i, end - i));
    i = end == message.size() ? end : end + 2;
  }
  return !nodes.empty();
}

std::string normalizeLine(std::string_view s) {
  std::string out;
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const char c = s[i];
    if (isHigh(c)) {
      while (i < n && isHigh(s[i])) ++i;
      out += '?';
      continue;
    }
    if (isSpace(c)) {
      while (i < n && isSpace(s[i])) ++i;
      out += ' ';
      continue;
    }
    // Template arguments: one function template is one place, whatever it was instantiated
    // with ("[with T = signed char]" and "[with T = unsigned char]" are one bug).
    if (const size_t len = templateArgumentsAt(s, i)) {
      if (!out.empty() && out.back() == ' ') out.pop_back();
      i += len;
      continue;
    }
    // A path: a run of path characters holding a '/', absolute or with a '.' somewhere.
    if (isPathChar(c) && (i == 0 || !isPathChar(s[i - 1]))) {
      size_t j = i;
      bool slash = false, dot = false;
      while (j < n && isPathChar(s[j])) {
        slash = slash || s[j] == '/';
        dot = dot || s[j] == '.';
        ++j;
      }
      if (slash && (c == '/' || c == '~' || dot)) {
        out += "<path>";
        i = j;
        continue;
      }
    }
    // A sign directly before a number belongs to the number.
    if ((c == '-' || c == '+') && i + 1 < n && isDigit(s[i + 1]) && (i == 0 || (!isWord(s[i - 1]) && s[i - 1] != '.'))) {
      ++i;
      continue;
    }
    if (isWord(c)) {
      size_t j = i;
      while (j < n && isWord(s[j])) ++j;
      const std::string_view w = s.substr(i, j - i);
      if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
        bool hex = true;
        for (size_t k = 2; k < w.size(); ++k) hex = hex && isHex(w[k]);
        if (hex) {
          out += "<hex>";
          i = j;
          continue;
        }
      }
      if (isBareHex(w)) {
        out += "<hex>";
        i = j;
        continue;
      }
      if (isDigit(c)) {
        // digits [. digits] [e[+-]digits], then the rest of the word with each digit run replaced.
        size_t k = i;
        while (k < n && isDigit(s[k])) ++k;
        if (k + 1 < n && s[k] == '.' && isDigit(s[k + 1])) {
          ++k;
          while (k < n && isDigit(s[k])) ++k;
        }
        if (k < n && (s[k] == 'e' || s[k] == 'E')) {
          size_t e = k + 1;
          if (e < n && (s[e] == '+' || s[e] == '-')) ++e;
          if (e < n && isDigit(s[e])) {
            k = e;
            while (k < n && isDigit(s[k])) ++k;
          }
        }
        if (k == j && isErrorCode(s, i, j)) {
          out += w;
          i = j;
          continue;
        }
        out += "<n>";
        while (k < n && isWord(s[k])) {
          if (isDigit(s[k])) {
            while (k < n && isDigit(s[k])) ++k;
            out += "<n>";
          } else {
            out += s[k++];
          }
        }
        i = k;
        continue;
      }
      if (isName(w)) {
        out += "<name>";
        // A tensor named with its output port ("Squeeze_3.0") is still one name.
        size_t k = j;
        if (k + 1 < n && s[k] == '.' && isDigit(s[k + 1])) {
          ++k;
          while (k < n && isDigit(s[k])) ++k;
          if (k >= n || (!isWord(s[k]) && s[k] != '.')) j = k;
        }
        i = j;
        continue;
      }
      const std::string numbered = withNodeNumbers(w);
      out += numbered.empty() ? std::string(w) : numbered;
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return std::string(trim(collapseTuples(out)));
}

std::string normalizeMessage(std::string_view wrapped) {
  // Eager and compiled in one wording; a kernel's words wherever ONNX Runtime ran it.
  const std::string inner = withoutOnnxRuntimeWrappers(unwrapCompilerError("", wrapped).message);
  const std::string_view message = withoutOffendingCall(inner);
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string_view::npos) end = message.size();
    const std::string_view line = trim(message.substr(start, end - start));
    // A repeated line (an LLVM verifier names each bad instruction once per kernel) adds nothing.
    if (!isTracebackLine(line) && std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    start = end + 1;
  }
  if (lines.size() > 4) lines = {lines[0], lines[1], lines[2], lines.back()};
  std::string out;
  for (const auto& line : lines) {
    const std::string norm = keepControlFlowFailures(normalizeLine(line));
    if (norm.empty()) continue;
    if (!out.empty()) out += " | ";
    out += norm;
  }
  if (out.size() > kMaxNormalizedMessage) out = std::string(trim(out.substr(0, kMaxNormalizedMessage)));
  return out;
}

}  // namespace nnfuzz
