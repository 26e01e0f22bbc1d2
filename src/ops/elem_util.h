// elem_util.h - helpers shared by the elementwise families (activation, binary_arith,
// variadic, prelu, compare_logic, clip, cast): broadcast operand patterns that reach every
// broadcast configuration (including operands of higher rank than the first), walking
// broadcast operands in stability checks, and attribute checks/sampling.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "ops/common.h"

namespace nnfuzz::elemutil {

using namespace opsupport;

/// The broadcast shape of all non-omitted operands chosen so far (they are known to
/// broadcast together: the sampler only offered compatible ones).
inline Shape broadcastSoFar(const OpDraft& d) {
  Shape out;
  for (size_t k = 0; k < d.inputTypes.size(); ++k)
    if (k >= d.omitted.size() || !d.omitted[k]) out = broadcastShapes(out, d.inputTypes[k].shape).value_or(out);
  return out;
}

/// True when `from` broadcasts to `to` without changing it (ONNX unidirectional).
inline bool unidirectional(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[i + lead]) return false;
  return true;
}

/// A shape that broadcasts multidirectionally with `with`: dims copied, set to 1, or grown
/// where `with` has a 1; leading dims sometimes dropped or (up to maxRank) added, so every
/// compatible shape within the limits has a chance.
inline Shape sampleBroadcastPartner(Rng& rng, const Shape& with, const Limits& limits) {
  Shape s = sampleBroadcastableTo(rng, with);
  const size_t lead = with.size() - s.size();
  for (size_t i = 0; i < s.size(); ++i)
    if (with[i + lead] == 1 && rng.bernoulli(0.3)) s[i] = rng.uniformInt(limits.minDim, limits.maxDim);
  // Only a full-rank partner may get extra leading dims (else the rank is ambiguous).
  if (s.size() == with.size() && static_cast<int>(s.size()) < limits.maxRank && rng.bernoulli(0.15)) {
    const int64_t extra = rng.uniformInt(1, limits.maxRank - static_cast<int64_t>(s.size()));
    for (int64_t k = 0; k < extra; ++k) s.insert(s.begin(), rng.uniformInt(limits.minDim, limits.maxDim));
  }
  return s;
}

/// Pattern of an operand of exactly `dtype` broadcasting multidirectionally with `with`.
inline InputPattern broadcastOperand(const Shape& with, DType dtype, const Limits& limits, ValueRange range) {
  InputPattern p;
  const int maxRank = limits.maxRank;
  p.accepts = [with, dtype, maxRank](const TensorType& t) {
    return t.dtype == dtype && t.rank() <= maxRank && broadcastShapes(with, t.shape).has_value();
  };
  p.sample = [with, dtype, limits](Rng& rng) { return TensorType{dtype, sampleBroadcastPartner(rng, with, limits)}; };
  p.range = range;
  return p;
}

/// Pattern of an operand of exactly `dtype` broadcasting unidirectionally to `to`.
inline InputPattern unidirectionalOperand(const Shape& to, DType dtype, ValueRange range) {
  InputPattern p;
  p.accepts = [to, dtype](const TensorType& t) { return t.dtype == dtype && unidirectional(t.shape, to); };
  p.sample = [to, dtype](Rng& rng) { return TensorType{dtype, sampleBroadcastableTo(rng, to)}; };
  p.range = range;
  return p;
}

/// True if pred(a, b) holds for some pair of elements of inputs ia and ib that meet in
/// the broadcast result (for stability checks of binary ops).
template <typename Pred>
bool anyBroadcastPair(const KernelArgs& args, size_t ia, size_t ib, Pred pred) {
  const Tensor& a = *args.inputs[ia];
  const Tensor& b = *args.inputs[ib];
  auto shape = broadcastShapes(a.type.shape, b.type.shape);
  if (!shape || a.numel() == 0 || b.numel() == 0) return false;
  if (a.type.shape == b.type.shape) {  // pairs at equal offsets: no walk
    for (size_t i = 0; i < a.data.size(); ++i)
      if (pred(a.data[i], b.data[i])) return true;
    return false;
  }
  const Shape* shapes[] = {&a.type.shape, &b.type.shape};
  BroadcastWalk walk(*shape, shapes);
  do {
    if (pred(a.data[static_cast<size_t>(walk.offset(0))], b.data[static_cast<size_t>(walk.offset(1))])) return true;
  } while (walk.next());
  return false;
}

/// Error when a float attribute has another kind ("" if fine).
inline std::string floatAttrError(const Attributes& attrs, std::string_view name) {
  if (attrs.hasWrongKind<double>(name)) return "attribute " + std::string(name) + " must be a float";
  return {};
}

/// Writes a float attribute: left out (default applies), the default written explicitly,
/// or a value drawn from [lo, hi].
inline void sampleFloatAttr(OpDraft& d, std::string_view name, double fallback, double lo, double hi) {
  const double u = d.rng->uniformReal(0.0, 1.0);
  if (u < 0.25) return;
  d.attrs.setFloat(name, u < 0.4 ? fallback : d.rng->uniformReal(lo, hi));
}

/// Relative closeness of two floats (the threshold of comparison-like instabilities).
inline bool nearlyEqual(double x, double y) {
  return std::abs(x - y) <= kStabilityMargin * std::max({1.0, std::abs(x), std::abs(y)});
}

}  // namespace nnfuzz::elemutil
