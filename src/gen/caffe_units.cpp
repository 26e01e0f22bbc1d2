// caffe_units.cpp - see caffe_units.h. One emitter per unit; each appends its run through
// the EvalBuilder (evaluated, rolled back on failure), with parameters drawn so that the
// values stay in the layer's domain (Power's and Log's base positive, Exp's exponent small).
#include "gen/caffe_units.h"

#include <algorithm>
#include <cmath>

#include "caffe/export.h"
#include "gen/caffe_filter.h"
#include "interp/values.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

struct Ctx {
  EvalBuilder& b;
  const GenConfig& config;
  Rng& rng;
};

/// An existing float value of rank in [lo, hi] (not a weight), or a fresh runtime input.
ValueId blob(Ctx& c, int lo, int hi, const std::function<bool(const TensorType&)>& also = nullptr) {
  hi = std::min(hi, c.config.limits.maxRank);
  if (lo > hi) return kNoValue;
  const auto accepts = [&](const TensorType& t) {
    return t.dtype == DType::Float32 && t.rank() >= lo && t.rank() <= hi && (!also || also(t));
  };
  const ValueId v = c.b.pool().pickExisting(accepts, [](DType) { return ValueRange{-1e6, 1e6, 0}; });
  if (v != kNoValue) return c.b.graph().value(v).kind == ValueKind::Weight ? kNoValue : v;
  if (also) return kNoValue;
  Shape shape(static_cast<size_t>(c.rng.uniformInt(lo, hi)));
  for (int64_t& d : shape) d = c.rng.uniformInt(c.config.limits.minDim, c.config.limits.maxDim);
  const TensorType type{DType::Float32, shape};
  return c.b.input(sampleTensor(type, defaultRange(type.dtype), c.rng));
}

ValueId scalar(Ctx& c, double v) {
  return c.b.weight(Tensor(TensorType{DType::Float32, {1}}, {static_cast<double>(static_cast<float>(v))}));
}

/// The single result of an appended node, or kNoValue.
ValueId append(Ctx& c, std::string_view op, std::vector<ValueId> inputs, Attributes attrs = {}) {
  for (ValueId v : inputs)
    if (v == kNoValue) return kNoValue;
  const auto out = c.b.append(op, std::move(inputs), std::move(attrs));
  return out ? out->front() : kNoValue;
}

double signedUniform(Rng& rng, double lo, double hi) { return (rng.bernoulli(0.5) ? 1 : -1) * rng.uniformReal(lo, hi); }

/// Mul(x, scale) -> Add(shift) with shift chosen so that scale x + shift >= 0.5 everywhere.
ValueId positiveAffine(Ctx& c, ValueId x) {
  if (x == kNoValue) return kNoValue;
  const double s = signedUniform(c.rng, 0.5, 2.0);
  double lowest = 1e300;
  for (double v : c.b.pool().data(x).data) lowest = std::min(lowest, s * v);
  const ValueId scaled = append(c, "Mul", {x, scalar(c, s)});
  return append(c, "Add", {scaled, scalar(c, 0.5 - lowest + c.rng.uniformReal(0, 1))});
}

/// A base for Exp and Log: not near 1, so ln(base) stays away from 0.
double drawBase(Rng& rng) {
  const double b = rng.uniformReal(1.25, 8.0);
  return rng.bernoulli(0.3) ? 1.0 / b : b;
}

ValueId powerRun(Ctx& c) {
  const ValueId base = positiveAffine(c, blob(c, 2, 4));
  return append(c, "Pow", {base, scalar(c, std::round(c.rng.uniformReal(-2, 3) * 4) / 4)});
}

ValueId expRun(Ctx& c) {
  const ValueId x = blob(c, 2, 4);
  const ValueId scaled = append(c, "Mul", {x, scalar(c, signedUniform(c.rng, 0.2, 1.5))});
  const ValueId shifted = append(c, "Add", {scaled, scalar(c, c.rng.uniformReal(-1, 1))});
  return append(c, "Exp", {append(c, "Mul", {shifted, scalar(c, std::log(drawBase(c.rng)))})});
}

ValueId logRun(Ctx& c) {
  const ValueId logged = append(c, "Log", {positiveAffine(c, blob(c, 2, 4))});
  return append(c, "Mul", {logged, scalar(c, 1.0 / std::log(drawBase(c.rng)))});
}

ValueId reduction(Ctx& c) {
  static constexpr std::string_view kOps[] = {"ReduceSum", "ReduceMean", "ReduceL1", "ReduceSumSquare"};
  const ValueId x = blob(c, 2, 4);
  if (x == kNoValue) return kNoValue;
  const int rank = c.b.typeOf(x).rank();
  const int64_t axis = c.rng.uniformInt(1, rank - 1);
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
  const std::string_view op = c.rng.pick(std::span<const std::string_view>(kOps));
  Attributes attrs;
  attrs.setInt("keepdims", 0);
  std::vector<ValueId> inputs{x};
  if (op == "ReduceSum") inputs.push_back(c.b.weight(int64Tensor(axes)));  // an input since opset 13
  else attrs.setInts("axes", axes);
  const ValueId reduced = append(c, op, inputs, attrs);
  return append(c, "Mul", {reduced, scalar(c, signedUniform(c.rng, 0.25, 2.0))});
}

ValueId argMax(Ctx& c) {
  const ValueId x = blob(c, 2, 4);
  if (x == kNoValue) return kNoValue;
  const int rank = c.b.typeOf(x).rank();
  Attributes attrs;
  attrs.setInt("axis", c.rng.uniformInt(-rank, rank - 1));
  attrs.setInt("keepdims", 1);
  Attributes cast;
  cast.setInt("to", 1);  // FLOAT: Caffe writes the index as a float
  return append(c, "Cast", {append(c, "ArgMax", {x}, attrs)}, cast);
}

ValueId crop(Ctx& c) {
  const ValueId x = blob(c, 2, 4);
  if (x == kNoValue) return kNoValue;
  const Shape in = c.b.typeOf(x).shape;
  // The second bottom: an existing value of x's rank, no larger than x from some axis on.
  const auto smaller = [&](const TensorType& t) {
    if (t.shape.size() != in.size()) return false;
    bool strict = false;
    for (size_t i = in.size(); i-- > 0;) {
      if (t.shape[i] > in[i]) return strict;
      strict = strict || t.shape[i] < in[i];
    }
    return strict;
  };
  const ValueId ref = blob(c, static_cast<int>(in.size()), static_cast<int>(in.size()), smaller);
  if (ref == kNoValue) return kNoValue;
  const Shape& size = c.b.typeOf(ref).shape;
  int axis = static_cast<int>(in.size()) - 1;  // the lowest axis the crop may start at
  while (axis > 0 && size[static_cast<size_t>(axis - 1)] <= in[static_cast<size_t>(axis - 1)]) --axis;
  int last = static_cast<int>(in.size()) - 1;  // the last axis it shrinks
  while (size[static_cast<size_t>(last)] == in[static_cast<size_t>(last)]) --last;
  axis = static_cast<int>(c.rng.uniformInt(axis, last));
  std::vector<int64_t> starts, ends, axes;
  for (size_t i = static_cast<size_t>(axis); i < in.size(); ++i) {
    const int64_t offset = c.rng.uniformInt(0, in[i] - size[i]);
    starts.push_back(offset);
    ends.push_back(offset + size[i]);
    axes.push_back(static_cast<int64_t>(i));
  }
  return append(c, "Slice", {x, c.b.weight(int64Tensor(starts)), c.b.weight(int64Tensor(ends)), c.b.weight(int64Tensor(axes))});
}

ValueId bias(Ctx& c) {
  const ValueId x = blob(c, 2, 4);
  if (x == kNoValue) return kNoValue;
  const Shape& s = c.b.typeOf(x).shape;
  const int rank = static_cast<int>(s.size());
  const auto axis = static_cast<size_t>(c.rng.uniformInt(1, rank - 1));
  if (s[axis] == 1) return kNoValue;  // a leading 1 would read as a Scale's bias
  const auto axes = static_cast<size_t>(c.rng.uniformInt(1, rank - static_cast<int64_t>(axis)));
  Shape w(s.begin() + static_cast<std::ptrdiff_t>(axis), s.begin() + static_cast<std::ptrdiff_t>(axis + axes));
  w.resize(s.size() - axis, 1);
  const TensorType type{DType::Float32, w};
  return append(c, "Add", {x, c.b.weight(sampleTensor(type, defaultRange(type.dtype), c.rng))});
}

ValueId lrnWithinChannel(Ctx& c) {
  const ValueId x = blob(c, 4, 4);
  const int64_t size = 2 * c.rng.uniformInt(0, 2) + 1, pad = (size - 1) / 2;
  Attributes pool;
  pool.setInts("kernel_shape", {size, size});
  pool.setInts("pads", {pad, pad, pad, pad});
  pool.setInts("strides", {1, 1});
  pool.setInt("count_include_pad", 1);
  const ValueId average = append(c, "AveragePool", {append(c, "Mul", {x, x})}, pool);
  const ValueId scaled = append(c, "Mul", {average, scalar(c, c.rng.uniformReal(0.001, 2.0))});
  const ValueId shifted = append(c, "Add", {scaled, scalar(c, 1.0)});
  return append(c, "Mul", {x, append(c, "Pow", {shifted, scalar(c, -c.rng.uniformReal(0.5, 1.5))})});
}

/// Caffe's pooled size (pooling_layer.cpp's rule, as map_conv.cpp restates it).
int64_t caffePooled(int64_t in, int64_t kernel, int64_t stride, int64_t pad) {
  int64_t out = (in + 2 * pad - kernel + stride - 1) / stride + 1;
  if (pad > 0 && (out - 1) * stride >= in + pad) --out;
  return out;
}

ValueId pooling(Ctx& c) {
  const ValueId x = blob(c, 4, 4);
  if (x == kNoValue) return kNoValue;
  const Shape& s = c.b.typeOf(x).shape;
  std::vector<int64_t> kernel(2), strides(2), pads(4);
  bool ceil = false;
  for (size_t i = 0; i < 2; ++i) {
    kernel[i] = c.rng.uniformInt(1, std::min<int64_t>(4, s[2 + i] + 2));
    strides[i] = c.rng.uniformInt(1, 3);
    pads[i] = pads[i + 2] = c.rng.bernoulli(0.6) ? c.rng.uniformInt(0, kernel[i] - 1) : 0;
    if (s[2 + i] + 2 * pads[i] < kernel[i]) return kNoValue;
    // Caffe rounds up; ONNX's ceil_mode does too, and its floor mode is Caffe's size
    // where Caffe clips a last window that would start in the padding.
    const int64_t floorSize = (s[2 + i] + 2 * pads[i] - kernel[i]) / strides[i] + 1;
    ceil = ceil || caffePooled(s[2 + i], kernel[i], strides[i], pads[i]) != floorSize;
  }
  const bool max = c.rng.bernoulli(0.5);
  Attributes attrs;
  attrs.setInts("kernel_shape", kernel);
  attrs.setInts("strides", strides);
  attrs.setInts("pads", pads);
  attrs.setInt("ceil_mode", ceil ? 1 : 0);
  if (!max) attrs.setInt("count_include_pad", 1);  // Caffe's AVE counts the padding
  return append(c, max ? "MaxPool" : "AveragePool", {x}, attrs);
}

struct Unit {
  std::string_view name, layer;
  ValueId (*emit)(Ctx&);
};

constexpr Unit kUnits[] = {
    {"Power", "Power", powerRun},         {"Exp", "Exp", expRun},       {"Log", "Log", logRun},
    {"Reduction", "Reduction", reduction}, {"ArgMax", "ArgMax", argMax}, {"Crop", "Crop", crop},
    {"Bias", "Bias", bias},              {"LRNWithinChannel", "LRN", lrnWithinChannel},
    {"Pooling", "Pooling", pooling},
};

const Unit* findUnit(std::string_view name) {
  for (const Unit& u : kUnits)
    if (u.name == name) return &u;
  return nullptr;
}

/// The exporter writes the graph's last node as one layer of `layer`'s type (with the
/// unused results as graph outputs, as the finished model will have them).
bool exportsAs(const Graph& g, std::string_view unit, std::string_view layer) {
  Graph finished = g;
  std::vector<ValueId> outputs;
  for (NodeId id : finished.nodes())
    for (ValueId v : finished.node(id).outputs)
      if (finished.value(v).uses.empty()) outputs.push_back(v);
  dropOptionalOutputs(finished, outputs);
  finished.setOutputs(outputs);
  try {
    const CaffeModel model = exportCaffe(finished);
    const auto& written = model.weights.layer(model.weights.layer_size() - 1);
    if (written.type() != layer) return false;
    return unit != "LRNWithinChannel" || written.lrn_param().norm_region() == nnfuzz::caffe::LRNParameter::WITHIN_CHANNEL;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

std::span<const std::string_view> caffeUnitNames() {
  static const auto names = [] {
    std::vector<std::string_view> v;
    for (const Unit& u : kUnits) v.push_back(u.name);
    return v;
  }();
  return names;
}

std::string_view caffeUnitLayer(std::string_view unit) {
  const Unit* u = findUnit(unit);
  return u ? u->layer : std::string_view();
}

bool emitCaffeUnit(std::string_view name, EvalBuilder& builder, const GenConfig& config, Rng& rng) {
  const Unit* unit = findUnit(name);
  if (!unit) throw Error("unknown Caffe unit '" + std::string(name) + "'");
  const size_t mark = builder.mark();
  const size_t inputs = builder.graph().inputs().size();
  Ctx c{builder, config, rng};
  if (unit->emit(c) == kNoValue || !exportsAs(builder.graph(), unit->name, unit->layer)) {
    builder.rollback(mark);
    // A fresh input the run made is left unread (the finished model drops it): never reuse it.
    const auto now = builder.graph().inputs();
    for (size_t k = inputs; k < now.size(); ++k) builder.pool().withhold(now[k]);
    return false;
  }
  // Interior results stay inside the run: a later reader would split it.
  const auto& appended = builder.appended();
  for (size_t k = mark; k + 1 < appended.size(); ++k)
    for (ValueId v : builder.graph().node(appended[k]).outputs) builder.pool().withhold(v);
  return true;
}

}  // namespace nnfuzz
