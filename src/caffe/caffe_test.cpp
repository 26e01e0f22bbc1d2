// caffe_test.cpp - Caffe export: the golden prototxt of a fixed model, the caffemodel and
// prototxt parsed back, and the mappings' refusals where Caffe's semantics differ.
#include <fstream>
#include <sstream>

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "caffe/export.h"
#include "caffe/layer_map.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

// Conv (padded, grouped, dilated) -> BatchNormalization -> Relu -> MaxPool (ceil) -> Gemm-free
// tail: Flatten, MatMul by a weight, Add of a scalar weight (Power), Softmax.
constexpr const char* kModel = R"(graph {
  %0 = input f32[1,2,5,5]
  %1 = weight f32[2,1,2,2] [0.5, -1.0, 0.25, 2.0, 1.0, 1.0, -0.5, 0.5]
  %2 = weight f32[2] [0.1, -0.2]
  %3 = Conv(%0, %1, %2) {dilations=[1,1], group=2, pads=[1,1,1,1], strides=[1,1]} : f32[1,2,6,6]
  %4 = weight f32[2] [1.0, 2.0]
  %5 = weight f32[2] [0.0, 0.5]
  %6 = weight f32[2] [0.1, 0.2]
  %7 = weight f32[2] [1.0, 4.0]
  %8 = BatchNormalization(%3, %4, %5, %6, %7) {epsilon=0.001} : f32[1,2,6,6]
  %9 = Relu(%8) : f32[1,2,6,6]
  %10 = MaxPool(%9) {ceil_mode=1, kernel_shape=[3,3], strides=[2,2]} : f32[1,2,3,3]
  %11 = Flatten(%10) {axis=1} : f32[1,18]
  %12 = weight f32[18,3] [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
  %13 = MatMul(%11, %12) : f32[1,3]
  %14 = weight f32[1] [0.5]
  %15 = Add(%13, %14) : f32[1,3]
  %16 = Softmax(%15) {axis=1} : f32[1,3]
  return %16, %10
})";

std::string readText(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(CaffeExport, GoldenPrototxt) {
  const CaffeModel model = exportCaffe(parseGraph(kModel));
  const std::string golden = std::string(NNFUZZ_SOURCE_DIR) + "/src/caffe/testdata/small.prototxt";
  if (std::getenv("NNFUZZ_UPDATE_GOLDEN")) std::ofstream(golden) << deployText(model);
  EXPECT_EQ(deployText(model), readText(golden)) << "rerun with NNFUZZ_UPDATE_GOLDEN=1 after a deliberate change";
  EXPECT_EQ(model.inputNames, (std::vector<std::string>{"input_0"}));
  EXPECT_EQ(model.outputNames, (std::vector<std::string>{"output_0", "output_1"}));
  EXPECT_EQ(model.outputLayers, (std::vector<std::pair<std::string, int>>{{"output_0", 0}, {"output_1", 0}}));
}

TEST(CaffeExport, CaffemodelAndPrototxtParseBack) {
  const Graph g = parseGraph(kModel);
  const CaffeModel model = exportCaffe(g);
  nnfuzz::caffe::NetParameter weights, deploy;
  ASSERT_TRUE(weights.ParseFromString(weightsBytes(model)));
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(deployText(model), &deploy));
  ASSERT_EQ(weights.layer_size(), deploy.layer_size());
  std::vector<std::string> types;
  for (int i = 0; i < weights.layer_size(); ++i) {
    EXPECT_EQ(weights.layer(i).name(), deploy.layer(i).name());
    EXPECT_EQ(deploy.layer(i).blobs_size(), 0);
    types.push_back(weights.layer(i).type());
  }
  EXPECT_EQ(types, (std::vector<std::string>{"Input", "Convolution", "BatchNorm", "Scale", "ReLU", "Pooling",
                                             "Flatten", "InnerProduct", "Power", "Softmax"}));
  // Every learned blob holds the weight it came from, in its shape.
  const auto& conv = weights.layer(1);
  ASSERT_EQ(conv.blobs_size(), 2);
  EXPECT_EQ(conv.blobs(0).shape().dim_size(), 4);
  EXPECT_FLOAT_EQ(conv.blobs(0).data(3), 2.0f);
  EXPECT_FLOAT_EQ(conv.blobs(1).data(1), -0.2f);
  EXPECT_EQ(conv.convolution_param().group(), 2u);
  const auto& bn = weights.layer(2);
  ASSERT_EQ(bn.blobs_size(), 3);  // mean, variance, scale factor 1
  EXPECT_FLOAT_EQ(bn.blobs(1).data(1), 4.0f);
  EXPECT_FLOAT_EQ(bn.blobs(2).data(0), 1.0f);
  const auto& scale = weights.layer(3);
  EXPECT_FLOAT_EQ(scale.blobs(0).data(1), 2.0f);  // gamma
  EXPECT_FLOAT_EQ(scale.blobs(1).data(1), 0.5f);  // beta
  EXPECT_EQ(weights.layer(7).blobs(0).shape().dim(0), 3);  // N x K: the 18 x 3 weight transposed
  EXPECT_EQ(weights.layer(7).blobs(0).shape().dim(1), 18);
  EXPECT_FLOAT_EQ(weights.layer(7).blobs(0).data(18 + 1), 1.0f);  // row 1 = column 1 of the weight
  EXPECT_FLOAT_EQ(weights.layer(7).blobs(0).data(18 + 0), 0.0f);
  EXPECT_FALSE(weights.layer(7).inner_product_param().transpose());
  EXPECT_EQ(weights.layer(7).inner_product_param().axis(), 1);
  EXPECT_FLOAT_EQ(weights.layer(8).power_param().shift(), 0.5f);
  EXPECT_EQ(weights.layer(5).top(0), "output_1");  // the pooled blob is graph output 1
}

TEST(CaffeExport, RefusesWhatCaffeComputesDifferently) {
  // Asymmetric pads, an even LRN window, a padded average pool without count_include_pad,
  // and a ceil-mode pool whose last window Caffe would clip away.
  const char* cases[] = {
      R"(graph {
  %0 = input f32[1,1,4,4]
  %1 = MaxPool(%0) {kernel_shape=[2,2], pads=[0,0,1,1]} : f32[1,1,4,4]
  return %1
})",
      R"(graph {
  %0 = input f32[1,4,2,2]
  %1 = LRN(%0) {size=2} : f32[1,4,2,2]
  return %1
})",
      R"(graph {
  %0 = input f32[1,1,4,4]
  %1 = AveragePool(%0) {kernel_shape=[3,3], pads=[1,1,1,1]} : f32[1,1,4,4]
  return %1
})",
      R"(graph {
  %0 = input f32[1,1,5,5]
  %1 = MaxPool(%0) {ceil_mode=0, kernel_shape=[2,2], strides=[2,2]} : f32[1,1,2,2]
  return %1
})"};
  for (const char* text : cases) {
    const Graph g = parseGraph(text);
    EXPECT_THROW(exportCaffe(g), Error) << text;
    EXPECT_FALSE(caffeProblem(g).empty());
  }
  // The same pool with Caffe's size (ceil: 3 x 3) maps.
  EXPECT_EQ(caffeProblem(parseGraph(R"(graph {
  %0 = input f32[1,1,5,5]
  %1 = MaxPool(%0) {ceil_mode=1, kernel_shape=[2,2], strides=[2,2]} : f32[1,1,3,3]
  return %1
})")), "");
}

TEST(CaffeExport, BiasAndScaleSpanWholeAxes) {
  const Graph g = parseGraph(R"(graph {
  %0 = input f32[2,3,4]
  %1 = weight f32[3,1] [1.0, 2.0, 3.0]
  %2 = Mul(%0, %1) : f32[2,3,4]
  %3 = weight f32[4] [1.0, 2.0, 3.0, 4.0]
  %4 = Sub(%2, %3) : f32[2,3,4]
  return %4
})");
  const CaffeModel model = exportCaffe(g);
  const auto& scale = model.weights.layer(1);
  EXPECT_EQ(scale.type(), "Scale");
  EXPECT_EQ(scale.scale_param().axis(), 1);
  EXPECT_EQ(scale.scale_param().num_axes(), 1);
  const auto& bias = model.weights.layer(2);
  EXPECT_EQ(bias.type(), "Scale");
  EXPECT_EQ(bias.scale_param().axis(), 2);
  EXPECT_TRUE(bias.scale_param().bias_term());
  EXPECT_FLOAT_EQ(bias.blobs(0).data(3), 1.0f);   // unit scale
  EXPECT_FLOAT_EQ(bias.blobs(1).data(3), -4.0f);  // Sub adds the negated weight
}

TEST(CaffeExport, NpyHeader) {
  const std::string bytes = npyBytes(Tensor(TensorType{DType::Float32, {2, 3}}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  const size_t headerLen = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
  EXPECT_EQ((10 + headerLen) % 64, 0u);
  EXPECT_NE(bytes.find("'shape': (2,3)"), std::string::npos);
  EXPECT_EQ(bytes.size(), 10 + headerLen + 6 * sizeof(float));
}

}  // namespace
}  // namespace nnfuzz
