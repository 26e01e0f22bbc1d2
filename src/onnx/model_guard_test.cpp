// model_guard_test.cpp - untrusted models are refused with one line before any library runs.
#include <gtest/gtest.h>

#include "onnx/export.h"
#include "onnx/import.h"
#include "onnx/model_guard.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

// Relu(x) with an int64 initializer 'shape' of dims [2] holding `raw`.
onnx::ModelProto modelWithInitializer(const std::string& raw) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  auto* t = g->add_initializer();
  t->set_name("shape");
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(2);
  t->set_raw_data(raw);
  auto* node = g->add_node();
  node->set_op_type("Relu");
  node->add_input("x");
  node->add_output("y");
  auto* in = g->add_input();
  in->set_name("x");
  in->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  in->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
  g->add_output()->set_name("y");
  return m;
}

TEST(ModelGuard, ExportedModelsPass) {
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[1,2,5,5]
  %1 = input f32[3,2,3,3]
  %2 = weight i64[2] [3, -1]
  %3 = Conv(%0, %1) {kernel_shape=[3,3], pads=[1,1,1,1]} : f32[1,3,5,5]
  %4 = Reshape(%3, %2) : f32[3,25]
  return %4
}
)");
  EXPECT_EQ(guardModel(exportModel(g)), std::nullopt);
}

TEST(ModelGuard, RawDataMustFillTheDims) {
  EXPECT_EQ(guardModel(modelWithInitializer(std::string(16, '\0'))), std::nullopt);
  const auto problem = guardModel(modelWithInitializer(std::string(2, '\0')));
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem, "initializer: tensor 'shape' has 2 bytes of raw data, its 2 elements need 16");
}

TEST(ModelGuard, TypedDataMustFillTheDims) {
  onnx::ModelProto m = modelWithInitializer("");
  auto* t = m.mutable_graph()->mutable_initializer(0);
  t->clear_raw_data();
  t->add_int64_data(7);
  EXPECT_NE(guardModel(m), std::nullopt);
  t->add_int64_data(8);
  EXPECT_EQ(guardModel(m), std::nullopt);
  t->add_float_data(1.0f);  // a second field
  EXPECT_NE(guardModel(m), std::nullopt);
}

TEST(ModelGuard, HugeAndNegativeShapesAreRefusedWithoutOverflow) {
  onnx::ModelProto m = modelWithInitializer(std::string(16, '\0'));
  auto* shape = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int i = 0; i < 4; ++i) shape->add_dim()->set_dim_value(int64_t{1} << 40);  // 2^163 elements
  auto problem = guardModel(m);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("more than"), std::string::npos) << *problem;
  auto* t = m.mutable_graph()->mutable_initializer(0);
  t->set_dims(0, -2);
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  problem = guardModel(m);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("negative dimension"), std::string::npos) << *problem;
}

TEST(ModelGuard, WindowsNodeCountsAndNestingAreBounded) {
  onnx::ModelProto m = modelWithInitializer(std::string(16, '\0'));
  auto* pool = m.mutable_graph()->mutable_node(0);
  auto* k = pool->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(onnx::AttributeProto::INTS);
  k->add_ints(int64_t{1} << 40);
  EXPECT_NE(guardModel(m), std::nullopt);
  k->set_ints(0, 3);
  EXPECT_EQ(guardModel(m), std::nullopt);

  ModelBudget small;
  small.maxNodes = 1;
  *m.mutable_graph()->add_node() = *pool;
  EXPECT_NE(guardModel(m, small), std::nullopt);

  // An If whose branch holds an If whose branch holds ... nine levels.
  onnx::GraphProto inner;
  for (int level = 0; level < 9; ++level) {
    onnx::GraphProto outer;
    auto* node = outer.add_node();
    node->set_op_type("If");
    auto* branch = node->add_attribute();
    branch->set_name("then_branch");
    branch->set_type(onnx::AttributeProto::GRAPH);
    *branch->mutable_g() = inner;
    inner = outer;
  }
  *m.mutable_graph()->add_node() = inner.node(0);
  const auto problem = guardModel(m);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("nest deeper"), std::string::npos) << *problem;
}

TEST(ModelGuard, ParseModelRefusesWhatTheGuardRefuses) {
  std::string bytes;
  ASSERT_TRUE(modelWithInitializer("ab").SerializeToString(&bytes));
  try {
    parseModel(bytes, "m.onnx");
    FAIL() << "parsed a model with short raw data";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("m.onnx is refused: initializer: tensor 'shape'", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace nnfuzz
