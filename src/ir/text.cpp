// text.cpp - the GraphIR text form, one line per value:
//
//   graph {
//     %0 = input f32[1,3,5,5]
//     %1 = weight i64[2] [1, -1]
//     %2 = Conv(%0, %1) {group=1, pads=[0,1,0,1]} : f32[1,2,3,4]
//     %3, %4 = Split(%2) {axis=1} : f32[1,12], f32[1,12]
//     %5 = Clip(%3, _, %1) : f32[1,12]          (_ is an omitted optional operand)
//     return %4, %5
//   }
//
// Values are renumbered densely in print order, so printing a parsed text reproduces it.
// Float attributes always show a '.', an exponent, inf or nan; an empty float list is f[].
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <unordered_map>

#include "ir/graph.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

std::string formatFloat(double x, DType dtype) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = dtype == DType::Float64 ? std::to_chars(buf, buf + sizeof buf, x)
                                     : std::to_chars(buf, buf + sizeof buf, static_cast<float>(x));
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string formatNumber(double x, DType dtype) {
  if (isFloat(dtype)) return formatFloat(x, dtype);
  return std::to_string(toInt64Saturated(x));
}

void printQuoted(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

void printAttr(std::string& out, const AttrValue& value) {
  if (auto* i = std::get_if<int64_t>(&value)) {
    out += std::to_string(*i);
  } else if (auto* f = std::get_if<double>(&value)) {
    out += formatFloat(*f, DType::Float32);
  } else if (auto* s = std::get_if<std::string>(&value)) {
    printQuoted(out, *s);
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&value)) {
    out += '[';
    for (size_t k = 0; k < is->size(); ++k) out += (k ? "," : "") + std::to_string((*is)[k]);
    out += ']';
  } else if (auto* fs = std::get_if<std::vector<double>>(&value)) {
    out += fs->empty() ? "f[" : "[";
    for (size_t k = 0; k < fs->size(); ++k) out += (k ? "," : "") + formatFloat((*fs)[k], DType::Float32);
    out += ']';
  } else if (auto* ss = std::get_if<std::vector<std::string>>(&value)) {
    out += ss->empty() ? "s[" : "[";
    for (size_t k = 0; k < ss->size(); ++k) {
      if (k) out += ',';
      printQuoted(out, (*ss)[k]);
    }
    out += ']';
  }
}

}  // namespace

std::string attrText(const AttrValue& value) {
  std::string out;
  printAttr(out, value);
  return out;
}

std::string printGraph(const Graph& g) {
  std::unordered_map<ValueId, size_t> number;
  auto name = [&](ValueId v) { return v == kNoValue ? std::string("_") : "%" + std::to_string(number.at(v)); };
  auto define = [&](ValueId v) {
    const size_t n = number.size();
    number.emplace(v, n);
    return "%" + std::to_string(n);
  };
  std::string out = "graph {\n";
  for (ValueId p : g.paramList()) {
    const Value& v = g.value(p);
    out += "  " + define(p) + (v.kind == ValueKind::Input ? " = input " : " = weight ") + toString(v.type);
    if (v.kind == ValueKind::Weight) {
      out += " [";
      for (size_t k = 0; k < v.data->data.size(); ++k)
        out += (k ? ", " : "") + formatNumber(v.data->data[k], v.type.dtype);
      out += ']';
    }
    out += '\n';
  }
  for (NodeId id : g.nodes()) {
    const Node& n = g.node(id);
    std::string operands;
    for (size_t k = 0; k < n.inputs.size(); ++k) operands += (k ? ", " : "") + name(n.inputs[k]);
    out += "  ";
    for (size_t k = 0; k < n.outputs.size(); ++k) out += (k ? ", " : "") + define(n.outputs[k]);
    out += " = " + n.op + "(" + operands + ")";
    if (!n.attrs.empty()) {
      out += " {";
      bool first = true;
      for (const auto& [key, value] : n.attrs) {
        out += (first ? "" : ", ") + key + "=";
        printAttr(out, value);
        first = false;
      }
      out += '}';
    }
    out += " : ";
    for (size_t k = 0; k < n.outputs.size(); ++k) out += (k ? ", " : "") + toString(g.value(n.outputs[k]).type);
    out += '\n';
  }
  out += "  return ";
  for (size_t k = 0; k < g.outputs().size(); ++k) out += (k ? ", " : "") + name(g.outputs()[k]);
  out += "\n}\n";
  return out;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Graph parse() {
    expectWord("graph");
    expect('{');
    while (true) {
      skipSpace();
      if (peekWord("return")) break;
      parseLine();
    }
    expectWord("return");
    std::vector<ValueId> outputs;
    do outputs.push_back(valueRef(false)); while (accept(','));
    graph_.setOutputs(std::move(outputs));
    expect('}');
    skipSpace();
    if (pos_ != text_.size()) fail("unexpected text after the closing '}'");
    return std::move(graph_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    size_t line = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) line += text_[i] == '\n';
    throw Error("IR text line " + std::to_string(line) + ": " + what);
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  bool peekWord(std::string_view w) {
    skipSpace();
    return text_.substr(pos_, w.size()) == w;
  }
  void expectWord(std::string_view w) {
    if (!peekWord(w)) fail("expected '" + std::string(w) + "'");
    pos_ += w.size();
  }
  std::string identifier() {
    skipSpace();
    const size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    if (start == pos_) fail("expected a name");
    return std::string(text_.substr(start, pos_ - start));
  }
  std::string numberToken() {
    skipSpace();
    const size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '-' || text_[pos_] == '+' || text_[pos_] == '.'))
      ++pos_;
    if (start == pos_) fail("expected a number");
    return std::string(text_.substr(start, pos_ - start));
  }
  static constexpr int64_t kMaxElements = int64_t{1} << 31;
  int64_t integer() { return integerToken(numberToken()); }
  int64_t integerToken(const std::string& tok) const {
    int64_t v = 0;
    auto res = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (res.ec != std::errc() || res.ptr != tok.data() + tok.size()) fail("bad integer '" + tok + "'");
    return v;
  }
  double real(DType dtype) {
    const std::string tok = numberToken();
    if (tok == "nan") return std::nan("");
    if (tok == "inf") return INFINITY;
    if (tok == "-inf") return -INFINITY;
    double v = 0;
    if (dtype == DType::Float64) {
      auto res = std::from_chars(tok.data(), tok.data() + tok.size(), v);
      if (res.ec != std::errc() || res.ptr != tok.data() + tok.size()) fail("bad number '" + tok + "'");
    } else {
      float f = 0;
      auto res = std::from_chars(tok.data(), tok.data() + tok.size(), f);
      if (res.ec != std::errc() || res.ptr != tok.data() + tok.size()) fail("bad number '" + tok + "'");
      v = f;
    }
    return v;
  }
  TensorType tensorType() {
    const std::string dt = identifier();
    auto dtype = dtypeFromName(dt);
    if (!dtype) fail("unknown dtype '" + dt + "'");
    TensorType t{*dtype, {}};
    expect('[');
    if (!accept(']')) {
      do {
        const int64_t d = integer();
        if (d < 0) fail("negative dimension " + std::to_string(d));
        t.shape.push_back(d);
      } while (accept(','));
      expect(']');
      // An empty dim anywhere makes an empty tensor, whatever the other dims (as import reads it).
      if (std::find(t.shape.begin(), t.shape.end(), 0) == t.shape.end()) {
        int64_t elements = 1;
        for (int64_t d : t.shape) {
          if (d > kMaxElements / elements) fail("a tensor of more than 2^31 elements");
          elements *= d;
        }
      }
    }
    return t;
  }
  ValueId valueRef(bool allowOmitted) {
    skipSpace();
    if (allowOmitted && accept('_')) return kNoValue;
    expect('%');
    const size_t n = static_cast<size_t>(integer());
    if (n >= ids_.size()) fail("%" + std::to_string(n) + " is not defined yet");
    return ids_[n];
  }
  void defineNext(ValueId id, size_t printed) {
    if (printed != ids_.size()) fail("values must be numbered %0, %1, ... in order");
    ids_.push_back(id);
  }
  // The rest of a quoted string whose opening quote was read.
  std::string quoted() {
    std::string s;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') ++pos_;
      if (pos_ < text_.size()) s += text_[pos_++];
    }
    expect('"');
    return s;
  }
  AttrValue attrValue() {
    skipSpace();
    if (accept('"')) return quoted();
    if (peekWord("f[")) {
      pos_ += 2;
      expect(']');
      return std::vector<double>{};
    }
    if (peekWord("s[")) {
      pos_ += 2;
      expect(']');
      return std::vector<std::string>{};
    }
    if (accept('[')) {
      if (accept(']')) return std::vector<int64_t>{};
      skipSpace();
      if (accept('"')) {
        std::vector<std::string> ss{quoted()};
        while (accept(',')) {
          skipSpace();
          expect('"');
          ss.push_back(quoted());
        }
        expect(']');
        return ss;
      }
      std::vector<std::string> toks;
      do toks.push_back(numberToken()); while (accept(','));
      expect(']');
      const bool floats = toks[0].find_first_of(".eni") != std::string::npos;
      if (floats) {
        std::vector<double> fs;
        for (auto& t : toks) fs.push_back(parseToken(t));
        return fs;
      }
      std::vector<int64_t> is;
      for (auto& t : toks) is.push_back(integerToken(t));
      return is;
    }
    const std::string tok = numberToken();
    if (tok.find_first_of(".eni") != std::string::npos) return parseToken(tok);
    return integerToken(tok);
  }
  double parseToken(const std::string& tok) {
    Parser sub(tok);
    return sub.real(DType::Float32);
  }
  void parseLine() {
    std::vector<size_t> printed;
    do {
      expect('%');
      printed.push_back(static_cast<size_t>(integer()));
    } while (accept(','));
    expect('=');
    const std::string word = identifier();
    if (word == "input" || word == "weight") {
      if (printed.size() != 1) fail("an input or weight defines one value");
      TensorType type = tensorType();
      if (word == "input") {
        defineNext(graph_.addInput(type), printed[0]);
        return;
      }
      // Each value takes two characters at least: never allocate more than the text holds.
      if (type.numel() > static_cast<int64_t>(text_.size() - pos_) / 2 + 1) fail("fewer values than the weight's type needs");
      Tensor data(type);
      expect('[');
      for (int64_t k = 0; k < type.numel(); ++k) {
        if (k) expect(',');
        data.data[static_cast<size_t>(k)] =
            isFloat(type.dtype) ? real(type.dtype) : int64Element(integer());
      }
      expect(']');
      defineNext(graph_.addWeight(std::move(data)), printed[0]);
      return;
    }
    std::vector<ValueId> inputs;
    expect('(');
    if (!accept(')')) {
      do inputs.push_back(valueRef(true)); while (accept(','));
      expect(')');
    }
    Attributes attrs;
    if (accept('{')) {
      do {
        const std::string key = identifier();
        expect('=');
        attrs.set(key, attrValue());
      } while (accept(','));
      expect('}');
    }
    expect(':');
    std::vector<TensorType> types;
    do types.push_back(tensorType()); while (accept(','));
    if (types.size() != printed.size()) fail("result count and type count differ");
    const NodeId id = graph_.addNode(word, std::move(inputs), std::move(attrs), types);
    for (size_t k = 0; k < printed.size(); ++k) defineNext(graph_.node(id).outputs[k], printed[k]);
  }

  std::string_view text_;
  size_t pos_ = 0;
  Graph graph_;
  std::vector<ValueId> ids_;
};

}  // namespace

Graph parseGraph(std::string_view text) { return Parser(text).parse(); }

}  // namespace nnfuzz
