// classic_nets.h - tier 2 of the corpus: classic network topologies built by nnfuzz itself
// with random weights (nothing downloaded). Topologies are faithful (layer kinds, kernels,
// strides, paddings, branch structure); channel widths are divided by 8 and inputs are
// small so the double-precision reference stays quick.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "corpus/net_builder.h"

namespace nnfuzz {

/// Every classic network, built with weights drawn from `seed`.
std::vector<BuiltNet> classicNets(uint64_t seed);
/// The names classicNets gives, in order.
std::vector<std::string> classicNetNames();

}  // namespace nnfuzz
