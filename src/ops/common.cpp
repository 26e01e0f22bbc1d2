#include "ops/common.h"

#include <algorithm>

namespace nnfuzz {

ValueRange defaultRange(DType dtype) {
  switch (dtype) {
    case DType::Float32:
    case DType::Float64: return {-2.0, 2.0, 0.0};
    case DType::Int32:
    case DType::Int64:
    case DType::Int8: return {-5.0, 5.0, 0.0};
    case DType::UInt8: return {0.0, 10.0, 0.0};
    case DType::Bool: return {0.0, 1.0, 0.0};
  }
  return {};
}

InputPattern InputPattern::exactly(TensorType type, ValueRange range) {
  InputPattern p;
  p.accepts = [type](const TensorType& t) { return t == type; };
  p.sample = [type](Rng&) { return type; };
  p.range = range;
  return p;
}

namespace opsupport {

std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t broadcastOffset(const Shape& from, const Shape& to, const std::vector<int64_t>& index) {
  int64_t offset = 0, stride = 1;
  const size_t lead = to.size() - from.size();
  for (size_t i = from.size(); i-- > 0;) {
    if (from[i] != 1) offset += index[i + lead] * stride;
    stride *= from[i];
  }
  return offset;
}

BroadcastWalk::BroadcastWalk(const Shape& to, std::span<const Shape* const> from)
    : to_(to), index_(to.size(), 0), offsets_(from.size(), 0), strides_(from.size() * to.size(), 0) {
  for (size_t k = 0; k < from.size(); ++k) {
    const Shape& f = *from[k];
    const size_t lead = to.size() - f.size();
    int64_t stride = 1;
    for (size_t i = f.size(); i-- > 0;) {
      if (f[i] != 1) strides_[k * to.size() + i + lead] = stride;
      stride *= f[i];
    }
  }
}

bool BroadcastWalk::carry() {
  const size_t rank = to_.size();
  index_[rank - 1] = 0;
  for (size_t k = 0; k < offsets_.size(); ++k) offsets_[k] -= strides_[k * rank + rank - 1] * (to_[rank - 1] - 1);
  for (size_t i = rank - 1; i-- > 0;) {
    if (++index_[i] < to_[i]) {
      for (size_t k = 0; k < offsets_.size(); ++k) offsets_[k] += strides_[k * rank + i];
      return true;
    }
    index_[i] = 0;
    for (size_t k = 0; k < offsets_.size(); ++k) offsets_[k] -= strides_[k * rank + i] * (to_[i] - 1);
  }
  return false;
}

std::optional<int> normalizeAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

Shape sampleShape(Rng& rng, const Limits& limits, int rank) {
  Shape s(static_cast<size_t>(rank));
  for (auto& d : s) d = rng.uniformInt(limits.minDim, limits.maxDim);
  return s;
}

DType sampleDType(Rng& rng, const Limits& limits, const std::vector<DType>& allowed) {
  std::vector<DType> usable;
  std::vector<double> weights;
  for (size_t i = 0; i < limits.dtypes.size(); ++i) {
    if (!contains(allowed, limits.dtypes[i])) continue;
    const double w = i < limits.dtypeWeights.size() ? limits.dtypeWeights[i] : 1.0;
    if (w <= 0) continue;
    usable.push_back(limits.dtypes[i]);
    weights.push_back(w);
  }
  if (usable.empty()) return allowed.front();
  return usable[rng.weighted(weights)];
}

Shape sampleBroadcastableTo(Rng& rng, const Shape& shape) {
  const auto rank = static_cast<int64_t>(shape.size());
  const int64_t drop = rng.bernoulli(0.3) ? rng.uniformInt(0, rank) : 0;
  Shape out(shape.begin() + drop, shape.end());
  for (auto& d : out)
    if (rng.bernoulli(0.2)) d = 1;
  return out;
}

InputPattern broadcastPattern(const TensorType& with, const Limits& limits, ValueRange range) {
  InputPattern p;
  const int maxRank = limits.maxRank;
  p.accepts = [with, maxRank](const TensorType& t) {
    return t.dtype == with.dtype && t.rank() <= maxRank && broadcastShapes(with.shape, t.shape).has_value();
  };
  p.sample = [with, limits](Rng& rng) {
    TensorType t{with.dtype, sampleBroadcastableTo(rng, with.shape)};
    // Sometimes grow the result: a 1 in `with` may meet a larger dim here.
    for (size_t i = 0; i < t.shape.size(); ++i) {
      const size_t j = i + (with.shape.size() - t.shape.size());
      if (with.shape[j] == 1 && rng.bernoulli(0.3)) t.shape[i] = rng.uniformInt(limits.minDim, limits.maxDim);
    }
    return t;
  };
  p.range = range;
  return p;
}

InferResult inferBroadcast(const InferArgs& args, std::optional<DType> outDType) {
  const DType dtype = args.inputs[0]->dtype;
  Shape shape = args.inputs[0]->shape;
  for (size_t k = 1; k < args.inputs.size(); ++k) {
    if (!args.inputs[k]) return InferResult::fail("input " + std::to_string(k) + " is missing");
    if (args.inputs[k]->dtype != dtype) return InferResult::fail("inputs differ in dtype");
    auto b = broadcastShapes(shape, args.inputs[k]->shape);
    if (!b) return InferResult::fail("shapes do not broadcast");
    shape = *b;
  }
  return {{TensorType{outDType.value_or(dtype), shape}}, {}};
}

InferResult inferSameAsFirst(const InferArgs& args) { return {{*args.inputs[0]}, {}}; }

OpSpec unarySpec(std::string_view name, int sinceVersion, std::vector<DType> dtypes, void (*reference)(KernelArgs&)) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = sinceVersion;
  s.dtypes = std::move(dtypes);
  s.infer = inferSameAsFirst;
  s.reference = reference;
  return s;
}

}  // namespace opsupport
}  // namespace nnfuzz
