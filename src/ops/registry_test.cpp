// registry_test.cpp - the operator list is well-formed: sorted, unique, complete specs.
#include <gtest/gtest.h>

#include <set>

#include "ops/registry.h"

namespace nnfuzz {
namespace {

TEST(Registry, SortedUniqueAndFindable) {
  const auto ops = allOps();
  ASSERT_GE(ops.size(), 60u);
  for (size_t i = 1; i < ops.size(); ++i) EXPECT_LT(ops[i - 1]->name, ops[i]->name) << "ops.def must stay sorted and unique";
  for (const OpSpec* spec : ops) EXPECT_EQ(findOp(spec->name), spec);
  EXPECT_EQ(findOp("NoSuchOp"), nullptr);
}

TEST(Registry, EverySpecIsComplete) {
  for (const OpSpec* spec : allOps()) {
    SCOPED_TRACE(std::string(spec->name));
    EXPECT_NE(spec->infer, nullptr);
    EXPECT_NE(spec->reference, nullptr);
    EXPECT_FALSE(spec->dtypes.empty());
    EXPECT_GE(spec->sinceVersion, 1);
    EXPECT_LE(spec->sinceVersion, 21) << "opset 21 is the newest schema the library implements";
    EXPECT_LE(spec->minInputs, spec->maxInputs);
    EXPECT_LE(spec->minRank, spec->maxRank);
    EXPECT_LT(spec->typeOperand, spec->maxInputs);
    if (spec->maxInputs > 1) {
      EXPECT_NE(spec->nextInput, nullptr) << "further inputs need a pattern";
    }
    EXPECT_EQ(spec->isConstantInput(0), spec->sampleConstantFirst != nullptr)
        << "a constant first operand is drawn by sampleConstantFirst, and only then";
    if (spec->acceptsFirst) {
      EXPECT_NE(spec->sampleFirst, nullptr) << "a restricted first input needs a sampler";
    }
  }
}

TEST(Registry, CoversTheMandatoryOperators) {
  const char* mandatory[] = {
      "Abs", "Neg", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Exp", "Log", "Sqrt", "Erf", "Sin", "Cos",
      "Sigmoid", "Tanh", "Relu", "LeakyRelu", "Elu", "Selu", "HardSigmoid", "Softplus", "Softsign", "Clip", "Cast",
      "Identity", "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mean", "Sum", "PRelu", "Equal", "Less",
      "Greater", "And", "Or", "Where", "Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool",
      "GlobalMaxPool", "BatchNormalization", "Gemm", "MatMul", "Softmax", "LogSoftmax", "ReduceSum", "ReduceMean",
      "ReduceMax", "ReduceMin", "ReduceProd", "ArgMax", "Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze",
      "Concat", "Split", "Slice", "Pad", "Expand", "Tile", "Gather", "Resize", "DepthToSpace", "SpaceToDepth"};
  for (const char* name : mandatory) EXPECT_NE(findOp(name), nullptr) << name;
}

}  // namespace
}  // namespace nnfuzz
