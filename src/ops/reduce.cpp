// reduce.cpp - the Reduce family at opset 17: ReduceSum (opset 13 schema: axes as an
// optional constant input, noop_with_empty_axes) and ReduceMean ReduceMax ReduceMin
// ReduceProd ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceSumSquare (opset 13
// schemas (ReduceMax/Min too): axes as an attribute); keepdims; no axes = all axes.
//
// Integer results follow C: ReduceMean truncates the quotient, ReduceL2/LogSum truncate
// the root/log. ReduceProd draws small values and is unstable when an integer product
// overflows its dtype (undefined in C). ReduceLogSumExp is generated for floats only:
// runtimes disagree on its integer rounding.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

enum class Kind { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

const std::vector<DType> kReduceTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64};
const std::vector<DType> kReduceMinMaxTypes{DType::Float32, DType::Float64, DType::Int32,
                                            DType::Int64,   DType::Int8,    DType::UInt8};

// Which dims a node reduces and the result shape.
struct ReducePlan {
  std::vector<bool> reduced;
  bool keepdims = true;
  bool identity = false;  // ReduceSum with noop_with_empty_axes and no axes
  Shape out;
};

bool makePlan(const InferArgs& a, bool axesInput, ReducePlan& p, std::string& err) {
  err = axesInput ? unknownAttr(a.attrs, {"keepdims", "noop_with_empty_axes"}) : unknownAttr(a.attrs, {"axes", "keepdims"});
  if (!err.empty()) return false;
  int64_t keep = 1, noop = 0;
  if (!readInt(a.attrs, "keepdims", 0, 1, 1, keep, err)) return false;
  if (axesInput && !readInt(a.attrs, "noop_with_empty_axes", 0, 1, 0, noop, err)) return false;
  std::vector<int64_t> axes;
  if (axesInput) {
    if (a.inputs.size() > 1 && a.inputs[1]) {
      if (a.inputs[1]->dtype != DType::Int64 || a.inputs[1]->rank() != 1 || !a.constants[1]) {
        err = "axes must be a constant 1-D int64 tensor";
        return false;
      }
      axes = toInt64s(*a.constants[1]);
    }
  } else {
    if (a.attrs.hasWrongKind<std::vector<int64_t>>("axes")) {
      err = "axes must be ints";
      return false;
    }
    axes = a.attrs.getInts("axes");
  }
  const TensorType& x = *a.inputs[0];
  std::vector<int> normalized;
  if (!normalizeAxes(axes, x.rank(), normalized, err)) return false;
  p.keepdims = keep == 1;
  p.identity = axes.empty() && noop == 1;
  p.reduced.assign(static_cast<size_t>(x.rank()), axes.empty() && !p.identity);
  for (int axis : normalized) p.reduced[static_cast<size_t>(axis)] = true;
  p.out.clear();
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (!p.reduced[i])
      p.out.push_back(x.shape[i]);
    else if (p.keepdims)
      p.out.push_back(1);
  }
  return true;
}

template <bool AxesInput>
InferResult inferReduce(const InferArgs& a) {
  ReducePlan p;
  std::string err;
  if (!makePlan(a, AxesInput, p, err)) return InferResult::fail(err);
  return {{TensorType{a.inputs[0]->dtype, p.out}}, {}};
}

void sampleKeepdims(OpDraft& d) {
  if (d.rng->bernoulli(0.6)) d.attrs.setInt("keepdims", d.rng->uniformInt(0, 1));
}

void sampleAxesAttr(OpDraft& d) {
  sampleKeepdims(d);
  const int rank = d.first().rank();
  if (rank > 0 && d.rng->bernoulli(0.8)) d.attrs.setInts("axes", sampleAxes(*d.rng, rank));
}

// ReduceSum: with no axes operand, noop_with_empty_axes decides between all and none.
void sampleReduceSumAttrs(OpDraft& d) {
  sampleKeepdims(d);
  if (d.rng->bernoulli(d.arity == 1 ? 0.6 : 0.2)) d.attrs.setInt("noop_with_empty_axes", d.rng->uniformInt(0, 1));
}

InputPattern nextReduceSumInput(const OpDraft& d) {
  const int rank = d.first().rank();
  if (rank == 0) return InputPattern::omitted();
  return InputPattern::constantTensor(int64Tensor(sampleAxes(*d.rng, rank)));
}

// Reduces input 0 into output 0 as `plan` says.
template <Kind K>
void reduceInto(const Tensor& x, const ReducePlan& plan, Tensor& y) {
  if (plan.identity) {
    y.data = x.data;
    return;
  }
  const Shape& shape = x.type.shape;
  // Stride in the output of each input dim (0 for reduced ones).
  std::vector<int64_t> outStride(shape.size(), 0);
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;)
    if (!plan.reduced[i]) {
      outStride[i] = stride;
      stride *= shape[i];
    }
  const double init = K == Kind::Max ? -std::numeric_limits<double>::infinity()
                      : K == Kind::Min ? std::numeric_limits<double>::infinity()
                      : K == Kind::Prod ? 1.0
                                        : 0.0;
  std::vector<double> acc(y.data.size(), init), shift(y.data.size(), -std::numeric_limits<double>::infinity());
  const int64_t count = x.numel() / static_cast<int64_t>(std::max<size_t>(1, y.data.size()));
  auto walk = [&](auto visit) {
    if (x.numel() == 0) return;  // the empty set: results stay at their initial values
    std::vector<int64_t> index(shape.size(), 0);
    int64_t flat = 0;
    do {
      int64_t o = 0;
      for (size_t i = 0; i < shape.size(); ++i) o += index[i] * outStride[i];
      visit(static_cast<size_t>(o), x.data[static_cast<size_t>(flat++)]);
    } while (nextIndex(index, shape));
  };
  if (K == Kind::LogSumExp) walk([&](size_t o, double v) { shift[o] = std::max(shift[o], v); });
  walk([&](size_t o, double v) {
    double& a = acc[o];
    switch (K) {
      case Kind::Sum:
      case Kind::Mean:
      case Kind::LogSum: a += v; break;
      case Kind::Max: a = std::max(a, v); break;
      case Kind::Min: a = std::min(a, v); break;
      case Kind::Prod: a *= v; break;
      case Kind::L1: a += std::abs(v); break;
      case Kind::L2:
      case Kind::SumSquare: a += v * v; break;
      case Kind::LogSumExp: a += std::exp(v - shift[o]); break;
    }
  });
  for (size_t o = 0; o < acc.size(); ++o) {
    double v = acc[o];
    if (K == Kind::Mean) v /= static_cast<double>(count);
    if (K == Kind::L2) v = std::sqrt(v);
    if (K == Kind::LogSum) v = std::log(v);
    if (K == Kind::LogSumExp) v = std::log(v) + shift[o];
    y.data[o] = v;
  }
}

template <Kind K, bool AxesInput>
void reduceKernel(KernelArgs& a) {
  std::vector<const TensorType*> types;
  for (const Tensor* t : a.inputs) types.push_back(t ? &t->type : nullptr);
  InferArgs args{types, a.inputs, a.attrs};
  ReducePlan p;
  std::string err;
  makePlan(args, AxesInput, p, err);
  reduceInto<K>(*a.inputs[0], p, a.outputs[0]);
}

// An integer product beyond its dtype overflows (undefined behaviour in C).
bool prodUnstable(const KernelArgs& a) {
  const DType dtype = a.inputs[0]->type.dtype;
  if (!isInteger(dtype)) return false;
  std::vector<const TensorType*> types{&a.inputs[0]->type};
  std::vector<const Tensor*> constants{nullptr};
  InferArgs args{types, constants, a.attrs};
  ReducePlan p;
  std::string err;
  if (!makePlan(args, false, p, err)) return false;
  Tensor exact(TensorType{DType::Float64, p.out});
  reduceInto<Kind::Prod>(*a.inputs[0], p, exact);
  const double limit = dtype == DType::Int64 ? 9.2e18 : 2147483647.0;
  return std::any_of(exact.data.begin(), exact.data.end(), [&](double v) { return std::abs(v) > limit; });
}

ValueRange prodRange(DType d) { return isFloat(d) ? ValueRange{-1.5, 1.5, 0.0} : ValueRange{-2.0, 2.0, 0.0}; }
ValueRange positiveRange(DType d) { return isFloat(d) ? ValueRange{0.05, 2.0, 0.0} : ValueRange{1.0, 5.0, 0.0}; }

template <Kind K>
OpSpec reduceSpec(std::string_view name, std::vector<DType> dtypes) {
  OpSpec s;
  s.name = name;
  s.sinceVersion = 13;
  s.dtypes = std::move(dtypes);
  s.minRank = 0;
  s.maxRank = 5;
  s.attrs = {intsAttr("axes", -5, 4, 1, 5), intAttr("keepdims", 0, 1)};
  s.sampleAttrs = sampleAxesAttr;
  s.infer = inferReduce<false>;
  s.reference = reduceKernel<K, false>;
  if (K == Kind::Prod) {
    s.firstRange = prodRange;
    s.unstable = prodUnstable;
  }
  if (K == Kind::LogSum) s.firstRange = positiveRange;
  return s;
}

}  // namespace

const OpSpec& opReduceSum() {
  static const OpSpec s = [] {
    OpSpec s = reduceSpec<Kind::Sum>("ReduceSum", kReduceTypes);
    s.maxInputs = 2;
    s.constantInputs = 0b10;
    s.attrs = {intAttr("keepdims", 0, 1), intAttr("noop_with_empty_axes", 0, 1)};
    s.sampleAttrs = sampleReduceSumAttrs;
    s.nextInput = nextReduceSumInput;
    s.infer = inferReduce<true>;
    s.reference = reduceKernel<Kind::Sum, true>;
    return s;
  }();
  return s;
}
const OpSpec& opReduceMean() {
  static const OpSpec s = reduceSpec<Kind::Mean>("ReduceMean", kReduceTypes);
  return s;
}
const OpSpec& opReduceMax() {
  static const OpSpec s = reduceSpec<Kind::Max>("ReduceMax", kReduceMinMaxTypes);
  return s;
}
const OpSpec& opReduceMin() {
  static const OpSpec s = reduceSpec<Kind::Min>("ReduceMin", kReduceMinMaxTypes);
  return s;
}
const OpSpec& opReduceProd() {
  static const OpSpec s = reduceSpec<Kind::Prod>("ReduceProd", kReduceTypes);
  return s;
}
const OpSpec& opReduceL1() {
  static const OpSpec s = reduceSpec<Kind::L1>("ReduceL1", kReduceTypes);
  return s;
}
const OpSpec& opReduceL2() {
  static const OpSpec s = reduceSpec<Kind::L2>("ReduceL2", kReduceTypes);
  return s;
}
const OpSpec& opReduceLogSum() {
  static const OpSpec s = reduceSpec<Kind::LogSum>("ReduceLogSum", kReduceTypes);
  return s;
}
const OpSpec& opReduceLogSumExp() {
  static const OpSpec s = reduceSpec<Kind::LogSumExp>("ReduceLogSumExp", kFloatTypes);
  return s;
}
const OpSpec& opReduceSumSquare() {
  static const OpSpec s = reduceSpec<Kind::SumSquare>("ReduceSumSquare", kReduceTypes);
  return s;
}

}  // namespace nnfuzz
