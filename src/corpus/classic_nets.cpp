// classic_nets.cpp - LeNet-5, AlexNet, VGG-16 (the plain stacks).
#include "corpus/classic_nets.h"

#include "corpus/classic_blocks.h"

namespace nnfuzz {

namespace {

BuiltNet leNet5(uint64_t seed) {
  NetBuilder b("LeNet-5", seed);
  ValueId x = b.input({1, 1, 32, 32});
  x = b.avgPool(b.relu(b.conv(x, 6, 5)), 2, 2);
  x = b.avgPool(b.relu(b.conv(x, 16, 5)), 2, 2);
  x = b.flatten(x);
  x = b.relu(b.fc(x, 120));
  x = b.relu(b.fc(x, 84));
  return b.finish({b.softmax(b.fc(x, 10), 1)});
}

BuiltNet alexNet(uint64_t seed) {
  NetBuilder b("AlexNet", seed);
  ValueId x = b.input({1, 3, 127, 127});
  x = b.maxPool(b.lrn(b.relu(b.conv(x, 12, 11, 4)), 5), 3, 2);
  x = b.maxPool(b.lrn(b.relu(b.conv(x, 32, 5, 1, 2)), 5), 3, 2);
  x = b.relu(b.conv(x, 48, 3, 1, 1));
  x = b.relu(b.conv(x, 48, 3, 1, 1));
  x = b.maxPool(b.relu(b.conv(x, 32, 3, 1, 1)), 3, 2);
  x = b.flatten(x);
  x = b.relu(b.fc(x, 512));
  x = b.relu(b.fc(x, 512));
  return b.finish({b.softmax(b.fc(x, 10), 1)});
}

BuiltNet vgg16(uint64_t seed) {
  NetBuilder b("VGG-16", seed);
  ValueId x = b.input({1, 3, 32, 32});
  const std::vector<std::pair<int, int64_t>> stages{{2, 8}, {2, 16}, {3, 32}, {3, 64}, {3, 64}};
  for (const auto& [convs, width] : stages) {
    for (int i = 0; i < convs; ++i) x = b.relu(b.conv(x, width, 3, 1, 1));
    x = b.maxPool(x, 2, 2);
  }
  x = b.flatten(x);
  x = b.relu(b.fc(x, 512));
  x = b.relu(b.fc(x, 512));
  return b.finish({b.softmax(b.fc(x, 10), 1)});
}

}  // namespace

std::vector<BuiltNet> classicNets(uint64_t seed) {
  std::vector<BuiltNet> nets;
  nets.push_back(leNet5(seed));
  nets.push_back(alexNet(seed + 1));
  nets.push_back(vgg16(seed + 2));
  for (BuiltNet& n : classicBlocks(seed + 3)) nets.push_back(std::move(n));
  return nets;
}

std::vector<std::string> classicNetNames() {
  std::vector<std::string> names{"LeNet-5", "AlexNet", "VGG-16"};
  for (const std::string& n : classicBlockNames()) names.push_back(n);
  return names;
}

}  // namespace nnfuzz
