// elem_test_util.h - running one op the way the interpreter does (inferNode, the reference
// kernel, rounding to the output dtype), for the elementwise families' tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/infer_node.h"
#include "ops/registry.h"

namespace nnfuzz::elemtest {

inline Tensor T(DType d, Shape s, std::vector<double> v) { return Tensor(TensorType{d, std::move(s)}, std::move(v)); }
inline Tensor F(Shape s, std::vector<double> v) { return T(DType::Float32, std::move(s), std::move(v)); }

/// Inference for operands (nullptr = omitted); constants are taken to be the operands.
inline InferResult inferOp(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  std::vector<const TensorType*> types;
  for (const Tensor* t : in) types.push_back(t ? &t->type : nullptr);
  return inferNode(*findOp(op), types, in, attrs);
}
inline InferResult inferTypes(const std::string& op, const std::vector<TensorType>& in, const Attributes& attrs = {}) {
  std::vector<const TensorType*> types;
  std::vector<const Tensor*> constants(in.size(), nullptr);
  for (const TensorType& t : in) types.push_back(&t);
  return inferNode(*findOp(op), types, constants, attrs);
}

/// The op's single result (inference must accept the node).
inline Tensor run(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  InferResult r = inferOp(op, in, attrs);
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return {};
  std::vector<Tensor> outs;
  for (const TensorType& t : r.types) outs.emplace_back(t);
  KernelArgs args{in, attrs, outs};
  findOp(op)->reference(args);
  for (double& x : outs[0].data) x = roundTo(outs[0].type.dtype, x);
  return outs[0];
}

inline bool unstable(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  std::vector<Tensor> outs;
  KernelArgs args{in, attrs, outs};
  return findOp(op)->unstable && findOp(op)->unstable(args);
}

inline void expectNear(const Tensor& t, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(t.data.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(t.data[i], want[i], tol) << "element " << i;
}

}  // namespace nnfuzz::elemtest
