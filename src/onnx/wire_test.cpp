// wire_test.cpp - the wire writer against protobuf's own serialisation, field by field at
// the varint edges (whole exported models: cli/generated_models_test.cpp).
#include <gtest/gtest.h>

#include <limits>

#include "onnx/export.h"
#include "onnx/tensor_proto.h"
#include "onnx/wire.h"

namespace nnfuzz {
namespace {

std::string serialized(const google::protobuf::MessageLite& m) {
  std::string bytes;
  EXPECT_TRUE(m.SerializeToString(&bytes));
  return bytes;
}

TEST(Wire, FieldsMatchProtobufAtTheVarintEdges) {
  onnx::AttributeProto a;
  Wire w;
  a.set_name("axes");
  w.stringField(1, "axes");
  a.set_f(-0.0f);
  w.floatField(2, -0.0f);
  a.set_i(std::numeric_limits<int64_t>::min());
  w.intField(3, std::numeric_limits<int64_t>::min());
  for (int64_t x : {int64_t{0}, int64_t{127}, int64_t{128}, int64_t{16383}, int64_t{16384}, int64_t{-1},
                    std::numeric_limits<int64_t>::max()}) {
    a.add_ints(x);
    w.intField(8, x);
  }
  a.set_type(onnx::AttributeProto::INTS);
  w.intField(20, onnx::AttributeProto::INTS);
  EXPECT_EQ(w.bytes, serialized(a));
}

TEST(Wire, NestedLengthsPastOneByte) {
  for (size_t size : {size_t{0}, size_t{127}, size_t{128}, size_t{20000}}) {
    onnx::ValueInfoProto info;
    info.set_name(std::string(size, 'x'));
    info.mutable_type()->mutable_tensor_type()->set_elem_type(1);
    Wire w;
    w.stringField(1, info.name());
    const size_t type = w.open(2);
    const size_t tensor = w.open(1);
    w.intField(1, 1);
    w.close(tensor);
    w.close(type);
    EXPECT_EQ(w.bytes, serialized(info)) << size;
  }
}

TEST(Wire, TensorFieldsMatchSetTensorProto) {
  const Tensor t(TensorType{DType::Int64, {2, 0, 3}}, {});
  const Tensor u(TensorType{DType::Float32, {3}}, {1.5, -0.0, 1e30});
  for (const Tensor* x : {&t, &u}) {
    Wire w;
    writeTensorFields(w, *x, "weight_3");
    EXPECT_EQ(w.bytes, serialized(toTensorProto(*x, "weight_3")));
  }
}

// Before ir_version 4 the main graph's initializers are graph inputs too (opset 8).
TEST(Wire, InitializersAsInputsBeforeIrVersion4) {
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[2]
  %1 = weight f32[2] [1.0, -2.0]
  %2 = Add(%0, %1) : f32[2]
  return %2
}
)");
  const std::string bytes = exportModelBytes(g, 8);
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(bytes));
  EXPECT_EQ(serializeModel(model), bytes);
  EXPECT_EQ(model.ir_version(), 3);
  ASSERT_EQ(model.graph().input_size(), 2);
  EXPECT_EQ(model.graph().input(1).name(), "weight_0");
  EXPECT_EQ(model.graph().initializer(0).name(), "weight_0");
}

}  // namespace
}  // namespace nnfuzz
