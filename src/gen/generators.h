// generators.h - the concrete generators (internal to the gen module).
#pragma once

#include <memory>

#include "gen/generator.h"

namespace nnfuzz {

std::unique_ptr<Generator> makeIsraGen(const GenConfig& config);
std::unique_ptr<Generator> makeDeclGen(const GenConfig& config);
std::unique_ptr<Generator> makeRandoopGen(const GenConfig& config);
std::unique_ptr<Generator> makeGraphGen(const GenConfig& config);
std::unique_ptr<Generator> makeNeuriGen(const GenConfig& config);

}  // namespace nnfuzz
