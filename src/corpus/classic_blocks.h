// classic_blocks.h - the branching and mobile families of tier 2: a ResNet-18 stage, a
// ResNet-50 bottleneck stage, MobileNet-v1 and -v2 blocks, an SSD head over two feature
// maps, and an Inception block (see classic_nets.h for the scaling).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "corpus/net_builder.h"

namespace nnfuzz {

std::vector<BuiltNet> classicBlocks(uint64_t seed);
std::vector<std::string> classicBlockNames();

}  // namespace nnfuzz
