// model_guard.cpp - size and consistency checks on an untrusted ModelProto (model_guard.h).
#include "onnx/model_guard.h"

#include <set>

namespace nnfuzz {

namespace {

using Problem = std::optional<std::string>;

std::string tensorLabel(const onnx::TensorProto& t) {
  return t.name().empty() ? std::string("a tensor") : "tensor '" + t.name() + "'";
}

// Element count of `dims`, or -1 when a dim is negative, or limit + 1 once it exceeds limit
// (never overflows).
int64_t boundedCount(const auto& dims, int64_t limit) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return -1;
    if (d == 0) return 0;
  }
  for (int64_t d : dims) {
    if (n > limit / d) return limit + 1;
    n *= d;
  }
  return n;
}

// Bits per element of an ONNX element type, 0 for strings and unknown types.
int bitsPerElement(int type) {
  switch (type) {
    case onnx::TensorProto::FLOAT: case onnx::TensorProto::INT32: case onnx::TensorProto::UINT32: return 32;
    case onnx::TensorProto::UINT8: case onnx::TensorProto::INT8: case onnx::TensorProto::BOOL: return 8;
    case onnx::TensorProto::UINT16: case onnx::TensorProto::INT16: case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16: return 16;
    case onnx::TensorProto::INT64: case onnx::TensorProto::UINT64: case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::COMPLEX64: return 64;
    case onnx::TensorProto::COMPLEX128: return 128;
    case 17: case 18: case 19: case 20: return 8;  // the float8 types (ONNX 1.14+)
    case 21: case 22: case 23: return 4;           // uint4, int4, float4e2m1 (packed two a byte)
    default: return 0;
  }
}

// How many entries of the typed field that holds `type` a tensor of n elements needs.
int64_t typedCount(int type, int64_t n) {
  if (type == onnx::TensorProto::COMPLEX64 || type == onnx::TensorProto::COMPLEX128) return 2 * n;
  if (bitsPerElement(type) == 4) return (n + 1) / 2;
  return n;
}

// Entries in whichever typed field the tensor uses.
int64_t typedEntries(const onnx::TensorProto& t) {
  return int64_t{t.float_data_size()} + t.int32_data_size() + t.string_data_size() + t.int64_data_size() +
         t.double_data_size() + t.uint64_data_size();
}

const std::set<std::string> kWindowAttributes = {
    "kernel_shape", "pads", "strides", "dilations", "output_padding", "output_shape", "size",
    "blocksize", "pooled_shape", "sampling_ratio", "window_length", "dft_length", "frame_length"};

struct Walker {
  const ModelBudget& budget;
  int64_t nodes = 0;
  int64_t stored = 0;

  Problem tensor(const onnx::TensorProto& t, const std::string& where) {
    const std::string what = where + tensorLabel(t);
    if (!onnx::TensorProto::DataType_IsValid(t.data_type()) || t.data_type() == onnx::TensorProto::UNDEFINED)
      return what + " has an invalid element type " + std::to_string(t.data_type());
    const int64_t n = boundedCount(t.dims(), budget.maxTensorElements);
    if (n < 0) return what + " has a negative dimension";
    if (n > budget.maxTensorElements)
      return what + " has more than " + std::to_string(budget.maxTensorElements) + " elements";
    stored += n;
    if (stored > budget.maxStoredElements)
      return "the model stores more than " + std::to_string(budget.maxStoredElements) + " tensor elements";
    if (t.data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;  // sizes are the reader's task
    const int type = t.data_type();
    if (t.has_raw_data()) {
      if (type == onnx::TensorProto::STRING) return what + " is a string tensor with raw data";
      if (typedEntries(t) > 0) return what + " has both raw data and typed data";
      const int64_t bits = bitsPerElement(type);
      const int64_t need = (n * bits + 7) / 8;
      if (static_cast<int64_t>(t.raw_data().size()) != need)
        return what + " has " + std::to_string(t.raw_data().size()) + " bytes of raw data, its " +
               std::to_string(n) + " elements need " + std::to_string(need);
      return std::nullopt;
    }
    const int64_t have = typedEntries(t), need = typedCount(type, n);
    if (have != need)
      return what + " has " + std::to_string(have) + " stored values, its " + std::to_string(n) +
             " elements need " + std::to_string(need);
    return std::nullopt;
  }

  Problem valueInfo(const onnx::ValueInfoProto& v, const std::string& where) {
    if (!v.has_type() || !v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return std::nullopt;
    std::vector<int64_t> dims;
    for (const auto& d : v.type().tensor_type().shape().dim())
      if (d.has_dim_value()) dims.push_back(d.dim_value());
    const int64_t n = boundedCount(dims, budget.maxTensorElements);
    const std::string what = where + "'" + v.name() + "'";
    if (n < 0) return what + " has a negative dimension";
    if (n > budget.maxTensorElements)
      return what + " is declared with more than " + std::to_string(budget.maxTensorElements) + " elements";
    return std::nullopt;
  }

  Problem attribute(const onnx::AttributeProto& a, const std::string& where, int nesting) {
    const std::string what = where + " attribute '" + a.name() + "'";
    const int64_t lists = int64_t{a.ints_size()} + a.floats_size() + a.strings_size() + a.tensors_size() +
                          a.graphs_size() + a.sparse_tensors_size();
    if (lists > budget.maxListLength)
      return what + " lists more than " + std::to_string(budget.maxListLength) + " values";
    if (kWindowAttributes.count(a.name())) {
      auto tooBig = [&](int64_t v) { return v > budget.maxWindowInt || v < -budget.maxWindowInt; };
      if (a.has_i() && tooBig(a.i())) return what + " is " + std::to_string(a.i()) + ", beyond any window";
      for (int64_t v : a.ints())
        if (tooBig(v)) return what + " holds " + std::to_string(v) + ", beyond any window";
    }
    if (a.has_t())
      if (auto p = tensor(a.t(), what + ": ")) return p;
    for (const auto& t : a.tensors())
      if (auto p = tensor(t, what + ": ")) return p;
    if (a.has_sparse_tensor()) {
      if (auto p = tensor(a.sparse_tensor().values(), what + " values: ")) return p;
      if (auto p = tensor(a.sparse_tensor().indices(), what + " indices: ")) return p;
    }
    if (a.has_g())
      if (auto p = graph(a.g(), nesting + 1)) return p;
    for (const auto& g : a.graphs())
      if (auto p = graph(g, nesting + 1)) return p;
    return std::nullopt;
  }

  Problem graph(const onnx::GraphProto& g, int nesting) {
    if (nesting > budget.maxGraphNesting)
      return "subgraphs nest deeper than " + std::to_string(budget.maxGraphNesting) + " levels";
    const std::string prefix = nesting ? "subgraph '" + g.name() + "': " : "";
    nodes += g.node_size();
    if (nodes > budget.maxNodes) return "the model has more than " + std::to_string(budget.maxNodes) + " nodes";
    for (const auto& t : g.initializer())
      if (auto p = tensor(t, prefix + "initializer: ")) return p;
    for (const auto& s : g.sparse_initializer()) {
      if (auto p = tensor(s.values(), prefix + "sparse initializer values: ")) return p;
      if (auto p = tensor(s.indices(), prefix + "sparse initializer indices: ")) return p;
    }
    for (const auto& v : g.input())
      if (auto p = valueInfo(v, prefix + "graph input ")) return p;
    for (const auto& v : g.output())
      if (auto p = valueInfo(v, prefix + "graph output ")) return p;
    for (const auto& v : g.value_info())
      if (auto p = valueInfo(v, prefix + "value ")) return p;
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& node = g.node(i);
      const std::string where = prefix + "node " + std::to_string(i) + " (" + node.op_type() + ")";
      for (const auto& a : node.attribute())
        if (auto p = attribute(a, where, nesting)) return p;
    }
    return std::nullopt;
  }
};

}  // namespace

std::optional<std::string> guardModel(const onnx::ModelProto& model, const ModelBudget& budget) {
  Walker walker{budget};
  if (auto p = walker.graph(model.graph(), 0)) return p;
  for (const auto& f : model.functions()) {
    walker.nodes += f.node_size();
    if (walker.nodes > budget.maxNodes)
      return "the model has more than " + std::to_string(budget.maxNodes) + " nodes";
    for (int i = 0; i < f.node_size(); ++i)
      for (const auto& a : f.node(i).attribute())
        if (auto p = walker.attribute(a, "function '" + f.name() + "' node " + std::to_string(i), 1)) return p;
  }
  return std::nullopt;
}

std::optional<std::string> guardTensor(const onnx::TensorProto& tensor, const ModelBudget& budget) {
  Walker walker{budget};
  return walker.tensor(tensor, "");
}

}  // namespace nnfuzz
