// pool_test.cpp - MaxPool, AveragePool, LpPool, MaxUnpool and the global pools: ceil_mode
// and its last-window rule, dilations, padding that never wins a max, count_include_pad with
// windows running past the padding, the validity checks, sampler reach, and MaxPool's
// Indices (storage order, plane offsets, near ties).
#include <cmath>
#include <set>

#include <algorithm>

#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

TEST(MaxPool, CeilModeAddsAPartialWindow) {
  const Tensor x = F({1, 1, 5}, {1, 5, 2, 4, 3});
  auto attrs = [](int ceil) {
    return A([=](Attributes& a) {
      a.setInts("kernel_shape", {2});
      a.setInts("strides", {2});
      a.setInt("ceil_mode", ceil);
    });
  };
  expectValues(run("MaxPool", {&x}, attrs(0)), {1, 1, 2}, {5, 4});
  expectValues(run("MaxPool", {&x}, attrs(1)), {1, 1, 3}, {5, 4, 3});
}

TEST(MaxPool, CeilModeLastWindowMustStartInside) {
  // ceil((5 + 2 - 2) / 2) + 1 = 4, but the 4th window would start in the right padding.
  const Tensor x = F({1, 1, 5}, {1, 2, 3, 4, 5});
  const Attributes attrs = A([](Attributes& a) {
    a.setInts("kernel_shape", {2});
    a.setInts("strides", {2});
    a.setInts("pads", {1, 1});
    a.setInt("ceil_mode", 1);
  });
  // The kernel applies the rule; inference rejects the node, because ONNX 1.12's inference
  // (our checker's) leaves the rule out and would give 4.
  expectValues(evaluate(*findOp("MaxPool"), {&x}, attrs, {TensorType{DType::Float32, {1, 1, 3}}})[0], {1, 1, 3},
               {1, 3, 5});
  EXPECT_FALSE(inferOp("MaxPool", {&x}, attrs).ok());
  Attributes agreeing = attrs;
  agreeing.setInts("pads", {1, 0});  // ceil((5 + 1 - 2) / 2) + 1 = 3 either way
  expectValues(run("MaxPool", {&x}, agreeing), {1, 1, 3}, {1, 3, 5});
}

TEST(MaxPool, Dilations) {
  const Tensor x = F({1, 1, 5}, {1, 5, 2, 4, 3});
  expectValues(run("MaxPool", {&x}, A([](Attributes& a) {
                 a.setInts("kernel_shape", {2});
                 a.setInts("dilations", {2});
               })),
               {1, 1, 3}, {2, 5, 3});
}

TEST(MaxPool, PaddingNeverWins) {
  const Tensor x = T(DType::Int8, {1, 1, 2}, {-5, -3});
  expectValues(run("MaxPool", {&x}, A([](Attributes& a) {
                 a.setInts("kernel_shape", {2});
                 a.setInts("pads", {1, 1});
               })),
               {1, 1, 3}, {-5, -3, -3});
}

TEST(MaxPool, SameLowerTwoDimensional) {
  const Tensor x = F({1, 1, 2, 2}, {1, 2, 3, 4});
  // Total pad 1 per dim, at the beginning: windows [p p; p 1], [p p; 1 2], ...
  expectValues(run("MaxPool", {&x}, A([](Attributes& a) {
                 a.setInts("kernel_shape", {2, 2});
                 a.setString("auto_pad", "SAME_LOWER");
               })),
               {1, 1, 2, 2}, {1, 2, 3, 4});
  expectValues(run("MaxPool", {&x}, A([](Attributes& a) {
                 a.setInts("kernel_shape", {2, 2});
                 a.setString("auto_pad", "SAME_UPPER");
               })),
               {1, 1, 2, 2}, {4, 4, 4, 4});
}

TEST(MaxPool, RejectsInvalidNodes) {
  const Tensor x = F({1, 1, 4}, {1, 2, 3, 4});
  EXPECT_FALSE(inferOp("MaxPool", {&x}).ok());  // kernel_shape is required
  EXPECT_FALSE(inferOp("MaxPool", {&x}, A([](Attributes& a) {
                 a.setInts("kernel_shape", {2});
                 a.setInts("pads", {2, 0});  // not below the kernel
               })).ok());
  EXPECT_FALSE(inferOp("MaxPool", {&x}, A([](Attributes& a) {
                 a.setInts("kernel_shape", {2});
                 a.setInt("storage_order", 2);
               })).ok());
  EXPECT_FALSE(inferOp("MaxPool", {&x}, A([](Attributes& a) { a.setInts("kernel_shape", {5}); })).ok());
  EXPECT_FALSE(inferOp("MaxPool", {&x}, A([](Attributes& a) { a.setInts("kernel_shape", {2, 2}); })).ok());
  const Tensor i32 = T(DType::Int32, {1, 1, 2}, {1, 2});
  EXPECT_FALSE(inferOp("MaxPool", {&i32}, A([](Attributes& a) { a.setInts("kernel_shape", {1}); })).ok());
}

TEST(AveragePool, CountIncludePad) {
  const Tensor x = F({1, 1, 3}, {1, 2, 3});
  auto attrs = [](int include) {
    return A([=](Attributes& a) {
      a.setInts("kernel_shape", {2});
      a.setInts("pads", {1, 1});
      a.setInt("count_include_pad", include);
    });
  };
  expectValues(run("AveragePool", {&x}, attrs(0)), {1, 1, 4}, {1, 1.5, 2.5, 3});
  expectValues(run("AveragePool", {&x}, attrs(1)), {1, 1, 4}, {0.5, 1.5, 2.5, 1.5});
}

TEST(AveragePool, CeilWindowBeyondThePadding) {
  // in 4, kernel 3, stride 2, pads 1/1, ceil: windows start at -1, 1, 3; the last one
  // runs past the padded end, so count_include_pad divides it by 2, not 3.
  const Tensor x = F({1, 1, 4}, {1, 2, 3, 4});
  auto attrs = [](int include) {
    return A([=](Attributes& a) {
      a.setInts("kernel_shape", {3});
      a.setInts("strides", {2});
      a.setInts("pads", {1, 1});
      a.setInt("ceil_mode", 1);
      a.setInt("count_include_pad", include);
    });
  };
  expectValues(run("AveragePool", {&x}, attrs(0)), {1, 1, 3}, {1.5, 3, 4});
  expectValues(run("AveragePool", {&x}, attrs(1)), {1, 1, 3}, {1, 3, 2});
}

// Opset 19's dilations; count_include_pad counts the taps inside the padded input
// (numbers from onnx.reference).
TEST(AveragePool, Dilations) {
  const Tensor x = F({1, 1, 5}, {1, 2, 3, 4, 5});
  auto attrs = [](int include, bool ceil) {
    return A([=](Attributes& a) {
      a.setInts("kernel_shape", {2});
      a.setInts("dilations", {2});
      a.setInts("pads", {1, 1});
      a.setInt("count_include_pad", include);
      if (ceil) {
        a.setInts("strides", {2});
        a.setInt("ceil_mode", 1);
      }
    });
  };
  expectValues(run("AveragePool", {&x}, attrs(0, false)), {1, 1, 5}, {2, 2, 3, 4, 4});
  expectValues(run("AveragePool", {&x}, attrs(1, false)), {1, 1, 5}, {1, 2, 3, 4, 2});
  expectValues(run("AveragePool", {&x}, attrs(0, true)), {1, 1, 3}, {2, 3, 4});
  expectValues(run("AveragePool", {&x}, attrs(1, true)), {1, 1, 3}, {1, 3, 2});
  const Tensor i8 = T(DType::Int8, {1, 1, 2}, {1, 2});
  EXPECT_FALSE(inferOp("AveragePool", {&i8}, A([](Attributes& a) { a.setInts("kernel_shape", {1}); })).ok());
}

TEST(GlobalPool, PerPlane) {
  const Tensor x = F({1, 2, 2}, {1, 3, -4, 0});
  expectValues(run("GlobalAveragePool", {&x}), {1, 2, 1}, {2, -2});
  expectValues(run("GlobalMaxPool", {&x}), {1, 2, 1}, {3, 0});
  expectValues(run("GlobalLpPool", {&x}), {1, 2, 1}, {std::sqrt(10.0), 4});
  expectValues(run("GlobalLpPool", {&x}, A([](Attributes& a) { a.setInt("p", 1); })), {1, 2, 1}, {4, 4});
  EXPECT_FALSE(inferOp("GlobalLpPool", {&x}, A([](Attributes& a) { a.setInt("p", 0); })).ok());
  EXPECT_FALSE(inferOp("GlobalMaxPool", {&x}, A([](Attributes& a) { a.setInt("p", 1); })).ok());
}

TEST(PoolSampling, ReachesTheAttributeSpace) {
  std::set<std::string> seen;
  sample("MaxPool", 800, [&](const Instantiation& inst) {
    const Attributes& a = inst.attrs;
    seen.insert("auto_pad=" + a.getString("auto_pad", "absent"));
    if (a.getInt("ceil_mode", 0) == 1) seen.insert("ceil");
    // auto_pad VALID with ceil_mode: the spec's size ignores ceil_mode, ONNX Runtime's does not.
    if (a.getString("auto_pad", "NOTSET") != "NOTSET") {
      EXPECT_EQ(a.getInt("ceil_mode", 0), 0);
    }
    for (int64_t d : a.getInts("dilations"))
      if (d > 1) seen.insert("dilated");
    for (int64_t p : a.getInts("pads"))
      if (p > 0) seen.insert("padded");
    for (int64_t s : a.getInts("strides"))
      if (s > 1) seen.insert("strided");
  });
  for (const char* want : {"auto_pad=absent", "auto_pad=SAME_UPPER", "auto_pad=SAME_LOWER", "auto_pad=VALID", "ceil",
                           "dilated", "padded", "strided"})
    EXPECT_TRUE(seen.count(want)) << want;
  seen.clear();
  sample("AveragePool", 400, [&](const Instantiation& inst) {
    const Attributes& a = inst.attrs;
    if (a.getInt("ceil_mode", 0) == 1) seen.insert("ceil");
    if (a.getInt("count_include_pad", 0) == 1) seen.insert("include");
    for (int64_t d : a.getInts("dilations"))
      if (d > 1) seen.insert("dilated");
  });
  EXPECT_TRUE(seen.count("ceil"));
  EXPECT_TRUE(seen.count("include"));
  EXPECT_TRUE(seen.count("dilated"));
}

TEST(LpPool, NormOverWindowsWithPadding) {
  const Tensor x = F({1, 1, 2, 2}, {3, -4, 0, 12});
  Attributes a = A([](Attributes& t) { t.setInts("kernel_shape", {2, 2}); });
  expectValues(run("LpPool", {&x}, a), {1, 1, 1, 1}, {13});  // sqrt(9 + 16 + 144)
  a.setInt("p", 1);
  expectValues(run("LpPool", {&x}, a), {1, 1, 1, 1}, {19});
  Attributes padded = A([](Attributes& t) {
    t.setInts("kernel_shape", {1, 2});
    t.setInts("pads", {0, 1, 0, 0});
  });
  expectValues(run("LpPool", {&x}, padded), {1, 1, 2, 2}, {3, 5, 0, 12});  // padding adds nothing
  // Opset 18's ceil_mode and dilations: a last window that starts inside, taps spread out.
  const Tensor row = F({1, 1, 1, 5}, {3, -4, 0, 12, 5});
  expectValues(run("LpPool", {&row}, A([](Attributes& t) {
                 t.setInts("kernel_shape", {1, 2});
                 t.setInts("strides", {1, 2});
                 t.setInt("ceil_mode", 1);
               })),
               {1, 1, 1, 3}, {5, 12, 5});
  expectValues(run("LpPool", {&row}, A([](Attributes& t) {
                 t.setInts("kernel_shape", {1, 2});
                 t.setInts("dilations", {1, 3});
                 t.setInt("p", 1);
               })),
               {1, 1, 1, 2}, {15, 9});  // |3| + |12|, |-4| + |5|
  EXPECT_FALSE(inferOp("LpPool", {&x}, A([](Attributes& t) {
                 t.setInts("kernel_shape", {2, 2});
                 t.setInt("ceil_mode", 2);
               })).ok());
  EXPECT_FALSE(inferOp("LpPool", {&x}, A([](Attributes& t) {
                 t.setInts("kernel_shape", {2, 2});
                 t.setInt("p", 0);
               })).ok());
}

TEST(MaxUnpool, ScattersIntoTheDefaultShapeAndPadsToOutputShape) {
  const Tensor x = F({1, 1, 2, 2}, {5, 6, 7, 8});
  const Tensor idx = T(DType::Int64, {1, 1, 2, 2}, {5, 7, 13, 15});
  Attributes a = A([](Attributes& t) {
    t.setInts("kernel_shape", {2, 2});
    t.setInts("strides", {2, 2});
  });
  std::vector<double> want(16, 0.0);
  want[5] = 5, want[7] = 6, want[13] = 7, want[15] = 8;
  expectValues(run("MaxUnpool", {&x, &idx}, a), {1, 1, 4, 4}, want);
  const Tensor shape = int64Tensor({1, 1, 5, 5});
  const Tensor y = run("MaxUnpool", {&x, &idx, &shape}, a);
  EXPECT_EQ(y.type.shape, (Shape{1, 1, 5, 5}));
  EXPECT_EQ(y.data[6], 5);  // (1, 1) of the 4 x 4 result
  EXPECT_EQ(y.data[18], 8);
  const Tensor repeated = T(DType::Int64, {1, 1, 2, 2}, {5, 5, 13, 15});
  EXPECT_FALSE(inferOp("MaxUnpool", {&x, &repeated}, a).ok());
  const Tensor outside = T(DType::Int64, {1, 1, 2, 2}, {5, 7, 13, 16});
  EXPECT_FALSE(inferOp("MaxUnpool", {&x, &outside}, a).ok());
  // Pads reaching the kernel: ONNX allows them, ONNX Runtime does not (mcf-7d6e9a4f, made
  // by a parameter mutation of pads: 2 with kernel 2).
  const Tensor first4 = T(DType::Int64, {1, 1, 2, 2}, {0, 1, 2, 3});
  EXPECT_TRUE(inferOp("MaxUnpool", {&x, &first4}, A([&](Attributes& t) {
                t = a;
                t.setInts("pads", {1, 1, 1, 1});
              })).ok());
  EXPECT_FALSE(inferOp("MaxUnpool", {&x, &first4}, A([&](Attributes& t) {
                 t = a;
                 t.setInts("pads", {0, 2, 0, 0});
               })).ok());
  sample("MaxUnpool", 30, [](const Instantiation& inst) {
    ASSERT_TRUE(inst.operands[1].constant.has_value());
    std::vector<double> seen = inst.operands[1].constant->data;
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());
  });
}

// A parameter mutation may leave attributes whose unpooled plane is smaller than X's (stride
// 1, kernel 3, pads 2 and 2: 4 x 4 -> 2 x 2). The indices sampler drew a permutation of the
// output plane and read past it for X's plane (a heap overflow under ASan, found by
// GraphGen.ParameterMutationsKeepWhatEnginesAccept); now it gives zeros, which inference
// turns down.
TEST(MaxUnpool, IndicesSamplerSurvivesAttributesThatShrinkThePlane) {
  Limits limits;
  Rng rng(3);
  OpDraft d;
  d.arity = 2;
  d.inputTypes = {TensorType{DType::Float32, {1, 1, 4, 4}}};
  d.limits = &limits;
  d.rng = &rng;
  d.attrs.setInts("kernel_shape", {3, 3});
  d.attrs.setInts("strides", {1, 1});
  d.attrs.setInts("pads", {2, 2, 2, 2});
  const InputPattern p = findOp("MaxUnpool")->nextInput(d);
  ASSERT_TRUE(p.constant.has_value());
  const Tensor x = F({1, 1, 4, 4}, std::vector<double>(16, 1.0));
  EXPECT_FALSE(inferOp("MaxUnpool", {&x, &*p.constant}, d.attrs).ok());
}

TEST(MaxPool, IndicesRowOrColumnMajorWithPlaneOffsets) {
  auto kernel = [](std::vector<int64_t> k, int64_t order) {
    return A([=](Attributes& a) {
      a.setInts("kernel_shape", k);
      a.setInt("storage_order", order);
    });
  };
  const Tensor x = F({1, 1, 2, 2}, {1, 4, 3, 2});
  for (int64_t order : {0, 1}) {
    const InferResult r = inferOp("MaxPool", {&x}, kernel({2, 2}, order));
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_EQ(r.types.size(), 2u);
    EXPECT_EQ(r.types[1], (TensorType{DType::Int64, {1, 1, 1, 1}}));
    const auto outs = evaluate(*findOp("MaxPool"), {&x}, kernel({2, 2}, order), r.types);
    expectValues(outs[0], {1, 1, 1, 1}, {4});
    expectValues(outs[1], {1, 1, 1, 1}, {order == 0 ? 1.0 : 2.0});  // (h 0, w 1): 0 * 2 + 1, or 0 + 1 * 2
  }
  // Indices count N and C: the second plane starts at 2.
  const Tensor planes = F({1, 2, 1, 2}, {5, 1, 0, 7});
  const InferResult r = inferOp("MaxPool", {&planes}, kernel({1, 2}, 0));
  ASSERT_TRUE(r.ok()) << r.error;
  const auto outs = evaluate(*findOp("MaxPool"), {&planes}, kernel({1, 2}, 0), r.types);
  expectValues(outs[1], {1, 2, 1, 1}, {0, 3});
  // Near ties are unstable for floats; integer MaxPool has no Indices.
  const Tensor tie = F({1, 1, 1, 2}, {2, 2.0001});
  EXPECT_TRUE(unstable("MaxPool", {&tie}, kernel({1, 2}, 0)));
  EXPECT_FALSE(unstable("MaxPool", {&planes}, kernel({1, 2}, 0)));
  const Tensor ints = T(DType::Int8, {1, 1, 1, 2}, {3, 3});
  EXPECT_EQ(inferOp("MaxPool", {&ints}, kernel({1, 2}, 0)).types.size(), 1u);
  EXPECT_FALSE(unstable("MaxPool", {&ints}, kernel({1, 2}, 0)));
}

}  // namespace
}  // namespace nnfuzz
