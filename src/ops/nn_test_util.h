// nn_test_util.h - helpers for the neural-network operator tests: build tensors and
// attributes tersely, run one op as the interpreter does (inferNode, reference kernel,
// rounding), query its stability check, and count sampled attribute values.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "ops/infer_node.h"
#include "ops/instantiate.h"
#include "ops/registry.h"

namespace nnfuzz::nntest {

inline Tensor T(DType d, Shape s, std::vector<double> v) { return Tensor(TensorType{d, std::move(s)}, std::move(v)); }
inline Tensor F(Shape s, std::vector<double> v) { return T(DType::Float32, std::move(s), std::move(v)); }

/// Attributes from a builder lambda: A([](Attributes& a) { a.setInt("axis", 1); }).
inline Attributes A(const std::function<void(Attributes&)>& fill) {
  Attributes a;
  fill(a);
  return a;
}

/// Inference for operands (nullptr = omitted); every operand counts as a constant.
inline InferResult inferOp(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  std::vector<const TensorType*> types;
  for (const Tensor* t : in) types.push_back(t ? &t->type : nullptr);
  return inferNode(*findOp(op), types, in, attrs);
}

/// Runs the reference kernel and rounds to the result dtypes (as the interpreter does).
inline std::vector<Tensor> evaluate(const OpSpec& spec, const std::vector<const Tensor*>& in, const Attributes& attrs,
                                    const std::vector<TensorType>& types) {
  std::vector<Tensor> outs;
  for (const TensorType& t : types) outs.emplace_back(t);
  KernelArgs args{in, attrs, outs};
  spec.reference(args);
  for (Tensor& o : outs)
    for (double& x : o.data) x = roundTo(o.type.dtype, x);
  return outs;
}

/// The op's first result; inference must accept the node.
inline Tensor run(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  InferResult r = inferOp(op, in, attrs);
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return {};
  return evaluate(*findOp(op), in, attrs, r.types)[0];
}

inline bool unstable(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  const OpSpec& spec = *findOp(op);
  InferResult r = inferOp(op, in, attrs);
  if (!r.ok() || !spec.unstable) return false;
  std::vector<Tensor> outs = evaluate(spec, in, attrs, r.types);
  KernelArgs args{in, attrs, outs};
  return spec.unstable(args);
}

inline void expectValues(const Tensor& t, const Shape& shape, const std::vector<double>& want, double tol = 1e-5) {
  EXPECT_EQ(t.type.shape, shape);
  ASSERT_EQ(t.data.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(t.data[i], want[i], tol) << "element " << i;
}

/// Instantiates `op` n times (fresh operands) and calls f on each instantiation.
inline void sample(const std::string& op, int n, const std::function<void(const Instantiation&)>& f) {
  Limits limits;
  limits.dtypes = {DType::Float32};
  Rng rng(99);
  for (int i = 0; i < n; ++i) {
    Instantiation inst = instantiateOp(*findOp(op), rng, limits, nullptr, 0.0);
    ASSERT_TRUE(inst.ok()) << inst.error;
    f(inst);
  }
}

}  // namespace nnfuzz::nntest
