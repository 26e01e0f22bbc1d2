// unwrap.cpp - Dynamo's wrappers taken off (see unwrap.h). Plain scanning, no regexes: the
// message part is ported line for line to repro.py (src/store/repro/common.py).
#include "triage/unwrap.h"

#include <vector>

namespace nnfuzz {

namespace {

bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// "NameError: rest" at the start: the length of "NameError" (an identifier ending in Error or
// Exception, dotted names allowed), 0 if the text does not start so.
size_t exceptionNameAt(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && isIdentChar(s[i])) ++i;
  const std::string_view name = s.substr(0, i);
  const bool named = name.ends_with("Error") || name.ends_with("Exception");
  return named && s.substr(i).starts_with(": ") ? i : 0;
}

// A Python string literal's contents ('...' or "..." with backslash escapes) at s[i]; false if none.
bool pythonStringAt(std::string_view s, size_t i, std::string& out) {
  if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return false;
  const char quote = s[i];
  for (size_t k = i + 1; k < s.size(); ++k) {
    if (s[k] == quote) return true;
    if (s[k] == '\\' && k + 1 < s.size()) {
      const char e = s[++k];
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      continue;
    }
    out += s[k];
  }
  return false;
}

// "torch.Size([1, 2])" -> "[1, 2]": fake tensors print shapes so where eager prints a list.
std::string withoutTorchSize(std::string text) {
  constexpr std::string_view kSize = "torch.Size([";
  for (size_t at = text.find(kSize); at != std::string::npos; at = text.find(kSize, at)) {
    const size_t close = text.find("])", at + kSize.size());
    if (close == std::string::npos) break;
    text = text.substr(0, at) + text.substr(at + kSize.size() - 1, close + 1 - (at + kSize.size() - 1)) +
           text.substr(close + 2);
  }
  return text;
}

UnwrappedError unwrapped(std::string_view type, std::string_view message) {
  UnwrappedError u{std::string(type), std::string(message)};
  // The trailer: where in the traced code it happened, and how to get Dynamo's stack.
  bool dynamo = false;
  size_t cut = std::string_view::npos;
  for (size_t at = 0; at < message.size();) {
    size_t end = message.find('\n', at);
    if (end == std::string_view::npos) end = message.size();
    const std::string_view line = trimmed(message.substr(at, end - at));
    if (line == "from user code:" || line.starts_with("Set TORCHDYNAMO_VERBOSE=")) {
      cut = at;
      dynamo = true;
      break;
    }
    at = end + 1;
  }
  std::string_view body = trimmed(message.substr(0, cut));
  // Fake-tensor propagation: "... got ValueError('msg')" quotes the exception the op raised.
  if (body.starts_with("RuntimeError when making fake tensor call")) {
    const size_t got = body.find("): got ");
    if (got != std::string_view::npos) {
      const std::string_view rest = body.substr(got + 7);
      size_t name = 0;
      while (name < rest.size() && isIdentChar(rest[name])) ++name;
      std::string inner;
      if (name > 0 && name < rest.size() && rest[name] == '(' && pythonStringAt(rest, name + 1, inner)) {
        u.type = std::string(rest.substr(0, name));
        u.message = inner;
        return u;
      }
    }
  }
  // The inductor backend's failure: "backend='inductor' raised:" then the inner exception.
  if (body.starts_with("backend='") && body.find(" raised:") != std::string_view::npos) {
    const size_t eol = body.find('\n');
    if (eol == std::string_view::npos) return u;
    body = trimmed(body.substr(eol + 1));
    dynamo = true;
  }
  if (!dynamo) return u;
  // "AttributeError: msg": InternalTorchDynamoError (and the backend's failure) name the inner type first.
  if (const size_t name = exceptionNameAt(body)) {
    u.type = std::string(body.substr(0, name));
    body = body.substr(name + 2);
  }
  u.message = std::string(body);
  return u;
}

}  // namespace

UnwrappedError unwrapCompilerError(std::string_view type, std::string_view message) {
  UnwrappedError u = unwrapped(type, message);
  u.message = withoutTorchSize(std::move(u.message));
  return u;
}

}  // namespace nnfuzz
