// export_import_test.cpp - export/import round trips, ONNX's checker on our models, and
// one-line import errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "onnx/export.h"
#include "onnx/import.h"
#include "onnx/model_check.h"
#include "onnx/tensor_proto.h"
#include "ops/infer_node.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

// Canonical texts (runtime inputs before weights, as import orders them); only ops in
// ops.def. Attribute kinds are exercised on Abs, whose inference ignores attributes.
const char* const kGraphs[] = {
    R"(graph {
  %0 = input f32[2,3]
  %1 = Abs(%0) : f32[2,3]
  return %1
}
)",
    R"(graph {
  %0 = input f32[2,3]
  %1 = input f64[4]
  %2 = weight f32[2,3] [0.5, -1.25, 3.0, 0.0, 1e-08, -7.0]
  %3 = Sin(%0) : f32[2,3]
  %4 = Neg(%2) : f32[2,3]
  %5 = Sqrt(%1) : f64[4]
  %6 = Exp(%3) : f32[2,3]
  %7 = Floor(%6) : f32[2,3]
  return %7, %4, %5
}
)",
    R"(graph {
  %0 = input i32[3,1,2]
  %1 = input u8[]
  %2 = weight i8[2] [-128, 127]
  %3 = weight f32[] [2.5]
  %4 = Abs(%0) : i32[3,1,2]
  %5 = Sign(%4) : i32[3,1,2]
  %6 = Abs(%2) : i8[2]
  %7 = Abs(%1) : u8[]
  %8 = Ceil(%3) : f32[]
  return %5, %6, %7, %8
}
)",
    R"(graph {
  %0 = input f32[1,2,3,4,5]
  %1 = Abs(%0) {alpha=0.5, axes=[1,-2], empty=f[], mode="edge", none=[], scales=[0.25,2.0], z=["Tanh","Relu"]} : f32[1,2,3,4,5]
  %2 = Cos(%1) : f32[1,2,3,4,5]
  return %2
}
)",
};

TEST(ExportImport, RoundTripIsByteIdenticalAndPrintsTheSame) {
  for (const char* text : kGraphs) {
    SCOPED_TRACE(text);
    const Graph g = parseGraph(text);
    ASSERT_EQ(verifyGraph(g), std::nullopt);
    const std::string bytes = serializeModel(exportModel(g));
    const Graph back = importModel(parseModel(bytes, "exported model"));
    EXPECT_EQ(verifyGraph(back), std::nullopt);
    EXPECT_EQ(printGraph(back), printGraph(g));
    EXPECT_EQ(printGraph(back), text);
    EXPECT_EQ(serializeModel(exportModel(back)), bytes);
    EXPECT_EQ(serializeModel(exportModel(parseGraph(text))), bytes);  // equal graphs, equal bytes
  }
}

TEST(ExportImport, ModelLayout) {
  const onnx::ModelProto m = exportModel(parseGraph(kGraphs[1]));
  EXPECT_EQ(m.ir_version(), 8);
  ASSERT_EQ(m.opset_import_size(), 1);
  EXPECT_EQ(m.opset_import(0).domain(), "");
  EXPECT_EQ(m.opset_import(0).version(), 17);
  EXPECT_EQ(m.producer_name(), "nnfuzz");
  const auto& g = m.graph();
  ASSERT_EQ(g.input_size(), 2);  // weights are initializers only
  EXPECT_EQ(g.input(0).name(), "input_0");
  EXPECT_EQ(g.input(1).name(), "input_1");
  ASSERT_EQ(g.initializer_size(), 1);
  EXPECT_EQ(g.initializer(0).name(), "weight_0");
  ASSERT_EQ(g.output_size(), 3);
  EXPECT_EQ(g.output(0).name(), "output_0");
  EXPECT_EQ(g.output(2).name(), "output_2");
  EXPECT_EQ(g.value_info_size(), 2);  // Sin and Exp results
  for (const auto& n : g.node()) EXPECT_FALSE(n.name().empty());
  EXPECT_EQ(g.node(0).name(), "Sin_0");
  EXPECT_EQ(g.node(0).output(0), "t0");
  EXPECT_EQ(exportModel(parseGraph(kGraphs[0]), 13).opset_import(0).version(), 13);
}

TEST(ExportImport, AttributesMapOneToOne) {
  const onnx::ModelProto m = exportModel(parseGraph(kGraphs[3]));
  const auto& attrs = m.graph().node(0).attribute();
  ASSERT_EQ(attrs.size(), 7);
  EXPECT_EQ(attrs[0].name(), "alpha");
  EXPECT_EQ(attrs[0].type(), onnx::AttributeProto::FLOAT);
  EXPECT_EQ(attrs[0].f(), 0.5f);
  EXPECT_EQ(attrs[1].type(), onnx::AttributeProto::INTS);
  EXPECT_EQ(attrs[2].type(), onnx::AttributeProto::FLOATS);
  EXPECT_EQ(attrs[3].type(), onnx::AttributeProto::STRING);
  EXPECT_EQ(attrs[3].s(), "edge");
  EXPECT_EQ(attrs[4].type(), onnx::AttributeProto::INTS);
  EXPECT_EQ(attrs[5].type(), onnx::AttributeProto::FLOATS);
  EXPECT_EQ(attrs[6].type(), onnx::AttributeProto::STRINGS);
  ASSERT_EQ(attrs[6].strings_size(), 2);
  EXPECT_EQ(attrs[6].strings(1), "Relu");
}

TEST(ExportImport, ImportAcceptsInitializersListedAsInputsAndConstants) {
  onnx::ModelProto m = exportModel(parseGraph(kGraphs[1]));
  auto* g = m.mutable_graph();
  auto* listed = g->add_input();  // old-style: the initializer is also a graph input
  listed->set_name("weight_0");
  *listed->mutable_type() = toTypeProto({DType::Float32, {2, 3}});
  auto* c = g->add_node();  // a Constant feeding an Abs that becomes an extra output
  c->set_op_type("Constant");
  c->add_output("k");
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *a->mutable_t() = toTensorProto(Tensor({DType::Int64, {2}}, {-3, 4}), "");
  auto* abs = g->add_node();
  abs->set_op_type("Abs");
  abs->add_input("k");
  abs->add_output("k_abs");
  g->add_output()->set_name("k_abs");
  const Graph back = importModel(m);
  EXPECT_EQ(back.inputs().size(), 2u);
  EXPECT_EQ(back.weights().size(), 2u);
  ASSERT_EQ(back.outputs().size(), 4u);
  EXPECT_EQ(back.value(back.outputs()[3]).type, (TensorType{DType::Int64, {2}}));
  EXPECT_EQ(verifyGraph(back), std::nullopt);
}

TEST(ExportImport, OutputsThatAreInputsOrRepeated) {
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[3]
  %1 = weight f32[1] [2.0]
  %2 = Abs(%0) : f32[3]
  return %2, %0, %2, %1
}
)");
  const onnx::ModelProto m = exportModel(g);
  EXPECT_EQ(m.graph().output(0).name(), "output_0");
  EXPECT_EQ(m.graph().output(1).name(), "input_0");
  EXPECT_EQ(m.graph().output(2).name(), "output_0");
  EXPECT_EQ(m.graph().output(3).name(), "weight_0");
  EXPECT_EQ(printGraph(importModel(m)), printGraph(g));
}

void expectOneLineError(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected an Error mentioning " << needle;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(ExportImport, ErrorsAreOneLine) {
  const auto dir = std::filesystem::temp_directory_path() / ("nnfuzz_imp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  expectOneLineError([&] { loadModelFile(dir / "missing.onnx"); }, "missing.onnx");
  writeFileBytes(dir / "corrupt.onnx", "this is not a model\n");
  expectOneLineError([&] { loadModelFile(dir / "corrupt.onnx"); }, "corrupt.onnx");
  const std::string good = serializeModel(exportModel(parseGraph(kGraphs[1])));
  writeFileBytes(dir / "truncated.onnx", good.substr(0, good.size() / 2));
  expectOneLineError([&] { importModel(loadModelFile(dir / "truncated.onnx")); }, "truncated.onnx");
  std::filesystem::remove_all(dir);

  Graph unknown = parseGraph(kGraphs[0]);
  unknown.node(0).op = "FancyOp";
  expectOneLineError([&] { importModel(exportModel(unknown)); }, "unsupported operator: FancyOp");

  onnx::ModelProto dynamic = exportModel(parseGraph(kGraphs[0]));
  dynamic.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)
      ->set_dim_param("N");
  expectOneLineError([&] { importModel(dynamic); }, "dynamic dimension 'N'");

  onnx::ModelProto half = exportModel(parseGraph(kGraphs[0]));
  half.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::FLOAT16);
  expectOneLineError([&] { importModel(half); }, "FLOAT16");

  onnx::ModelProto domain = exportModel(parseGraph(kGraphs[0]));  // another domain's node, its result untyped
  domain.mutable_graph()->mutable_node(0)->set_domain("com.microsoft");
  domain.mutable_graph()->mutable_output(0)->clear_type();
  expectOneLineError([&] { importModel(domain); }, "com.microsoft");

  onnx::ModelProto sub = exportModel(parseGraph(kGraphs[0]));
  auto* ga = sub.mutable_graph()->mutable_node(0)->add_attribute();
  ga->set_name("body");
  ga->set_type(onnx::AttributeProto::GRAPH);
  expectOneLineError([&] { importModel(sub); }, "Abs has no body 'body'");

  onnx::ModelProto wrongType = exportModel(parseGraph(kGraphs[0]));  // Sqrt of an i32 input
  wrongType.mutable_graph()->mutable_node(0)->set_op_type("Sqrt");
  wrongType.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::INT32);
  expectOneLineError([&] { importModel(wrongType); }, "Sqrt");
  EXPECT_THROW(importModel(wrongType), InferenceRejected);
}

// An operator of another domain (an opaque node: no spec) exports with its domain and an
// opset import for it; import types its results from the model's declarations.
TEST(ExportImport, OtherDomainsRoundTripWithTheirOpsetImport) {
  const char* text = R"(graph {
  %0 = input f32[2,3]
  %1 = com.microsoft.Gelu(%0) : f32[2,3]
  %2 = Relu(%1) : f32[2,3]
  %3 = com.microsoft.FusedMatMul(%0, %0) {transB=1} : f32[2,2]
  return %2, %3
}
)";
  const Graph g = parseGraph(text);
  ASSERT_EQ(verifyGraph(g), std::nullopt);
  const onnx::ModelProto m = exportModel(g);
  ASSERT_EQ(m.opset_import_size(), 2);
  EXPECT_EQ(m.opset_import(1).domain(), "com.microsoft");
  EXPECT_EQ(m.opset_import(1).version(), 1);
  EXPECT_EQ(m.graph().node(0).domain(), "com.microsoft");
  EXPECT_EQ(m.graph().node(1).domain(), "");
  const Graph back = importModel(m);
  EXPECT_EQ(printGraph(back), text);
  // ONNX's checker knows no com.microsoft schema: it takes such nodes as they are, and
  // checks the default-domain nodes (and our types for them) as always.
  EXPECT_EQ(checkModel(m), std::nullopt);
  EXPECT_EQ(checkModel(m, &g), std::nullopt);
  // A result of another domain's node needs a declared type.
  onnx::ModelProto untyped = m;
  untyped.mutable_graph()->clear_value_info();
  expectOneLineError([&] { importModel(untyped); }, "declared type");
}

TEST(Checker, AcceptsExportedModels) {
  for (const char* text : kGraphs) {
    if (std::string(text).find("alpha") != std::string::npos) continue;  // not valid ONNX attributes
    SCOPED_TRACE(text);
    const Graph g = parseGraph(text);
    const onnx::ModelProto m = exportModel(g);
    EXPECT_EQ(checkModel(m), std::nullopt);
    EXPECT_EQ(checkModel(m, &g), std::nullopt);
    const Graph back = importModel(m);
    EXPECT_EQ(checkModel(m, &back), std::nullopt);
  }
}

TEST(ExportImport, UnreadOptionalResultsAreLeftAbsent) {
  // LSTM's Y and Y_c are optional: unread and no graph output, they export as empty
  // names (a trailing one dropped); Y_h stays. The checker accepts it and import reads it back.
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[2,1,3]
  %1 = input f32[1,8,3]
  %2 = input f32[1,8,2]
  %3, %4, %5 = LSTM(%0, %1, %2) {hidden_size=2} : f32[2,1,1,2], f32[1,1,2], f32[1,1,2]
  return %4
}
)");
  const onnx::ModelProto m = exportModel(g);
  const auto& node = m.graph().node(0);
  ASSERT_EQ(node.output_size(), 2);
  EXPECT_EQ(node.output(0), "");
  EXPECT_EQ(node.output(1), "output_0");
  EXPECT_EQ(checkModel(m, &g), std::nullopt);
  const Graph back = importModel(m);
  EXPECT_EQ(back.outputs().size(), 1u);
  EXPECT_EQ(back.value(back.outputs()[0]).type, (TensorType{DType::Float32, {1, 1, 2}}));
}

TEST(Checker, RejectsWrongDeclaredOutputType) {
  const Graph g = parseGraph(kGraphs[1]);
  onnx::ModelProto m = exportModel(g);
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::DOUBLE);
  auto problem = checkModel(m);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->find('\n'), std::string::npos) << *problem;

  onnx::ModelProto shape = exportModel(g);
  shape.mutable_graph()->mutable_output(2)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)
      ->set_dim_value(5);
  EXPECT_TRUE(checkModel(shape).has_value());
}

TEST(Checker, RejectsOurTypesDisagreeingWithOnnx) {
  Graph g = parseGraph(kGraphs[1]);
  const onnx::ModelProto m = exportModel(g);
  g.value(g.node(g.nodes()[0]).outputs[0]).type.shape = {3, 2};  // Sin's result, an intermediate
  auto problem = checkModel(m, &g);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("t0"), std::string::npos) << *problem;
  EXPECT_NE(problem->find("f32[2,3]"), std::string::npos) << *problem;
}

TEST(Checker, RejectsUnknownOpsAndBadAttributes) {
  Graph g = parseGraph(kGraphs[0]);
  g.node(0).op = "FancyOp";
  EXPECT_TRUE(checkModel(exportModel(g)).has_value());
  EXPECT_TRUE(checkModel(exportModel(parseGraph(kGraphs[3]))).has_value());
}

TEST(Checker, ContainedAgreesWithCheckModel) {
  for (const char* text : kGraphs) {
    if (std::string(text).find("alpha") != std::string::npos) continue;
    SCOPED_TRACE(text);
    const Graph g = parseGraph(text);
    const onnx::ModelProto m = exportModel(g);
    EXPECT_EQ(checkModelContained(m), std::nullopt);
    EXPECT_EQ(checkModelContained(m, &g), std::nullopt);
  }
  Graph g = parseGraph(kGraphs[1]);
  const onnx::ModelProto m = exportModel(g);
  g.value(g.node(g.nodes()[0]).outputs[0]).type.shape = {3, 2};
  EXPECT_EQ(checkModelContained(m, &g), checkModel(m, &g));  // the comparison needs the child's inference
  Graph fancy = parseGraph(kGraphs[0]);
  fancy.node(0).op = "FancyOp";
  const auto problem = checkModelContained(exportModel(fancy));
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, *checkModel(exportModel(fancy)));
}

// ONNX 1.12's STFT inference reads past a rank-1 signal's dims (libFuzzer found it): the
// child dies, the caller gets one line and lives on, and the next call starts a new child.
TEST(Checker, ContainedSurvivesACrashInsideOnnx) {
  const auto path = std::filesystem::path(NNFUZZ_SOURCE_DIR) / "fuzz/regressions/onnx_model/stft_rank1_signal";
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(bytes)) << path;
  const auto problem = checkModelContained(m);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->rfind("ONNX's checker ", 0), 0u) << *problem;
  EXPECT_NE(problem->find("on this model"), std::string::npos) << *problem;
  EXPECT_EQ(problem->find('\n'), std::string::npos) << *problem;
  // The next model gets a fresh child.
  const Graph g = parseGraph(kGraphs[1]);
  EXPECT_EQ(checkModelContained(exportModel(g), &g), std::nullopt);
  EXPECT_EQ(checkModelContained(m), problem);
}

}  // namespace
}  // namespace nnfuzz
