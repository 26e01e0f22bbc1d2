// onnx_snippet.cpp - the onnx.helper script of a model (see onnx_snippet.h).
#include "store/onnx_snippet.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "onnx/tensor_proto.h"

namespace nnfuzz {

namespace {

// Python's reserved words: an attribute named like one cannot be a keyword argument.
const std::set<std::string> kPythonKeywords = {"False", "None", "True", "and", "as", "assert", "async", "await",
                                               "break", "class", "continue", "def", "del", "elif", "else", "except",
                                               "finally", "for", "from", "global", "if", "import", "in", "is",
                                               "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
                                               "while", "with", "yield"};

bool isIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return !kPythonKeywords.count(name);
}

std::string pyString(const std::string& s) {
  bool ascii = true;
  for (unsigned char c : s) ascii = ascii && c >= 0x20 && c < 0x7f;
  std::string out = ascii ? "\"" : "b\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out + "\"";
}

/// A Python float literal that reads back as the same value at `digits` significant digits.
std::string pyFloat(double x, int digits) {
  if (std::isnan(x)) return "np.nan";
  if (std::isinf(x)) return x > 0 ? "np.inf" : "-np.inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string pyValue(double x, DType dtype) {
  if (dtype == DType::Bool) return x != 0 ? "True" : "False";
  if (isFloat(dtype)) return pyFloat(x, dtype == DType::Float64 ? 17 : 9);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

std::string numpyType(DType dtype) {
  const std::string name(dtypeName(dtype));  // "f32", "i64", "u8", "bool", ...
  if (dtype == DType::Bool) return "np.bool_";
  const char kind = name[0];
  const std::string bits = name.substr(1);
  return std::string("np.") + (kind == 'f' ? "float" : kind == 'u' ? "uint" : "int") + bits;
}

std::string pyShape(const Shape& shape) {
  std::string s = "(";
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string pyList(const std::vector<std::string>& items) {
  std::string s = "[";
  for (size_t k = 0; k < items.size(); ++k) s += (k ? ", " : "") + items[k];
  return s + "]";
}

/// A numpy expression and, for a drawn one, the comment to end its line with.
struct PyArray {
  std::string expr, comment;
  std::string endOfLine() const { return comment.empty() ? "" : "  # " + comment; }
};

/// `t` as numpy: exact when small, else a seeded draw over its value range.
PyArray pyArray(const Tensor& t, const SnippetOptions& o, const std::string& exactAt, bool& usesRng) {
  const std::string type = numpyType(t.type.dtype);
  if (t.numel() <= o.inlineLimit) {
    std::vector<std::string> values;
    for (double x : t.data) values.push_back(pyValue(x, t.type.dtype));
    return {"np.array(" + pyList(values) + ", dtype=" + type + ").reshape(" + pyShape(t.type.shape) + ")", ""};
  }
  usesRng = true;
  double lo = 0, hi = 0;
  bool any = false;
  for (double x : t.data)
    if (std::isfinite(x)) {
      lo = any ? std::min(lo, x) : x;
      hi = any ? std::max(hi, x) : x;
      any = true;
    }
  const std::string shape = pyShape(t.type.shape);
  std::string draw;
  if (t.type.dtype == DType::Bool)
    draw = "rng.random(" + shape + ") < 0.5";
  else if (isFloat(t.type.dtype))
    draw = "rng.uniform(" + pyFloat(lo, 9) + ", " + pyFloat(hi, 9) + ", " + shape + ").astype(" + type + ")";
  else
    draw = "rng.integers(" + pyValue(lo, DType::Int64) + ", " + pyValue(hi, DType::Int64) + " + 1, " + shape +
           ").astype(" + type + ")";
  return {draw, std::to_string(t.numel()) + " values in [" + pyValue(lo, t.type.dtype) + ", " +
                    pyValue(hi, t.type.dtype) + "]; exact ones: " + exactAt};
}

std::string valueInfo(const onnx::ValueInfoProto& v) {
  const auto& tt = v.type().tensor_type();
  std::string shape = "None";
  if (tt.has_shape()) {
    std::vector<std::string> dims;
    for (const auto& d : tt.shape().dim())
      dims.push_back(d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? pyString(d.dim_param()) : "None");
    shape = pyList(dims);
  }
  return "helper.make_tensor_value_info(" + pyString(v.name()) + ", TensorProto." +
         onnx::TensorProto_DataType_Name(tt.elem_type()) + ", " + shape + ")";
}

// The Python value of an attribute (a tensor attribute goes through numpy_helper); a drawn
// tensor's comment goes to `comment`.
std::string attributeValue(const onnx::AttributeProto& a, const SnippetOptions& o, bool& usesRng, std::string& comment) {
  using A = onnx::AttributeProto;
  std::vector<std::string> items;
  switch (a.type()) {
    case A::FLOAT: return pyFloat(a.f(), 9);
    case A::INT: return std::to_string(a.i());
    case A::STRING: return pyString(a.s());
    case A::TENSOR: {
      const PyArray t = pyArray(fromTensorProto(a.t()), o, "the node's attribute in " + o.modelFile, usesRng);
      comment = t.comment;
      return "numpy_helper.from_array(" + t.expr + (a.t().name().empty() ? "" : ", name=" + pyString(a.t().name())) + ")";
    }
    case A::FLOATS:
      for (float f : a.floats()) items.push_back(pyFloat(f, 9));
      return pyList(items);
    case A::INTS:
      for (int64_t i : a.ints()) items.push_back(std::to_string(i));
      return pyList(items);
    case A::STRINGS:
      for (const auto& s : a.strings()) items.push_back(pyString(s));
      return pyList(items);
    default: return "None";  // graphs and sparse tensors: nnfuzz never writes them
  }
}

}  // namespace

std::string onnxHelperSnippet(const onnx::ModelProto& model, const std::vector<Tensor>& inputs,
                              const SnippetOptions& o) {
  const auto& g = model.graph();
  bool usesRng = false;
  std::string body;

  std::vector<std::string> inits;
  for (int k = 0; k < g.initializer_size(); ++k) {
    const auto& init = g.initializer(k);
    const PyArray t = pyArray(fromTensorProto(init), o, o.modelFile + " initializer " + pyString(init.name()), usesRng);
    inits.push_back("    numpy_helper.from_array(" + t.expr + ", name=" + pyString(init.name()) + ")," + t.endOfLine());
  }
  std::string late;  // attributes make_node cannot take (empty lists have no inferable type)
  body += "nodes = [\n";
  for (int n = 0; n < g.node_size(); ++n) {
    const auto& node = g.node(n);
    std::vector<std::string> ins, outs, kwargs, odd;
    std::string comment;
    for (const auto& i : node.input()) ins.push_back(pyString(i));
    for (const auto& out : node.output()) outs.push_back(pyString(out));
    std::string call = "    helper.make_node(" + pyString(node.op_type()) + ", " + pyList(ins) + ", " + pyList(outs);
    if (!node.name().empty()) call += ", name=" + pyString(node.name());
    if (!node.domain().empty()) call += ", domain=" + pyString(node.domain());
    for (const auto& a : node.attribute()) {
      const bool emptyList = (a.type() == onnx::AttributeProto::INTS && a.ints_size() == 0) ||
                             (a.type() == onnx::AttributeProto::FLOATS && a.floats_size() == 0) ||
                             (a.type() == onnx::AttributeProto::STRINGS && a.strings_size() == 0);
      if (emptyList)
        late += "nodes[" + std::to_string(n) + "].attribute.append(helper.make_attribute(" + pyString(a.name()) +
                ", [], attr_type=onnx.AttributeProto." + onnx::AttributeProto_AttributeType_Name(a.type()) + "))\n";
      else if (isIdentifier(a.name()))
        kwargs.push_back(a.name() + "=" + attributeValue(a, o, usesRng, comment));
      else
        odd.push_back(pyString(a.name()) + ": " + attributeValue(a, o, usesRng, comment));
    }
    for (const auto& kw : kwargs) call += ", " + kw;
    if (!odd.empty()) {
      call += ", **{";
      for (size_t k = 0; k < odd.size(); ++k) call += (k ? ", " : "") + odd[k];
      call += "}";
    }
    body += call + ")," + (comment.empty() ? "" : "  # " + comment) + "\n";
  }
  body += "]\n" + late;

  auto infos = [](const auto& list) {
    if (list.empty()) return std::string("[]");
    std::string s = "[\n";
    for (const auto& v : list) s += "        " + valueInfo(v) + ",\n";
    return s + "    ]";
  };
  body += "graph = helper.make_graph(\n    nodes,\n    " + pyString(g.name()) + ",\n    inputs=" + infos(g.input()) +
          ",\n    outputs=" + infos(g.output()) + ",\n    initializer=initializers,\n";
  if (g.value_info_size() > 0) body += "    value_info=" + infos(g.value_info()) + ",\n";
  body += ")\n";
  std::vector<std::string> opsets;
  for (const auto& imp : model.opset_import())
    opsets.push_back("helper.make_opsetid(" + pyString(imp.domain()) + ", " + std::to_string(imp.version()) + ")");
  body += "model = helper.make_model(graph, opset_imports=" + pyList(opsets) +
          ", ir_version=" + std::to_string(model.ir_version()) +
          (model.producer_name().empty() ? "" : ", producer_name=" + pyString(model.producer_name())) + ")\n";
  body += "onnx.checker.check_model(model, full_check=True)\n";

  // The runtime inputs: graph inputs that are not initializers, in order.
  std::set<std::string> initNames;
  for (const auto& init : g.initializer()) initNames.insert(init.name());
  std::vector<std::string> feeds;
  size_t k = 0;
  for (const auto& in : g.input()) {
    if (initNames.count(in.name()) || k >= inputs.size()) continue;
    const PyArray t = pyArray(inputs[k], o, o.inputsDir + "/input_" + std::to_string(k) + ".pb", usesRng);
    feeds.push_back("    " + pyString(in.name()) + ": " + t.expr + "," + t.endOfLine());
    ++k;
  }
  if (!feeds.empty()) {
    body += "\nfeeds = {\n";
    for (const auto& f : feeds) body += f + "\n";
    body += "}\n";
  }

  std::string head = "import numpy as np\nimport onnx\nfrom onnx import TensorProto, helper, numpy_helper\n\n";
  if (usesRng) head += "rng = np.random.default_rng(0)  # large tensors are drawn, not written out\n";
  head += "initializers = [\n";
  for (const auto& i : inits) head += i + "\n";
  head += "]\n";
  return head + body;
}

}  // namespace nnfuzz
