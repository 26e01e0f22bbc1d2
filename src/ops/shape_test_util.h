// shape_test_util.h - running one op the way the interpreter does (inferNode, the
// reference kernel, rounding to the output dtype), for the shape families' tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/infer_node.h"
#include "ops/registry.h"

namespace nnfuzz::shapetest {

inline Tensor T(DType d, Shape s, std::vector<double> v) { return Tensor(TensorType{d, std::move(s)}, std::move(v)); }
inline Tensor F(Shape s, std::vector<double> v) { return T(DType::Float32, std::move(s), std::move(v)); }
inline Tensor I64(std::vector<double> v) { return T(DType::Int64, {static_cast<int64_t>(v.size())}, std::move(v)); }
inline Tensor F32s(std::vector<double> v) { return T(DType::Float32, {static_cast<int64_t>(v.size())}, std::move(v)); }
/// 0, 1, 2, ... in a float tensor of `s`.
inline Tensor iota(Shape s) {
  Tensor t(TensorType{DType::Float32, std::move(s)});
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<double>(i);
  return t;
}

/// Inference with every operand a constant (nullptr = omitted).
inline InferResult inferOp(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  std::vector<const TensorType*> types;
  for (const Tensor* t : in) types.push_back(t ? &t->type : nullptr);
  return inferNode(*findOp(op), types, in, attrs);
}

/// All results of the op (inference must accept the node).
inline std::vector<Tensor> runAll(const std::string& op, const std::vector<const Tensor*>& in,
                                  const Attributes& attrs = {}) {
  InferResult r = inferOp(op, in, attrs);
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return {};
  std::vector<Tensor> outs;
  for (const TensorType& t : r.types) outs.emplace_back(t);
  KernelArgs args{in, attrs, outs};
  findOp(op)->reference(args);
  for (Tensor& o : outs)
    for (double& x : o.data) x = roundTo(o.type.dtype, x);
  return outs;
}
inline Tensor run(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  auto outs = runAll(op, in, attrs);
  return outs.empty() ? Tensor() : outs[0];
}

inline bool unstable(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  std::vector<Tensor> outs;
  KernelArgs args{in, attrs, outs};
  return findOp(op)->unstable && findOp(op)->unstable(args);
}

inline void expectTensor(const Tensor& t, const Shape& shape, const std::vector<double>& want, double tol = 1e-6) {
  EXPECT_EQ(t.type.shape, shape);
  ASSERT_EQ(t.data.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(t.data[i], want[i], tol) << "element " << i;
}

inline Attributes attrsOf(std::initializer_list<std::pair<const char*, AttrValue>> kv) {
  Attributes a;
  for (const auto& [k, v] : kv) a.set(k, v);
  return a;
}

}  // namespace nnfuzz::shapetest
