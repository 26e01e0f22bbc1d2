#include "corpus/classic_blocks.h"

namespace nnfuzz {

namespace {

/// ResNet basic block: conv-bn-relu-conv-bn plus the shortcut (a strided 1x1 projection
/// when the shape changes), then relu.
ValueId basicBlock(NetBuilder& b, ValueId x, int64_t width, int64_t stride) {
  ValueId y = b.relu(b.batchNorm(b.conv(x, width, 3, stride, 1)));
  y = b.batchNorm(b.conv(y, width, 3, 1, 1));
  const bool project = stride != 1 || b.shape(x)[1] != width;
  const ValueId shortcut = project ? b.batchNorm(b.conv(x, width, 1, stride)) : x;
  return b.relu(b.add(y, shortcut));
}

BuiltNet resNet18Stage(uint64_t seed) {
  NetBuilder b("ResNet-18 stage", seed);
  ValueId x = b.input({1, 8, 16, 16});
  x = basicBlock(b, x, 16, 2);  // the stage's first block downsamples
  x = basicBlock(b, x, 16, 1);
  return b.finish({x});
}

/// ResNet-50 bottleneck: 1x1 reduce, 3x3, 1x1 expand (x4), projection shortcut if needed.
ValueId bottleneck(NetBuilder& b, ValueId x, int64_t width, int64_t stride) {
  ValueId y = b.relu(b.batchNorm(b.conv(x, width, 1)));
  y = b.relu(b.batchNorm(b.conv(y, width, 3, stride, 1)));
  y = b.batchNorm(b.conv(y, 4 * width, 1));
  const bool project = stride != 1 || b.shape(x)[1] != 4 * width;
  const ValueId shortcut = project ? b.batchNorm(b.conv(x, 4 * width, 1, stride)) : x;
  return b.relu(b.add(y, shortcut));
}

BuiltNet resNet50Stage(uint64_t seed) {
  NetBuilder b("ResNet-50 stage", seed);
  ValueId x = b.input({1, 32, 8, 8});
  x = bottleneck(b, x, 8, 2);
  x = bottleneck(b, x, 8, 1);
  x = bottleneck(b, x, 8, 1);
  return b.finish({x});
}

/// MobileNet-v1: depthwise 3x3 (group = channels) and pointwise 1x1, each bn + ReLU6.
ValueId depthwiseSeparable(NetBuilder& b, ValueId x, int64_t out, int64_t stride) {
  const int64_t c = b.shape(x)[1];
  x = b.relu6(b.batchNorm(b.conv(x, c, 3, stride, 1, c)));
  return b.relu6(b.batchNorm(b.conv(x, out, 1)));
}

BuiltNet mobileNetV1(uint64_t seed) {
  NetBuilder b("MobileNet-v1 blocks", seed);
  ValueId x = b.input({1, 3, 32, 32});
  x = b.relu6(b.batchNorm(b.conv(x, 4, 3, 2, 1)));
  x = depthwiseSeparable(b, x, 8, 1);
  x = depthwiseSeparable(b, x, 16, 2);
  x = depthwiseSeparable(b, x, 16, 1);
  x = b.flatten(b.globalAvgPool(x));
  return b.finish({b.softmax(b.fc(x, 10), 1)});
}

/// MobileNet-v2 inverted residual: 1x1 expand (x6) + ReLU6, depthwise 3x3 + ReLU6, linear
/// 1x1 projection; the residual when stride 1 and widths match.
ValueId invertedResidual(NetBuilder& b, ValueId x, int64_t out, int64_t stride) {
  const int64_t c = b.shape(x)[1];
  ValueId y = b.relu6(b.batchNorm(b.conv(x, 6 * c, 1)));
  y = b.relu6(b.batchNorm(b.conv(y, 6 * c, 3, stride, 1, 6 * c)));
  y = b.batchNorm(b.conv(y, out, 1));
  return stride == 1 && c == out ? b.add(x, y) : y;
}

BuiltNet mobileNetV2(uint64_t seed) {
  NetBuilder b("MobileNet-v2 blocks", seed);
  ValueId x = b.input({1, 4, 16, 16});
  x = invertedResidual(b, x, 4, 1);
  x = invertedResidual(b, x, 8, 2);
  x = invertedResidual(b, x, 8, 1);
  return b.finish({x});
}

/// SSD: per feature map a 3x3 box-regression conv (anchors x 4) and a 3x3 class conv
/// (anchors x classes), moved to NHWC and flattened per anchor, concatenated across maps.
BuiltNet ssdHead(uint64_t seed) {
  NetBuilder b("SSD head", seed);
  constexpr int64_t kAnchors = 3, kClasses = 5;
  ValueId x = b.input({1, 3, 32, 32});
  const ValueId map1 = b.relu(b.conv(b.relu(b.conv(x, 8, 3, 2, 1)), 8, 3, 2, 1));  // 8x8
  const ValueId map2 = b.relu(b.conv(map1, 16, 3, 2, 1));                          // 4x4
  std::vector<ValueId> boxes, scores;
  for (ValueId map : {map1, map2}) {
    const ValueId loc = b.transpose(b.conv(map, kAnchors * 4, 3, 1, 1), {0, 2, 3, 1});
    const ValueId conf = b.transpose(b.conv(map, kAnchors * kClasses, 3, 1, 1), {0, 2, 3, 1});
    boxes.push_back(b.reshape(loc, {1, -1, 4}));
    scores.push_back(b.reshape(conf, {1, -1, kClasses}));
  }
  return b.finish({b.concat(boxes, 1), b.softmax(b.concat(scores, 1), 2)});
}

/// GoogLeNet's Inception block: 1x1 | 1x1-3x3 | 1x1-5x5 | 3x3 max pool-1x1, concatenated.
BuiltNet inception(uint64_t seed) {
  NetBuilder b("Inception block", seed);
  ValueId x = b.input({1, 24, 12, 12});
  const ValueId a = b.relu(b.conv(x, 8, 1));
  const ValueId c = b.relu(b.conv(b.relu(b.conv(x, 12, 1)), 16, 3, 1, 1));
  const ValueId d = b.relu(b.conv(b.relu(b.conv(x, 2, 1)), 4, 5, 1, 2));
  const ValueId e = b.relu(b.conv(b.maxPool(x, 3, 1, 1), 4, 1));
  return b.finish({b.concat({a, c, d, e}, 1)});
}

}  // namespace

std::vector<BuiltNet> classicBlocks(uint64_t seed) {
  std::vector<BuiltNet> nets;
  nets.push_back(resNet18Stage(seed));
  nets.push_back(resNet50Stage(seed + 1));
  nets.push_back(mobileNetV1(seed + 2));
  nets.push_back(mobileNetV2(seed + 3));
  nets.push_back(ssdHead(seed + 4));
  nets.push_back(inception(seed + 5));
  return nets;
}

std::vector<std::string> classicBlockNames() {
  return {"ResNet-18 stage", "ResNet-50 stage", "MobileNet-v1 blocks", "MobileNet-v2 blocks", "SSD head",
          "Inception block"};
}

}  // namespace nnfuzz
