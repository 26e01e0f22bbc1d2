// text.cpp - the GraphIR text form, one line per value:
//
//   graph {
//     %0 = input f32[1,3,5,5]
//     %1 = weight i64[2] [1, -1]
//     %2 = Conv(%0, %1) {group=1, pads=[0,1,0,1]} : f32[1,2,3,4]
//     %3, %4 = Split(%2) {axis=1} : f32[1,12], f32[1,12]
//     %5 = Clip(%3, _, %1) : f32[1,12]          (_ is an omitted optional operand)
//     %6 = com.microsoft.Gelu(%5) : f32[1,12]    (another domain: its name before the op's)
//     return %4, %5
//   }
//
// A graph attribute prints as a nested graph, its lines one level deeper; a body names
// outer-scope values directly (its outer parameters are not printed, the parser makes
// them, and the owning node's captures, on first reference, in text order):
//
//     %6 = If(%5) {else_branch=graph {
//       %7 = Neg(%0) : f32[1,2,3,4]
//       return %7
//     }, then_branch=graph { ... }} : f32[1,2,3,4]
//
// Values are renumbered densely in print order (a node's results before its bodies'
// values), so printing a parsed text reproduces it.
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
  if (std::holds_alternative<GraphAttr>(value)) {
    out += "graph";  // the Printer writes bodies in full
  } else if (auto* i = std::get_if<int64_t>(&value)) {
    out += std::to_string(*i);
  } else if (auto* f = std::get_if<double>(&value)) {
    out += formatFloat(*f, DType::Float32);
  } else if (auto* s = std::get_if<std::string>(&value)) {
    printQuoted(out, *s);
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&value)) {
    out += '[';
    for (size_t k = 0; k < is->size(); ++k) {
      if (k) out += ',';
      out += std::to_string((*is)[k]);
    }
    out += ']';
  } else if (auto* fs = std::get_if<std::vector<double>>(&value)) {
    out += fs->empty() ? "f[" : "[";
    for (size_t k = 0; k < fs->size(); ++k) {
      if (k) out += ',';
      out += formatFloat((*fs)[k], DType::Float32);
    }
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

// Prints graphs and their bodies with one dense numbering.
class Printer {
 public:
  std::string print(const Graph& g) {
    graph(g, nullptr, nullptr, 1);
    return std::move(out_);
  }

 private:
  struct Scope {
    const Graph* graph;
    const Scope* parent;
    const Node* owner;  // the node whose attribute holds this body
    std::unordered_map<ValueId, size_t> number;
  };

  static std::string name(const Scope& s, ValueId v) {
    if (v == kNoValue) return "_";
    const Value& value = s.graph->value(v);
    if (value.kind == ValueKind::Outer && s.parent && value.capture < s.owner->captures.size())
      return name(*s.parent, s.owner->captures[value.capture]);
    auto it = s.number.find(v);
    return it == s.number.end() ? "%?" : "%" + std::to_string(it->second);
  }
  std::string define(Scope& s, ValueId v) {
    s.number.emplace(v, next_);
    return "%" + std::to_string(next_++);
  }

  void graph(const Graph& g, const Scope* parent, const Node* owner, int depth) {
    Scope s{&g, parent, owner, {}};
    const std::string indent(static_cast<size_t>(depth) * 2, ' ');
    out_ += "graph {\n";
    for (ValueId p : g.paramList()) {
      const Value& v = g.value(p);
      if (v.kind == ValueKind::Outer) continue;
      out_ += indent + define(s, p) + (v.kind == ValueKind::Input ? " = input " : " = weight ") + toString(v.type);
      if (v.kind == ValueKind::Weight) {
        out_ += " [";
        for (size_t k = 0; k < v.data->data.size(); ++k) {
          if (k) out_ += ", ";
          out_ += formatNumber(v.data->data[k], v.type.dtype);
        }
        out_ += ']';
      }
      out_ += '\n';
    }
    for (NodeId id : g.nodes()) {
      const Node& n = g.node(id);
      out_ += indent;
      for (size_t k = 0; k < n.outputs.size(); ++k) out_ += (k ? ", " : "") + define(s, n.outputs[k]);
      out_ += " = " + qualifiedOp(n) + "(";
      for (size_t k = 0; k < n.inputs.size(); ++k) out_ += (k ? ", " : "") + name(s, n.inputs[k]);
      out_ += ")";
      if (!n.attrs.empty()) {
        out_ += " {";
        bool first = true;
        for (const auto& [key, value] : n.attrs) {
          out_ += (first ? "" : ", ") + key + "=";
          if (const auto* body = std::get_if<GraphAttr>(&value))
            graph(body->graph(), &s, &n, depth + 1);
          else
            printAttr(out_, value);
          first = false;
        }
        out_ += '}';
      }
      out_ += " : ";
      for (size_t k = 0; k < n.outputs.size(); ++k) out_ += (k ? ", " : "") + toString(g.value(n.outputs[k]).type);
      out_ += '\n';
    }
    out_ += indent + "return ";
    for (size_t k = 0; k < g.outputs().size(); ++k) out_ += (k ? ", " : "") + name(s, g.outputs()[k]);
    out_ += "\n" + indent.substr(2) + "}";
  }

  std::string out_;
  size_t next_ = 0;
};

}  // namespace

std::string attrText(const AttrValue& value) {
  if (const auto* body = std::get_if<GraphAttr>(&value)) {
    std::string text = Printer().print(body->graph());
    text.pop_back();  // the trailing newline
    return text;
  }
  std::string out;
  printAttr(out, value);
  return out;
}

std::string printGraph(const Graph& g) {
  const std::string header = g.opset() == kCanonicalOpset ? "" : "opset " + std::to_string(g.opset()) + "\n";
  return header + Printer().print(g) + "\n";
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Graph parse() {
    std::optional<int64_t> opset;
    if (peekWord("opset")) {
      expectWord("opset");
      opset = integer();
      if (*opset < 1 || *opset > 1000) fail("bad opset " + std::to_string(*opset));
    }
    Graph g = graphBody();
    if (opset) g.setOpset(static_cast<int>(*opset));
    skipSpace();
    if (pos_ != text_.size()) fail("unexpected text after the closing '}'");
    return g;
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
    if (n >= ids_.size() || ids_[n].id == kNoValue) fail("%" + std::to_string(n) + " is not defined yet");
    return resolve(frames_.size() - 1, n);
  }
  // Value %n as seen from frame `level`: its own value, or an outer parameter standing for
  // it (made, with the owning node's capture, on first reference).
  ValueId resolve(size_t level, size_t n) {
    const Named& named = ids_[n];
    if (frames_[level].serial == named.frame) return named.id;
    if (level == 0 || !inScope(named.frame, level)) fail("%" + std::to_string(n) + " is out of scope here");
    const ValueId outer = resolve(level - 1, n);
    Frame& f = frames_[level];
    if (auto it = f.outers.find(outer); it != f.outers.end()) return it->second;
    auto& captures = frames_[level - 1].nodeCaptures;
    auto at = std::find(captures.begin(), captures.end(), outer);
    const auto capture = static_cast<uint32_t>(at - captures.begin());
    if (at == captures.end()) captures.push_back(outer);
    const ValueId param = f.graph.addOuter(frames_[level - 1].graph.value(outer).type, capture);
    f.outers.emplace(outer, param);
    return param;
  }
  bool inScope(size_t frameSerial, size_t level) const {
    for (size_t l = 0; l < level; ++l)
      if (frames_[l].serial == frameSerial) return true;
    return false;
  }
  // Reserves the next printed numbers for values the current line defines.
  void reserve(const std::vector<size_t>& printed) {
    for (size_t p : printed) {
      if (p != ids_.size()) fail("values must be numbered %0, %1, ... in order");
      ids_.push_back({frames_.back().serial, kNoValue});
    }
  }
  void defineNext(ValueId id, size_t printed) { ids_[printed].id = id; }
  Graph graphBody() {
    if (frames_.size() > kMaxDepth) fail("graphs nested too deeply");
    frames_.push_back(Frame{{}, nextSerial_++, {}, {}});
    if (frames_.size() > 1) frames_.back().graph.markBody();
    expectWord("graph");
    expect('{');
    while (true) {
      skipSpace();
      if (peekWord("return")) break;
      if (pos_ >= text_.size()) fail("expected 'return'");
      parseLine();
    }
    expectWord("return");
    std::vector<ValueId> outputs;
    do outputs.push_back(valueRef(false)); while (accept(','));
    expect('}');
    Graph g = std::move(frames_.back().graph);
    g.setOutputs(std::move(outputs));
    frames_.pop_back();
    return g;
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
    if (peekWord("graph")) return GraphAttr(graphBody());
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
    reserve(printed);
    Frame& frame = frames_.back();
    frame.nodeCaptures.clear();
    const std::string word = identifier();
    if (word == "input" || word == "weight") {
      if (printed.size() != 1) fail("an input or weight defines one value");
      TensorType type = tensorType();
      if (word == "input") {
        defineNext(frames_.back().graph.addInput(type), printed[0]);
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
      defineNext(frames_.back().graph.addWeight(std::move(data)), printed[0]);
      return;
    }
    // A dotted name is an operator of another domain: com.microsoft.FusedMatMul.
    std::string domain;
    std::string op = word;
    while (accept('.')) {
      domain += (domain.empty() ? "" : ".") + op;
      op = identifier();
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
    Graph& g = frames_.back().graph;
    const NodeId id = g.addNode(op, std::move(inputs), std::move(attrs), types, std::move(frames_.back().nodeCaptures));
    g.node(id).domain = std::move(domain);
    frames_.back().nodeCaptures.clear();
    for (size_t k = 0; k < printed.size(); ++k) defineNext(g.node(id).outputs[k], printed[k]);
  }

  struct Named {
    size_t frame;  // serial of the frame that defines it
    ValueId id;    // kNoValue while reserved
  };
  struct Frame {
    Graph graph;
    size_t serial;
    std::vector<ValueId> nodeCaptures;                // of the node being parsed here
    std::unordered_map<ValueId, ValueId> outers;  // enclosing value -> outer parameter
  };
  static constexpr size_t kMaxDepth = 16;

  std::string_view text_;
  size_t pos_ = 0;
  std::vector<Frame> frames_;
  size_t nextSerial_ = 0;
  std::vector<Named> ids_;
};

}  // namespace

Graph parseGraph(std::string_view text) { return Parser(text).parse(); }

}  // namespace nnfuzz
