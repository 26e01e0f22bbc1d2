#include "corpus/net_builder.h"

#include <cmath>

#include "interp/interpreter.h"
#include "interp/values.h"
#include "ops/infer_node.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

NetBuilder::NetBuilder(std::string name, uint64_t seed)
    : name_(std::move(name)), rng_(seed), pool_(graph_, rng_), builder_(graph_, pool_) {}

ValueId NetBuilder::input(Shape shape) {
  const TensorType type{DType::Float32, std::move(shape)};
  return builder_.input(sampleTensor(type, ValueRange{-1.0, 1.0, 0.0}, rng_));
}

ValueId NetBuilder::randomWeight(Shape shape, double scale) {
  const TensorType type{DType::Float32, std::move(shape)};
  return builder_.weight(sampleTensor(type, ValueRange{-scale, scale, 0.0}, rng_));
}

ValueId NetBuilder::layer(const std::string& op, std::vector<ValueId> inputs, Attributes attrs) {
  // Not EvalBuilder::append: its stability filter calls every ReLU-then-MaxPool window with
  // tied zeros unstable, which real networks are full of; a tie moves no max *value*.
  const OpSpec* spec = findOp(op);
  std::vector<const TensorType*> types;
  std::vector<const Tensor*> constants, data;
  for (ValueId v : inputs) {
    types.push_back(&graph_.value(v).type);
    constants.push_back(graph_.value(v).kind == ValueKind::Weight ? &pool_.data(v) : nullptr);
    data.push_back(&pool_.data(v));
  }
  InferResult inferred = inferNode(*spec, types, constants, attrs);
  if (!inferred.ok()) throw Error(name_ + ": layer " + op + " cannot be built here: " + inferred.error);
  std::vector<Tensor> results = evalOp(*spec, data, attrs, inferred.types);
  for (const Tensor& t : results)
    if (!allFinite(t, kMaxResultMagnitude)) throw Error(name_ + ": layer " + op + " gives huge or non-finite values");
  const NodeId node = builder_.commit(op, std::move(inputs), std::move(attrs), inferred.types, std::move(results));
  return graph_.node(node).outputs.front();
}

ValueId NetBuilder::conv(ValueId x, int64_t outChannels, int64_t kernel, int64_t stride, int64_t pad, int64_t group) {
  const int64_t inPerGroup = shape(x)[1] / group;
  // Uniform(-s, s) with s = sqrt(3 / fan_in) keeps the output's variance near the input's.
  const double scale = std::sqrt(3.0 / static_cast<double>(inPerGroup * kernel * kernel));
  const ValueId w = randomWeight({outChannels, inPerGroup, kernel, kernel}, scale);
  const ValueId b = randomWeight({outChannels}, 0.1);
  Attributes a;
  a.setInts("kernel_shape", {kernel, kernel});
  a.setInts("strides", {stride, stride});
  a.setInts("pads", {pad, pad, pad, pad});
  if (group != 1) a.setInt("group", group);
  return layer("Conv", {x, w, b}, std::move(a));
}

ValueId NetBuilder::batchNorm(ValueId x) {
  const int64_t c = shape(x)[1];
  const ValueId scale = builder_.weight(sampleTensor({DType::Float32, {c}}, ValueRange{0.5, 1.5, 0.0}, rng_));
  const ValueId bias = randomWeight({c}, 0.1);
  const ValueId mean = randomWeight({c}, 0.1);
  const ValueId var = builder_.weight(sampleTensor({DType::Float32, {c}}, ValueRange{0.5, 1.5, 0.0}, rng_));
  return layer("BatchNormalization", {x, scale, bias, mean, var}, {});
}

ValueId NetBuilder::relu(ValueId x) { return layer("Relu", {x}, {}); }

ValueId NetBuilder::relu6(ValueId x) {
  const ValueId lo = builder_.weight(Tensor({DType::Float32, {}}, {0.0}));
  const ValueId hi = builder_.weight(Tensor({DType::Float32, {}}, {6.0}));
  return layer("Clip", {x, lo, hi}, {});
}

namespace {
Attributes window(int64_t kernel, int64_t stride, int64_t pad) {
  Attributes a;
  a.setInts("kernel_shape", {kernel, kernel});
  a.setInts("strides", {stride, stride});
  a.setInts("pads", {pad, pad, pad, pad});
  return a;
}
}  // namespace

ValueId NetBuilder::maxPool(ValueId x, int64_t kernel, int64_t stride, int64_t pad) {
  return layer("MaxPool", {x}, window(kernel, stride, pad));
}

ValueId NetBuilder::avgPool(ValueId x, int64_t kernel, int64_t stride, int64_t pad) {
  return layer("AveragePool", {x}, window(kernel, stride, pad));
}

ValueId NetBuilder::globalAvgPool(ValueId x) { return layer("GlobalAveragePool", {x}, {}); }

ValueId NetBuilder::lrn(ValueId x, int64_t size) {
  Attributes a;
  a.setInt("size", size);
  a.setFloat("alpha", 1e-4);
  a.setFloat("beta", 0.75);
  return layer("LRN", {x}, std::move(a));
}

ValueId NetBuilder::flatten(ValueId x) { return layer("Flatten", {x}, {}); }

ValueId NetBuilder::fc(ValueId x, int64_t outFeatures) {
  const int64_t in = shape(x)[1];
  const ValueId w = randomWeight({outFeatures, in}, std::sqrt(3.0 / static_cast<double>(in)));
  const ValueId b = randomWeight({outFeatures}, 0.1);
  Attributes a;
  a.setInt("transB", 1);
  return layer("Gemm", {x, w, b}, std::move(a));
}

ValueId NetBuilder::add(ValueId a, ValueId b) { return layer("Add", {a, b}, {}); }

ValueId NetBuilder::concat(const std::vector<ValueId>& xs, int64_t axis) {
  Attributes a;
  a.setInt("axis", axis);
  return layer("Concat", xs, std::move(a));
}

ValueId NetBuilder::softmax(ValueId x, int64_t axis) {
  Attributes a;
  a.setInt("axis", axis);
  return layer("Softmax", {x}, std::move(a));
}

ValueId NetBuilder::transpose(ValueId x, std::vector<int64_t> perm) {
  Attributes a;
  a.setInts("perm", std::move(perm));
  return layer("Transpose", {x}, std::move(a));
}

ValueId NetBuilder::reshape(ValueId x, std::vector<int64_t> shape) {
  const ValueId s = builder_.weight(int64Tensor(shape));
  return layer("Reshape", {x, s}, {});
}

BuiltNet NetBuilder::finish(const std::vector<ValueId>& outputs) {
  graph_.setOutputs(outputs);
  BuiltNet net;
  net.name = name_;
  for (ValueId v : graph_.inputs()) net.inputs.push_back(pool_.data(v));
  for (ValueId v : outputs) net.outputs.push_back(pool_.data(v));
  net.graph = std::move(graph_);
  return net;
}

}  // namespace nnfuzz
