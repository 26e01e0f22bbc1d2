// gather_nd_test.cpp - GatherND (tuples, slices, batch_dims, negative indices), ScatterND
// and ScatterElements (reductions, repeated targets rejected for reduction none, sampled
// indices never repeat a target).
#include <set>

#include "ops/op_test_util.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

using namespace optest;

Tensor ints(Shape s, std::vector<double> v) { return T(DType::Int64, std::move(s), std::move(v)); }

const Tensor kGrid = F({2, 3}, {0, 1, 2, 3, 4, 5});

TEST(GatherND, TuplesSlicesAndBatches) {
  const Tensor cells = ints({2, 2}, {1, 2, 0, -1});
  expectValues(run("GatherND", {&kGrid, &cells}), {2}, {5, 2});
  const Tensor rows = ints({1, 1}, {1});
  expectValues(run("GatherND", {&kGrid, &rows}), {1, 3}, {3, 4, 5});
  const Tensor perBatch = ints({2, 1}, {2, 0});  // batch_dims 1: row 0 picks 2, row 1 picks 0
  expectValues(run("GatherND", {&kGrid, &perBatch}, A([](Attributes& a) { a.setInt("batch_dims", 1); })), {2},
               {2, 3});
  const Tensor tooLong = ints({1, 3}, {0, 0, 0});
  EXPECT_FALSE(inferOp("GatherND", {&kGrid, &tooLong}).ok());
  const Tensor outside = ints({1, 2}, {2, 0});
  EXPECT_FALSE(inferOp("GatherND", {&kGrid, &outside}).ok());
  const Tensor i32 = T(DType::Int32, {1, 1}, {0});
  EXPECT_FALSE(inferOp("GatherND", {&kGrid, &i32}).ok());
}

// Found in a Loop body (iteration 1 gathered from a one-element tensor): a runtime index out
// of range is an error ONNX Runtime reports; the kernels used to read element 0 instead.
TEST(GatherND, KernelsRefuseRuntimeIndicesOutOfRange) {
  // Inference refuses such constants, so the kernels are called directly, as on runtime data.
  auto gather = [](const char* op, const Tensor& idx, Shape out, int64_t axis) {
    return evaluate(*findOp(op), {&kGrid, &idx}, A([&](Attributes& a) { a.setInt("axis", axis); }),
                    {TensorType{DType::Float32, std::move(out)}})[0];
  };
  EXPECT_THROW(gather("Gather", ints({1}, {2}), {1, 3}, 0), Error);
  EXPECT_THROW(gather("Gather", ints({1}, {-3}), {1, 3}, 0), Error);
  expectValues(gather("Gather", ints({1}, {-2}), {1, 3}, 0), {1, 3}, {0, 1, 2});
  EXPECT_THROW(gather("GatherElements", ints({2, 1}, {0, 3}), {2, 1}, 1), Error);
  const Tensor cell = ints({1, 2}, {1, 3});
  EXPECT_THROW(evaluate(*findOp("GatherND"), {&kGrid, &cell}, {}, {TensorType{DType::Float32, {1}}}), Error);
}

TEST(GatherND, RuntimeIndicesOutsideTheDataAreUnstable) {
  // Out of range only as runtime data (constants are refused by inference): the reducer must
  // not keep such a case, its result is undefined.
  const OpSpec& spec = *findOp("GatherND");
  ASSERT_TRUE(spec.unstable);
  auto unstableFor = [&](const Tensor& idx) {
    std::vector<Tensor> outs = {Tensor({DType::Float32, {idx.type.shape[0], 3}})};
    const Attributes none;
    const std::vector<const Tensor*> in = {&kGrid, &idx};
    KernelArgs args{in, none, outs};
    return spec.unstable(args);
  };
  EXPECT_FALSE(unstableFor(ints({2, 1}, {1, -2})));
  EXPECT_TRUE(unstableFor(ints({2, 1}, {1, 2})));
  EXPECT_TRUE(unstableFor(ints({1, 1}, {-3})));
}

TEST(ScatterND, WritesAndReduces) {
  const Tensor idx = ints({2, 1}, {1, 0});
  const Tensor upd = F({2, 3}, {10, 20, 30, 40, 50, 60});
  expectValues(run("ScatterND", {&kGrid, &idx, &upd}), {2, 3}, {40, 50, 60, 10, 20, 30});
  expectValues(run("ScatterND", {&kGrid, &idx, &upd}, A([](Attributes& a) { a.setString("reduction", "add"); })),
               {2, 3}, {40, 51, 62, 13, 24, 35});
  const Tensor cell = ints({1, 2}, {-1, 1});
  const Tensor one = F({1}, {7});
  expectValues(run("ScatterND", {&kGrid, &cell, &one}, A([](Attributes& a) { a.setString("reduction", "mul"); })),
               {2, 3}, {0, 1, 2, 3, 28, 5});
  const Tensor twice = ints({2, 1}, {1, 1});
  EXPECT_FALSE(inferOp("ScatterND", {&kGrid, &twice, &upd}).ok());  // undefined for reduction none
  EXPECT_TRUE(inferOp("ScatterND", {&kGrid, &twice, &upd}, A([](Attributes& a) { a.setString("reduction", "add"); })).ok());
  const Tensor wrong = F({2, 2}, {1, 2, 3, 4});
  EXPECT_FALSE(inferOp("ScatterND", {&kGrid, &idx, &wrong}).ok());
}

TEST(ScatterElements, AlongAnAxis) {
  const Tensor idx = ints({1, 3}, {1, 0, 1});
  const Tensor upd = F({1, 3}, {10, 20, 30});
  expectValues(run("ScatterElements", {&kGrid, &idx, &upd}), {2, 3}, {0, 20, 2, 10, 4, 30});
  const Tensor cols = T(DType::Int32, {2, 1}, {-1, 0});
  const Tensor two = F({2, 1}, {7, 8});
  expectValues(run("ScatterElements", {&kGrid, &cols, &two},
                   A([](Attributes& a) {
                     a.setInt("axis", 1);
                     a.setString("reduction", "add");
                   })),
               {2, 3}, {0, 1, 9, 11, 4, 5});
  const Tensor repeat = ints({2, 1}, {1, 1});
  const Tensor upd2 = F({2, 1}, {1, 2});
  EXPECT_FALSE(inferOp("ScatterElements", {&kGrid, &repeat, &upd2}).ok());
  // Opset 18's max and min keep the larger / smaller of target and updates, repeats too.
  const Tensor both = F({2, 1}, {-1, 9});
  expectValues(run("ScatterElements", {&kGrid, &repeat, &both}, A([](Attributes& a) { a.setString("reduction", "max"); })),
               {2, 3}, {0, 1, 2, 9, 4, 5});
  expectValues(run("ScatterElements", {&kGrid, &repeat, &both}, A([](Attributes& a) { a.setString("reduction", "min"); })),
               {2, 3}, {0, 1, 2, -1, 4, 5});
  EXPECT_FALSE(inferOp("ScatterElements", {&kGrid, &idx, &upd}, A([](Attributes& a) { a.setString("reduction", "maximum"); })).ok());
}

TEST(Scatter, SampledIndicesNeverRepeatATargetForReductionNone) {
  for (const char* op : {"ScatterND", "ScatterElements"}) {
    sample(op, 60, [&](const Instantiation& inst) {
      ASSERT_TRUE(inst.operands[1].constant.has_value()) << op;
      std::vector<const Tensor*> in;
      std::vector<Tensor> data;
      for (const Operand& o : inst.operands) data.push_back(o.constant ? *o.constant : Tensor(o.type));
      for (const Tensor& t : data) in.push_back(&t);
      EXPECT_TRUE(inferOp(op, in, inst.attrs).ok()) << op;  // inference re-checks the targets
    });
  }
}

}  // namespace
}  // namespace nnfuzz
