// graph_drawing.cpp - model drawings through Graphviz (see graph_drawing.h).
#include "report/graph_drawing.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "onnx/tensor_proto.h"

namespace nnfuzz::report {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxAttributeChars = 40;  ///< longer values are cut: a drawing is no dump

std::string dotString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string typeText(const onnx::TypeProto& type) {
  const auto& tt = type.tensor_type();
  std::string s = onnxTypeName(tt.elem_type());
  if (!tt.has_shape()) return s;
  s += "[";
  for (int d = 0; d < tt.shape().dim_size(); ++d) {
    const auto& dim = tt.shape().dim(d);
    s += (d ? "," : "") + (dim.has_dim_value() ? std::to_string(dim.dim_value()) : dim.dim_param());
  }
  return s + "]";
}

std::string attributeText(const onnx::AttributeProto& a) {
  using A = onnx::AttributeProto;
  std::string v;
  auto list = [&](const auto& items, auto format) {
    v = "[";
    for (int k = 0; k < items.size(); ++k) v += (k ? "," : "") + format(items.Get(k));
    v += "]";
  };
  switch (a.type()) {
    case A::INT: v = std::to_string(a.i()); break;
    case A::FLOAT: v = formatValue(a.f()); break;
    case A::STRING: v = a.s(); break;
    case A::INTS: list(a.ints(), [](int64_t i) { return std::to_string(i); }); break;
    case A::FLOATS: list(a.floats(), [](float f) { return formatValue(f); }); break;
    case A::TENSOR: v = "tensor"; break;
    default: v = "...";
  }
  if (v.size() > kMaxAttributeChars) v = v.substr(0, kMaxAttributeChars - 3) + "...";
  return a.name() + "=" + v;
}

bool runs(const std::string& command) {
  const int status = std::system((command + " >/dev/null 2>&1").c_str());
  return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

std::string modelDot(const onnx::ModelProto& model) {
  const auto& g = model.graph();
  std::string dot =
      "digraph model {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
      "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n";
  std::map<std::string, std::string> producer;  // value name -> DOT node id
  std::set<std::string> initializers;
  for (int k = 0; k < g.initializer_size(); ++k) {
    const auto& init = g.initializer(k);
    initializers.insert(init.name());
    std::string dims;
    for (int d = 0; d < init.dims_size(); ++d) dims += (d ? "," : "") + std::to_string(init.dims(d));
    const std::string id = "w" + std::to_string(k);
    producer[init.name()] = id;
    dot += "  " + id + " [shape=note, style=filled, fillcolor=\"#f4f1e8\", label=" +
           dotString(init.name() + "\n" + onnxTypeName(init.data_type()) + "[" + dims + "]") + "];\n";
  }
  for (int k = 0; k < g.input_size(); ++k) {
    const auto& in = g.input(k);
    if (initializers.count(in.name())) continue;
    const std::string id = "i" + std::to_string(k);
    producer[in.name()] = id;
    dot += "  " + id + " [shape=ellipse, style=filled, fillcolor=\"#e3eefa\", label=" +
           dotString(in.name() + "\n" + typeText(in.type())) + "];\n";
  }
  for (int n = 0; n < g.node_size(); ++n) {
    const auto& node = g.node(n);
    std::string label = node.op_type();
    for (const auto& a : node.attribute()) label += "\n" + attributeText(a);
    const std::string id = "n" + std::to_string(n);
    dot += "  " + id + " [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", label=" + dotString(label) + "];\n";
    for (int k = 0; k < node.input_size(); ++k) {
      const auto it = producer.find(node.input(k));
      if (it == producer.end()) continue;  // an omitted optional operand ("")
      dot += "  " + it->second + " -> " + id + (node.input_size() > 1 ? " [label=" + dotString(std::to_string(k)) + "]" : "") + ";\n";
    }
    for (const auto& out : node.output()) producer[out] = id;
  }
  for (int k = 0; k < g.output_size(); ++k) {
    const auto& out = g.output(k);
    const std::string id = "o" + std::to_string(k);
    dot += "  " + id + " [shape=ellipse, style=filled, fillcolor=\"#e6f4e6\", label=" +
           dotString(out.name() + "\n" + typeText(out.type())) + "];\n";
    const auto it = producer.find(out.name());
    if (it != producer.end()) dot += "  " + it->second + " -> " + id + ";\n";
  }
  return dot + "}\n";
}

bool graphvizAvailable() { return runs("dot -V"); }

std::optional<std::string> layoutSvg(const std::string& dot) {
  static std::atomic<unsigned> counter{0};
  const fs::path file =
      fs::temp_directory_path() / ("nnfuzz-drawing-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".dot");
  try {
    writeFileBytes(file, dot);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // `timeout`: a layout that never ends must not stall the report.
  FILE* pipe = popen(("timeout 60 dot -Tsvg '" + file.string() + "' 2>/dev/null").c_str(), "r");
  std::string svg;
  if (pipe) {
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) svg.append(buf, n);
  }
  const int status = pipe ? pclose(pipe) : -1;
  std::error_code ec;
  fs::remove(file, ec);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  const size_t start = svg.find("<svg");
  if (start == std::string::npos) return std::nullopt;
  return svg.substr(start);  // without the XML prolog and DOCTYPE, which HTML does not want
}

}  // namespace nnfuzz::report
