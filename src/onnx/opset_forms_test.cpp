// opset_forms_test.cpp - each operator's form at other opsets than 17 (ops/version_forms.h):
// export at opset N writes the form of the schema in force at N, ONNX's checker accepts it
// (libonnx knows opsets <= 17), import reads it back to the same canonical graph (same
// text, same reference outputs), and what opset N cannot express is refused in one line.
#include <gtest/gtest.h>

#include "interp/interpreter.h"
#include "onnx/export.h"
#include "onnx/import.h"
#include "onnx/model_check.h"
#include "ops/schema_history.h"
#include "ops/version_forms.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

struct FormCase {
  const char* text;          // canonical graph, starting with "opset N"
  const char* op;            // the node to look at in the model
  std::vector<std::string> attrs;  // attributes the ONNX node must have
  int inputs;                // inputs the ONNX node must have
};

const FormCase kCases[] = {
    {R"(opset 9
graph {
  %0 = input f32[4,5]
  %1 = weight i64[2] [1, 0]
  %2 = weight i64[2] [3, 4]
  %3 = weight i64[2] [0, 1]
  %4 = Slice(%0, %1, %2, %3) : f32[2,4]
  return %4
}
)", "Slice", {"axes", "ends", "starts"}, 1},
    {R"(opset 9
graph {
  %0 = input f32[3,4]
  %1 = weight i64[1] [2]
  %2, %3 = TopK(%0, %1) {axis=1} : f32[3,2], i64[3,2]
  return %2, %3
}
)", "TopK", {"axis", "k"}, 1},
    {R"(opset 10
graph {
  %0 = input f32[2,3]
  %1 = weight i64[4] [0, 1, 1, 0]
  %2 = weight f32[] [0.5]
  %3 = Pad(%0, %1, %2) : f32[3,4]
  return %3
}
)", "Pad", {"pads", "value"}, 1},
    {R"(opset 10
graph {
  %0 = input f32[2,3]
  %1 = weight f32[] [-0.5]
  %2 = weight f32[] [0.75]
  %3 = Clip(%0, %1, %2) : f32[2,3]
  return %3
}
)", "Clip", {"max", "min"}, 1},
    {R"(opset 12
graph {
  %0 = input f32[2,5]
  %1 = weight i64[2] [2, 3]
  %2, %3 = Split(%0, %1) {axis=1} : f32[2,2], f32[2,3]
  return %2, %3
}
)", "Split", {"axis", "split"}, 1},
    {R"(opset 18
graph {
  %0 = input f32[2,5]
  %1 = Split(%0) {axis=1} : f32[2,5]
  return %1
}
)", "Split", {"axis", "num_outputs"}, 1},
    {R"(opset 11
graph {
  %0 = input f32[2,1,3]
  %1 = weight i64[1] [1]
  %2 = Squeeze(%0, %1) : f32[2,3]
  %3 = weight i64[1] [0]
  %4 = Unsqueeze(%2, %3) : f32[1,2,3]
  return %4
}
)", "Squeeze", {"axes"}, 1},
    {R"(opset 12
graph {
  %0 = input f32[2,3]
  %1 = weight i64[1] [1]
  %2 = ReduceSum(%0, %1) {keepdims=0} : f32[2]
  return %2
}
)", "ReduceSum", {"axes", "keepdims"}, 1},
    {R"(opset 18
graph {
  %0 = input f32[2,3]
  %1 = ReduceMean(%0) {axes=[1], keepdims=1} : f32[2,1]
  return %1
}
)", "ReduceMean", {"keepdims"}, 2},
    {R"(opset 20
graph {
  %0 = input f32[1,4,1]
  %1 = DFT(%0) : f32[1,4,2]
  return %1
}
)", "DFT", {}, 3},
    {R"(opset 11
graph {
  %0 = input f32[1,1,2,2]
  %1 = weight f32[4] [1.0, 1.0, 2.0, 2.0]
  %2 = Resize(%0, _, %1) {mode="nearest"} : f32[1,1,4,4]
  return %2
}
)", "Resize", {"mode"}, 3},
    {R"(opset 11
graph {
  %0 = input f32[2,3,4]
  %1 = Softmax(%0) : f32[2,3,4]
  %2 = LogSoftmax(%1) {axis=2} : f32[2,3,4]
  return %2
}
)", "Softmax", {"axis"}, 1},
    {R"(opset 7
graph {
  %0 = input f32[2,3]
  %1 = input f32[2,3]
  %2 = Max(%0, %1) : f32[2,3]
  %3 = ArgMax(%2) {axis=1, select_last_index=0} : i64[2,1]
  return %3
}
)", "ArgMax", {"axis"}, 1},
    // Pad-18's axes: earlier opsets write the pads of every axis (here as Pad-2's attribute).
    {R"(opset 10
graph {
  %0 = input f32[2,3]
  %1 = weight i64[2] [1, 2]
  %2 = weight i64[1] [-1]
  %3 = Pad(%0, %1, _, %2) : f32[2,6]
  return %3
}
)", "Pad", {"pads"}, 1},
    {R"(opset 18
graph {
  %0 = input f32[2,3]
  %1 = weight i64[2] [1, 2]
  %2 = weight i64[1] [-1]
  %3 = Pad(%0, %1, _, %2) : f32[2,6]
  return %3
}
)", "Pad", {}, 4},
    // The pre-13 coercion to 2-D at a middle axis.
    {R"(opset 11
graph {
  %0 = input f32[2,3,4]
  %1 = Softmax(%0) {axis=1, coerce_2d=1} : f32[2,3,4]
  %2 = Hardmax(%1) {axis=0, coerce_2d=1} : f32[2,3,4]
  return %2
}
)", "Softmax", {"axis"}, 1},
    // A trailing optional input written as the empty name stays one.
    {R"(opset 13
graph {
  %0 = input f32[2,3]
  %1 = weight f32[] [-0.5]
  %2 = Clip(%0, %1, _) : f32[2,3]
  return %2
}
)", "Clip", {}, 3},
    {R"(opset 18
graph {
  %0 = input f32[1,1,5,5]
  %1 = LpPool(%0) {ceil_mode=1, dilations=[2, 1], kernel_shape=[2, 2], strides=[2, 2]} : f32[1,1,2,3]
  return %1
}
)", "LpPool", {"ceil_mode", "dilations", "kernel_shape", "strides"}, 1},
    // Opset 19's wrap and AveragePool dilations, opset 18's antialias.
    {R"(opset 19
graph {
  %0 = input f32[2,3]
  %1 = weight i64[4] [1, 0, 0, 2]
  %2 = Pad(%0, %1) {mode="wrap"} : f32[3,5]
  return %2
}
)", "Pad", {"mode"}, 2},
    {R"(opset 19
graph {
  %0 = input f32[1,1,5]
  %1 = AveragePool(%0) {count_include_pad=1, dilations=[2], kernel_shape=[2], pads=[1, 1]} : f32[1,1,5]
  return %1
}
)", "AveragePool", {"count_include_pad", "dilations", "kernel_shape", "pads"}, 1},
    {R"(opset 18
graph {
  %0 = input f32[1,1,8]
  %1 = weight f32[3] [1, 1, 0.5]
  %2 = Resize(%0, _, %1) {antialias=1, mode="cubic"} : f32[1,1,4]
  return %2
}
)", "Resize", {"antialias", "mode"}, 3},
};

const SchemaVersion* versionOf(const onnx::ModelProto& model, const std::string& op) {
  return schemaAt(op, static_cast<int>(model.opset_import(0).version()));
}

TEST(OpsetForms, ExportWritesTheFormAndImportReadsItBack) {
  for (const FormCase& c : kCases) {
    SCOPED_TRACE(c.text);
    const Graph graph = parseGraph(c.text);
    ASSERT_FALSE(verifyStructure(graph));
    const onnx::ModelProto model = exportModel(graph);
    EXPECT_EQ(model.opset_import(0).version(), graph.opset());
    EXPECT_EQ(model.ir_version(), irVersionFor(graph.opset()));
    const onnx::NodeProto* node = nullptr;
    for (const auto& n : model.graph().node())
      if (n.op_type() == c.op && !node) node = &n;
    ASSERT_NE(node, nullptr);
    std::vector<std::string> attrs;
    for (const auto& a : node->attribute()) attrs.push_back(a.name());
    EXPECT_EQ(attrs, c.attrs);
    EXPECT_EQ(node->input_size(), c.inputs);
    ASSERT_NE(versionOf(model, c.op), nullptr);
    for (const auto& a : node->attribute()) {
      EXPECT_NE(versionOf(model, c.op)->attr(a.name()), nullptr) << a.name();
    }
    if (graph.opset() <= knownOpset()) {
      EXPECT_EQ(checkModel(model), std::nullopt);
    }
    if (graph.opset() < 9) {  // ir_version 3: every initializer is a graph input too
      for (const auto& init : model.graph().initializer()) {
        bool listed = false;
        for (const auto& in : model.graph().input()) listed = listed || in.name() == init.name();
        EXPECT_TRUE(listed) << init.name();
      }
    }

    const Graph back = importModel(model);
    EXPECT_EQ(back.opset(), graph.opset());
    EXPECT_EQ(serializeModel(exportModel(back)), serializeModel(model));  // a fixpoint
    std::vector<Tensor> inputs;
    for (ValueId v : graph.inputs()) {
      Tensor t(graph.value(v).type);
      for (size_t k = 0; k < t.data.size(); ++k) t.data[k] = 0.25 * static_cast<double>(k % 7) - 0.5;
      inputs.push_back(t);
    }
    EXPECT_EQ(runGraph(back, inputs), runGraph(graph, inputs));
  }
}

TEST(OpsetForms, TextFormKeepsTheOpset) {
  const Graph g = parseGraph(kCases[0].text);
  EXPECT_EQ(g.opset(), 9);
  EXPECT_EQ(printGraph(g), kCases[0].text);
  EXPECT_EQ(parseGraph("graph {\n  %0 = input f32[1]\n  return %0\n}\n").opset(), kCanonicalOpset);
}

TEST(OpsetForms, WhatAnOpsetCannotExpressIsRefused) {
  auto refusal = [](const char* text) -> std::string {
    try {
      exportModel(parseGraph(text));
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  // ArgMax's select_last_index = 1 needs opset 12.
  EXPECT_NE(refusal("opset 11\ngraph {\n  %0 = input f32[2,3]\n  %1 = ArgMax(%0) {select_last_index=1} : i64[1,3]\n"
                    "  return %1\n}\n").find("select_last_index"), std::string::npos);
  // Softmax over a middle axis means something else before opset 13.
  EXPECT_NE(refusal("opset 12\ngraph {\n  %0 = input f32[2,3,4]\n  %1 = Softmax(%0) {axis=1} : f32[2,3,4]\n"
                    "  return %1\n}\n").find("last axis"), std::string::npos);
  // Relu takes integers only from opset 14.
  EXPECT_NE(refusal("opset 13\ngraph {\n  %0 = input i32[2]\n  %1 = Relu(%0) : i32[2]\n  return %1\n}\n").find("i32"),
            std::string::npos);
  EXPECT_EQ(refusal("opset 14\ngraph {\n  %0 = input i32[2]\n  %1 = Relu(%0) : i32[2]\n  return %1\n}\n"), "");
  // Shape's start needs opset 15; negative axes need opset 11.
  EXPECT_NE(refusal("opset 14\ngraph {\n  %0 = input f32[2,3]\n  %1 = Shape(%0) {start=1} : i64[1]\n  return %1\n}\n"),
            "");
  EXPECT_NE(refusal("opset 10\ngraph {\n  %0 = input f32[2,3]\n  %1 = Flatten(%0) {axis=-1} : f32[2,3]\n"
                    "  return %1\n}\n").find("negative"), std::string::npos);
  // What opset 18 added is refused before it, opset 17 included; defaults are dropped.
  const char* scatterMax = "graph {\n  %0 = input f32[3]\n  %1 = weight i64[2] [0, 0]\n  %2 = input f32[2]\n"
                           "  %3 = ScatterElements(%0, %1, %2) {reduction=\"max\"} : f32[3]\n  return %3\n}\n";
  EXPECT_NE(refusal(scatterMax).find("needs opset 18"), std::string::npos);
  EXPECT_EQ(refusal((std::string("opset 18\n") + scatterMax).c_str()), "");
  EXPECT_NE(refusal("opset 16\ngraph {\n  %0 = input f32[1,1,4]\n  %1 = LpPool(%0) {ceil_mode=1, kernel_shape=[3], "
                    "strides=[2]} : f32[1,1,2]\n  return %1\n}\n").find("ceil_mode"), std::string::npos);
  const onnx::ModelProto lp = exportModel(parseGraph(
      "graph {\n  %0 = input f32[1,1,4]\n  %1 = LpPool(%0) {ceil_mode=0, dilations=[1], kernel_shape=[3]} : f32[1,1,2]\n"
      "  return %1\n}\n"));
  EXPECT_EQ(lp.graph().node(0).attribute_size(), 1);  // kernel_shape only
  EXPECT_EQ(checkModel(lp), std::nullopt);
  // Pad's wrap needs 19, AveragePool's dilations 19 (dropped at 1 before), antialias 18.
  EXPECT_NE(refusal("opset 18\ngraph {\n  %0 = input f32[3]\n  %1 = weight i64[2] [1, 1]\n"
                    "  %2 = Pad(%0, %1) {mode=\"wrap\"} : f32[5]\n  return %2\n}\n").find("needs opset 19"),
            std::string::npos);
  EXPECT_NE(refusal("opset 18\ngraph {\n  %0 = input f32[1,1,5]\n  %1 = AveragePool(%0) {dilations=[2], kernel_shape=[2]} : "
                    "f32[1,1,3]\n  return %1\n}\n").find("dilations"), std::string::npos);
  EXPECT_EQ(refusal("graph {\n  %0 = input f32[1,1,5]\n  %1 = AveragePool(%0) {dilations=[1], kernel_shape=[2]} : "
                    "f32[1,1,4]\n  return %1\n}\n"), "");
  EXPECT_NE(refusal("graph {\n  %0 = input f32[4]\n  %1 = weight f32[1] [0.5]\n"
                    "  %2 = Resize(%0, _, %1) {antialias=1, mode=\"linear\"} : f32[2]\n  return %2\n}\n").find("antialias"),
            std::string::npos);
  // A middle-axis coercion means something else from opset 13 (unless the rest is 1s).
  EXPECT_NE(refusal("opset 13\ngraph {\n  %0 = input f32[2,3,4]\n  %1 = Softmax(%0) {axis=1, coerce_2d=1} : f32[2,3,4]\n"
                    "  return %1\n}\n").find("coerce_2d"), std::string::npos);
  EXPECT_EQ(refusal("opset 13\ngraph {\n  %0 = input f32[2,3,1]\n  %1 = Softmax(%0) {axis=1, coerce_2d=1} : f32[2,3,1]\n"
                    "  return %1\n}\n"), "");
  // An exclusion: Dropout's inference mask is unspecified before opset 12.
  EXPECT_NE(refusal("opset 11\ngraph {\n  %0 = input f32[2]\n  %1, %2 = Dropout(%0) : f32[2], bool[2]\n"
                    "  return %1\n}\n").find("opsetExclusions"), std::string::npos);
}

// The coercion's meaning: softmax over the flattened [axis, rank), as Reshape + Softmax say.
TEST(OpsetForms, CoercedSoftmaxIsTheSoftmaxOfTheFlattenedTail) {
  const Graph coerced = parseGraph(
      "graph {\n  %0 = input f32[2,3,2]\n  %1 = LogSoftmax(%0) {axis=1, coerce_2d=1} : f32[2,3,2]\n  return %1\n}\n");
  const Graph flat = parseGraph(
      "graph {\n  %0 = input f32[2,3,2]\n  %1 = weight i64[2] [2, 6]\n  %2 = Reshape(%0, %1) : f32[2,6]\n"
      "  %3 = LogSoftmax(%2) {axis=1} : f32[2,6]\n  %4 = weight i64[3] [2, 3, 2]\n  %5 = Reshape(%3, %4) : f32[2,3,2]\n"
      "  return %5\n}\n");
  Tensor x(TensorType{DType::Float32, {2, 3, 2}});
  for (size_t k = 0; k < x.data.size(); ++k) x.data[k] = 0.3 * static_cast<double>(k % 5) - 0.4;
  const auto a = runGraph(coerced, {x}), b = runGraph(flat, {x});
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(a[0].data.size(), b[0].data.size());
  for (size_t k = 0; k < a[0].data.size(); ++k) EXPECT_NEAR(a[0].data[k], b[0].data[k], 1e-6) << k;
  const auto perAxis = runGraph(parseGraph(
      "graph {\n  %0 = input f32[2,3,2]\n  %1 = LogSoftmax(%0) {axis=1} : f32[2,3,2]\n  return %1\n}\n"), {x});
  EXPECT_NE(a[0].data, perAxis[0].data);
}

TEST(OpsetForms, AvailabilityFollowsTheHistory) {
  EXPECT_FALSE(availableAt("Mod", 9));
  EXPECT_TRUE(availableAt("Mod", 10));
  EXPECT_FALSE(availableAt("LayerNormalization", 16));
  EXPECT_TRUE(availableAt("LayerNormalization", 17));
  EXPECT_FALSE(availableAt("HardSwish", 13));
  EXPECT_FALSE(availableAt("Resize", 10));  // an exclusion: Resize-10 is not modelled
  EXPECT_TRUE(availableAt("Resize", 11));
  const SchemaVersion* greater7 = schemaAt("Greater", 7);
  const SchemaVersion* greater9 = schemaAt("Greater", 9);
  ASSERT_TRUE(greater7 && greater9);
  EXPECT_FALSE(greater7->typeParams[0].allows(DType::Int32));
  EXPECT_TRUE(greater9->typeParams[0].allows(DType::Int32));
  EXPECT_EQ(schemaAt("Upsample", 10), nullptr);  // deprecated at 10
}

}  // namespace
}  // namespace nnfuzz
