// op_test_util.h - helpers for the operator tests: build tensors and attributes tersely,
// run one op as the interpreter does (inferNode, reference kernel, rounding to the output
// dtypes), query its stability check, and sample its instantiations.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "ops/infer_node.h"
#include "ops/instantiate.h"
#include "ops/registry.h"

namespace nnfuzz::optest {

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

/// Attributes from a builder lambda: A([](Attributes& a) { a.setInt("axis", 1); }).
inline Attributes A(const std::function<void(Attributes&)>& fill) {
  Attributes a;
  fill(a);
  return a;
}
inline Attributes attrsOf(std::initializer_list<std::pair<const char*, AttrValue>> kv) {
  Attributes a;
  for (const auto& [k, v] : kv) a.set(k, v);
  return a;
}

/// Inference for operands (nullptr = omitted); every operand counts as a constant.
inline InferResult inferOp(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  std::vector<const TensorType*> types;
  for (const Tensor* t : in) types.push_back(t ? &t->type : nullptr);
  return inferNode(*findOp(op), types, in, attrs);
}
/// Inference for operand types alone (no constants).
inline InferResult inferTypes(const std::string& op, const std::vector<TensorType>& in, const Attributes& attrs = {}) {
  std::vector<const TensorType*> types;
  std::vector<const Tensor*> constants(in.size(), nullptr);
  for (const TensorType& t : in) types.push_back(&t);
  return inferNode(*findOp(op), types, constants, attrs);
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

/// All results of the op (inference must accept the node).
inline std::vector<Tensor> runAll(const std::string& op, const std::vector<const Tensor*>& in,
                                  const Attributes& attrs = {}) {
  InferResult r = inferOp(op, in, attrs);
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return {};
  return evaluate(*findOp(op), in, attrs, r.types);
}
/// The op's first result (inference must accept the node).
inline Tensor run(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  auto outs = runAll(op, in, attrs);
  return outs.empty() ? Tensor() : outs[0];
}

/// The op's stability check on these operands (its results computed first, as the
/// interpreter does); false when inference refuses them or the op has no check.
inline bool unstable(const std::string& op, const std::vector<const Tensor*>& in, const Attributes& attrs = {}) {
  const OpSpec& spec = *findOp(op);
  InferResult r = inferOp(op, in, attrs);
  if (!r.ok() || !spec.unstable) return false;
  std::vector<Tensor> outs = evaluate(spec, in, attrs, r.types);
  KernelArgs args{in, attrs, outs};
  return spec.unstable(args);
}

inline void expectNear(const Tensor& t, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(t.data.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(t.data[i], want[i], tol) << "element " << i;
}
inline void expectValues(const Tensor& t, const Shape& shape, const std::vector<double>& want, double tol = 1e-5) {
  EXPECT_EQ(t.type.shape, shape);
  expectNear(t, want, tol);
}
inline void expectTensor(const Tensor& t, const Shape& shape, const std::vector<double>& want, double tol = 1e-6) {
  expectValues(t, shape, want, tol);
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

}  // namespace nnfuzz::optest
