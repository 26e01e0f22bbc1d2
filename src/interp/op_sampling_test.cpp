// op_sampling_test.cpp - every registered operator, instantiated many times in Isra's
// order with fresh operands, passes its own shape inference, runs its reference kernel,
// never produces an empty result, and (nearly always) gives finite values.
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "interp/values.h"
#include "ops/instantiate.h"
#include "ops/registry.h"

namespace nnfuzz {
namespace {

TEST(OpSampling, EveryOpInstantiatesSoundlyAndRuns) {
  Limits limits;
  limits.dtypes = {kAllDTypes, kAllDTypes + 7};
  for (const OpSpec* spec : allOps()) {
    if (!spec->bodies.empty()) continue;  // built with their bodies by gen/control_flow.h
    SCOPED_TRACE(std::string(spec->name));
    Rng rng(1234);
    int finite = 0, runs = 0;
    for (int trial = 0; trial < 300; ++trial) {
      Instantiation inst = instantiateOp(*spec, rng, limits, nullptr, 0.0);
      ASSERT_TRUE(inst.ok()) << inst.error;
      std::vector<Tensor> operands;
      operands.reserve(inst.operands.size());
      for (const Operand& op : inst.operands)
        operands.push_back(op.omitted ? Tensor() : op.constant ? *op.constant : sampleTensor(op.type, op.range, rng));
      std::vector<const Tensor*> ptrs;
      for (size_t k = 0; k < operands.size(); ++k) ptrs.push_back(inst.operands[k].omitted ? nullptr : &operands[k]);
      for (const TensorType& t : inst.outputTypes)
        for (int64_t d : t.shape) ASSERT_GE(d, 1) << "empty result " << toString(t);
      auto outs = evalOp(*spec, ptrs, inst.attrs, inst.outputTypes);
      ++runs;
      bool ok = true;
      for (const Tensor& t : outs) ok = ok && allFinite(t);
      finite += ok;
    }
    EXPECT_GE(finite, runs * 95 / 100) << "too many non-finite reference results";
  }
}

}  // namespace
}  // namespace nnfuzz
