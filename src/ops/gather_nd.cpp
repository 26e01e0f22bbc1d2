// gather_nd.cpp - GatherND (opset 13) and ScatterND (opset 16; reduction max and min from
// 18): int64 index tuples of length m (the indices' last dim) address slices of the data;
// GatherND reads them, ScatterND writes `updates` there (reduction none, add, mul, max or
// min) into a copy of the data.
//
// GatherND's batch_dims b (default 0) pairs the first b dims of data and indices. Index
// values lie in [-d, d-1] of the dim they address (negative counts from the end). ScatterND
// indices are constants without repeated tuples for reduction none: there the schema
// leaves the result undefined (which update wins). Kernels read an out-of-range index
// (possible only for runtime data that breaks the operand's range) as 0.
#include <algorithm>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

// Row-major offset of the tuple at `tuple` (m values) within dims [from, from + m) of shape.
int64_t tupleOffset(const double* tuple, int64_t m, const Shape& shape, size_t from) {
  int64_t off = 0;
  for (int64_t j = 0; j < m; ++j) {
    const int64_t d = shape[from + static_cast<size_t>(j)];
    off = off * d + shapeops::indexWithin(tuple[j], d);
  }
  return off;
}

// Checks indices (int64, rank >= 1, last dim m in [1, maxM], constant values in range).
std::string checkTuples(const InferArgs& a, const Shape& data, size_t from, int64_t maxM) {
  const TensorType* t = a.inputs[1];
  if (!t) return "indices are missing";
  if (t->dtype != DType::Int64) return "indices must be int64";
  if (t->rank() < 1) return "indices must have rank >= 1";
  const int64_t m = t->shape.back();
  if (m < 1 || m > maxM) return "the indices' last dim is out of range";
  if (const Tensor* c = a.constants[1])
    for (size_t i = 0; i < c->data.size(); ++i) {
      const int64_t d = data[from + i % static_cast<size_t>(m)];
      if (c->data[i] < static_cast<double>(-d) || c->data[i] > static_cast<double>(d - 1)) return "an index is out of range";
    }
  return "";
}

// ---- GatherND ----

void sampleGatherND(OpDraft& d) {
  if (d.first().rank() >= 2 && d.rng->bernoulli(0.25)) d.attrs.setInt("batch_dims", 1);
  else if (d.rng->bernoulli(0.3)) d.attrs.setInt("batch_dims", 0);
}

InputPattern gatherNDIndices(const OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& data = d.first().shape;
  const auto b = static_cast<size_t>(d.attrs.getInt("batch_dims", 0));
  const int r = d.first().rank();
  const int64_t m = rng.uniformInt(1, r - static_cast<int64_t>(b));
  // Result rank q - 1 + r - b - m must stay within maxRank: q - 1 - b middle dims at most.
  const int64_t room = std::max<int64_t>(0, d.limits->maxRank - (r - static_cast<int64_t>(b) - m) - static_cast<int64_t>(b));
  int64_t middle = rng.uniformInt(0, std::min<int64_t>(2, room));
  if (b == 0 && middle == 0 && m == r) middle = 1;  // never a scalar result (see inferGatherND)
  Shape shape(data.begin(), data.begin() + static_cast<ptrdiff_t>(b));
  for (int64_t k = 0; k < middle; ++k) shape.push_back(rng.uniformInt(d.limits->minDim, d.limits->maxDim));
  shape.push_back(m);
  Tensor t(TensorType{DType::Int64, shape});
  int64_t smallest = data[b];
  for (size_t i = 0; i < t.data.size(); ++i) {
    const int64_t dim = data[b + i % static_cast<size_t>(m)];
    smallest = std::min(smallest, dim);
    t.data[i] = static_cast<double>(rng.uniformInt(-dim, dim - 1));
  }
  if (rng.bernoulli(0.6)) return InputPattern::constantTensor(std::move(t));
  for (int64_t j = 0; j < m; ++j) smallest = std::min(smallest, data[b + static_cast<size_t>(j)]);
  return InputPattern::exactly(t.type, ValueRange{static_cast<double>(-smallest), static_cast<double>(smallest - 1), 0.0});
}

InferResult inferGatherND(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"batch_dims"});
  int64_t b = 0;
  if (!err.empty() || !readInt(a.attrs, "batch_dims", 0, INT64_MAX, 0, b, err)) return InferResult::fail(err);
  const TensorType& x = *a.inputs[0];
  if (a.inputs.size() < 2 || !a.inputs[1]) return InferResult::fail("indices are missing");
  const TensorType& idx = *a.inputs[1];
  if (b >= std::min(x.rank(), idx.rank())) return InferResult::fail("batch_dims must be below both ranks");
  const auto bb = static_cast<size_t>(b);
  if (!std::equal(x.shape.begin(), x.shape.begin() + b, idx.shape.begin()))
    return InferResult::fail("batch dims of data and indices differ");
  if (auto e = checkTuples(a, x.shape, bb, x.rank() - b); !e.empty()) return InferResult::fail(e);
  const int64_t m = idx.shape.back();
  Shape out(idx.shape.begin(), idx.shape.end() - 1);
  out.insert(out.end(), x.shape.begin() + b + m, x.shape.end());
  // Valid ONNX, but ONNX 1.12's inference (the checker's) gives it rank 1 of unknown size.
  if (out.empty()) return InferResult::fail("a scalar result is not modelled");
  return {{TensorType{x.dtype, out}}, {}};
}

void gatherNDKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const Tensor& idx = *a.inputs[1];
  const auto b = static_cast<size_t>(a.attrs.getInt("batch_dims", 0));
  const int64_t m = idx.type.shape.back();
  const int64_t batches = product(x.type.shape, 0, b), batchSize = product(x.type.shape, b);
  const int64_t slice = product(x.type.shape, b + static_cast<size_t>(m));
  const int64_t tuplesPerBatch = idx.numel() / m / std::max<int64_t>(1, batches);
  size_t pos = 0;
  for (int64_t n = 0; n < batches; ++n)
    for (int64_t t = 0; t < tuplesPerBatch; ++t) {
      const double* tuple = idx.data.data() + (n * tuplesPerBatch + t) * m;
      const int64_t base = n * batchSize + tupleOffset(tuple, m, x.type.shape, b) * slice;
      for (int64_t i = 0; i < slice; ++i) a.outputs[0].data[pos++] = x.data[static_cast<size_t>(base + i)];
    }
}

// An index outside [-d, d-1] (runtime data the operand's range no longer holds, e.g. after the
// reducer shrank the data) leaves the result undefined: ONNX Runtime refuses it, others read
// anything. Such a case is not one to judge an SUT by.
bool gatherNDUnstable(const KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const Tensor& idx = *a.inputs[1];
  const auto b = static_cast<size_t>(a.attrs.getInt("batch_dims", 0));
  const auto m = static_cast<size_t>(idx.type.shape.back());
  for (size_t i = 0; i < idx.data.size(); ++i) {
    const auto d = static_cast<double>(x.type.shape[b + i % m]);
    if (idx.data[i] < -d || idx.data[i] > d - 1) return true;
  }
  return false;
}

// ---- ScatterND ----

const std::vector<std::string_view> kReductions{"none", "add", "mul", "max", "min"};

void sampleScatterND(OpDraft& d) {
  if (d.first().dtype != DType::Bool && d.rng->bernoulli(0.5))
    d.attrs.setString("reduction", std::string(d.rng->pick(kReductions)));
}

InputPattern scatterNDOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& data = d.first().shape;
  if (d.inputTypes.size() == 1) {
    const int64_t m = rng.uniformInt(1, d.first().rank());
    const int64_t cells = product(data, 0, static_cast<size_t>(m));
    const bool unique = d.attrs.getString("reduction", "none") == "none";
    const int64_t count = rng.uniformInt(1, unique ? std::min<int64_t>(cells, d.limits->maxDim) : d.limits->maxDim);
    std::vector<int64_t> picks = shapeops::randomPermutation(rng, static_cast<int>(std::min<int64_t>(cells, 4096)));
    Tensor t(TensorType{DType::Int64, {count, m}});
    for (int64_t k = 0; k < count; ++k) {
      int64_t flat = unique ? picks[static_cast<size_t>(k)] : rng.uniformInt(0, cells - 1);
      for (int64_t j = m; j-- > 0;) {
        const int64_t dim = data[static_cast<size_t>(j)];
        t.data[static_cast<size_t>(k * m + j)] = static_cast<double>(flat % dim);
        flat /= dim;
      }
    }
    return InputPattern::constantTensor(std::move(t));
  }
  const Shape& idx = d.inputTypes[1].shape;
  Shape updates(idx.begin(), idx.end() - 1);
  updates.insert(updates.end(), data.begin() + idx.back(), data.end());
  return InputPattern::exactly(TensorType{d.first().dtype, updates}, defaultRange(d.first().dtype));
}

InferResult inferScatterND(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {"reduction"}); !err.empty()) return InferResult::fail(err);
  if (a.attrs.hasWrongKind<std::string>("reduction")) return InferResult::fail("reduction must be a string");
  const std::string reduction = a.attrs.getString("reduction", "none");
  if (std::find(kReductions.begin(), kReductions.end(), reduction) == kReductions.end())
    return InferResult::fail("unknown reduction " + reduction);
  const TensorType& x = *a.inputs[0];
  if (auto e = checkTuples(a, x.shape, 0, x.rank()); !e.empty()) return InferResult::fail(e);
  if (a.inputs.size() < 3 || !a.inputs[2]) return InferResult::fail("updates are missing");
  const Shape& idx = a.inputs[1]->shape;
  Shape want(idx.begin(), idx.end() - 1);
  want.insert(want.end(), x.shape.begin() + idx.back(), x.shape.end());
  if (a.inputs[2]->dtype != x.dtype || a.inputs[2]->shape != want) return InferResult::fail("updates have the wrong type");
  if (reduction != "none" && x.dtype == DType::Bool) return InferResult::fail("bool data takes reduction none only");
  if (reduction == "none" && a.constants[1]) {
    // Repeated tuples leave the result undefined (which update lands last).
    const int64_t m = idx.back();
    std::vector<int64_t> cells;
    for (int64_t t = 0; t < a.inputs[1]->numel() / m; ++t)
      cells.push_back(tupleOffset(a.constants[1]->data.data() + t * m, m, x.shape, 0));
    std::sort(cells.begin(), cells.end());
    if (std::adjacent_find(cells.begin(), cells.end()) != cells.end()) return InferResult::fail("repeated indices with reduction none");
  }
  return {{x}, {}};
}

void scatterNDKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const Tensor& idx = *a.inputs[1];
  const Tensor& upd = *a.inputs[2];
  const std::string reduction = a.attrs.getString("reduction", "none");
  a.outputs[0].data = x.data;
  const int64_t m = idx.type.shape.back();
  const int64_t slice = product(x.type.shape, static_cast<size_t>(m));
  for (int64_t t = 0; t < idx.numel() / m; ++t) {
    const int64_t base = tupleOffset(idx.data.data() + t * m, m, x.type.shape, 0) * slice;
    for (int64_t i = 0; i < slice; ++i) {
      double& out = a.outputs[0].data[static_cast<size_t>(base + i)];
      out = combineScatter(reduction, out, upd.data[static_cast<size_t>(t * slice + i)]);
    }
  }
}

}  // namespace

const OpSpec& opGatherND() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "GatherND";
    t.sinceVersion = 13;
    t.minInputs = t.maxInputs = 2;
    t.dtypes = kAllTypes;
    t.minRank = 1;
    t.attrs = {intAttr("batch_dims", 0, 2)};
    t.sampleAttrs = sampleGatherND;
    t.nextInput = gatherNDIndices;
    t.infer = inferGatherND;
    t.reference = gatherNDKernel;
    t.unstable = gatherNDUnstable;
    return t;
  }();
  return s;
}

const OpSpec& opScatterND() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "ScatterND";
    t.sinceVersion = 16;
    t.minInputs = t.maxInputs = 3;
    t.dtypes = kAllTypes;
    t.minRank = 1;
    t.constantInputs = 0b010;
    t.attrs = {stringAttr("reduction", kReductions)};
    t.sampleAttrs = sampleScatterND;
    t.nextInput = scatterNDOperand;
    t.infer = inferScatterND;
    t.reference = scatterNDKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
