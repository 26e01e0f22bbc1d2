// col2im.cpp - Col2Im (opset 18): rearranges column blocks back into an image, the
// inverse of an im2col and the adjoint of a sliding window. input is N x (C * prod(block))
// x L; image_shape and block_shape (constant int64, one value per spatial dim) give the
// result N x C x image_shape...; dilations, strides (default 1) and pads (begin..., end...,
// default 0) place the blocks as a convolution would, so L must be the number of window
// positions, prod_i floor((image_i + pads - (dilation_i (block_i - 1) + 1)) / stride_i) + 1.
// Overlapping taps add up, taps in the padding are dropped.
//
// The sampler knows the input's C * prod(block) and L first, then draws the attributes,
// then an image and a block shape that fit both (an enumeration of the few candidates).
// A sum of products of exact inputs with 1: nothing is unstable.
#include <algorithm>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

struct Geometry {
  std::vector<int64_t> strides, dilations, pads;  // pads: begins then ends
  size_t rank() const { return strides.size(); }
  int64_t extent(size_t i, int64_t block) const { return dilations[i] * (block - 1) + 1; }
  // Window positions along dim i, or 0 when the block does not fit.
  int64_t positions(size_t i, int64_t image, int64_t block) const {
    const int64_t span = image + pads[i] + pads[i + rank()] - extent(i, block);
    return span < 0 ? 0 : span / strides[i] + 1;
  }
};

// The attributes, for `rank` spatial dims (the defaults where absent).
Geometry geometryOf(const Attributes& attrs, size_t rank) {
  Geometry g;
  g.strides = attrs.getInts("strides", std::vector<int64_t>(rank, 1));
  g.dilations = attrs.getInts("dilations", std::vector<int64_t>(rank, 1));
  g.pads = attrs.getInts("pads", std::vector<int64_t>(2 * rank, 0));
  return g;
}

// The spatial rank the attributes fix, if any is written.
std::optional<size_t> writtenRank(const Attributes& attrs) {
  if (attrs.has("strides")) return attrs.getInts("strides").size();
  if (attrs.has("dilations")) return attrs.getInts("dilations").size();
  if (attrs.has("pads")) return attrs.getInts("pads").size() / 2;
  return std::nullopt;
}

// Block shapes with prod | channels and per-dim position counts with product `positions`
// (one block, counts pair per entry) for which some image size within [1, maxImage] fits.
struct Candidate {
  std::vector<int64_t> blocks, counts;
};

void enumerate(const Geometry& g, int64_t channels, int64_t positions, int64_t maxImage, Candidate& partial,
               std::vector<Candidate>& out) {
  const size_t i = partial.blocks.size();
  if (i == g.rank()) {
    if (positions == 1) out.push_back(partial);
    return;
  }
  for (int64_t b = 1; b <= channels; ++b) {
    if (channels % b != 0) continue;
    for (int64_t l = 1; l <= positions; ++l) {
      if (positions % l != 0) continue;
      // Smallest image giving l positions: extent + (l - 1) * stride - pads.
      const int64_t smallest = g.extent(i, b) + (l - 1) * g.strides[i] - g.pads[i] - g.pads[i + g.rank()];
      if (smallest + g.strides[i] - 1 < 1 || smallest > maxImage) continue;
      partial.blocks.push_back(b);
      partial.counts.push_back(l);
      enumerate(g, channels / b, positions / l, maxImage, partial, out);
      partial.blocks.pop_back();
      partial.counts.pop_back();
    }
  }
}

std::vector<Candidate> candidates(const Geometry& g, const TensorType& input, int64_t maxImage) {
  std::vector<Candidate> out;
  Candidate partial;
  enumerate(g, input.shape[1], input.shape[2], maxImage, partial, out);
  return out;
}

void sampleCol2Im(OpDraft& d) {
  Rng& rng = *d.rng;
  const auto rank = static_cast<size_t>(rng.uniformInt(1, 3));
  Geometry g;
  for (size_t i = 0; i < rank; ++i) {
    g.strides.push_back(rng.bernoulli(0.6) ? 1 : rng.uniformInt(2, 3));
    g.dilations.push_back(rng.bernoulli(0.7) ? 1 : 2);
  }
  for (size_t i = 0; i < 2 * rank; ++i) g.pads.push_back(rng.bernoulli(0.6) ? 0 : rng.uniformInt(1, 2));
  // Without pads every attribute set has a fitting image (blocks of 1): keep them only if
  // this one has too.
  if (candidates(g, d.first(), shapeops::maxResultDim(*d.limits)).empty()) std::fill(g.pads.begin(), g.pads.end(), 0);
  writeInts(d.attrs, "strides", g.strides, 1, rng);
  writeInts(d.attrs, "dilations", g.dilations, 1, rng);
  writeInts(d.attrs, "pads", g.pads, 0, rng);
}

InputPattern col2imShapes(const OpDraft& d) {
  Rng& rng = *d.rng;
  const TensorType& input = d.first();
  const int64_t maxImage = shapeops::maxResultDim(*d.limits);
  if (d.inputTypes.size() == 1) {
    const size_t rank = writtenRank(d.attrs).value_or(static_cast<size_t>(rng.uniformInt(1, 3)));
    const Geometry g = geometryOf(d.attrs, rank);
    const std::vector<Candidate> all = candidates(g, input, maxImage);
    const Candidate& c = all[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(all.size()) - 1))];
    std::vector<int64_t> image;
    for (size_t i = 0; i < rank; ++i) {
      const int64_t smallest = g.extent(i, c.blocks[i]) + (c.counts[i] - 1) * g.strides[i] - g.pads[i] - g.pads[i + rank];
      image.push_back(rng.uniformInt(std::max<int64_t>(1, smallest), std::min(maxImage, smallest + g.strides[i] - 1)));
    }
    return InputPattern::constantTensor(int64Tensor(image));
  }
  // block_shape: one that gives the chosen image L positions (the one drawn with it does).
  const std::vector<int64_t> image = shapeops::intsOf(*d.constants[1]);
  const Geometry g = geometryOf(d.attrs, image.size());
  std::vector<std::vector<int64_t>> fitting;
  for (const Candidate& c : candidates(g, input, maxImage)) {
    bool fits = true;
    for (size_t i = 0; i < image.size() && fits; ++i) fits = g.positions(i, image[i], c.blocks[i]) == c.counts[i];
    if (fits) fitting.push_back(c.blocks);
  }
  return InputPattern::constantTensor(int64Tensor(rng.pick(fitting)));
}

InferResult inferCol2Im(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"dilations", "pads", "strides"});
  if (!err.empty()) return InferResult::fail(err);
  const TensorType& input = *a.inputs[0];
  for (size_t k = 1; k < 3; ++k)
    if (k >= a.inputs.size() || !a.inputs[k]) return InferResult::fail("image_shape and block_shape are required");
  if (auto e = shapeops::checkIndexVector(a, 1, "image_shape"); !e.empty()) return InferResult::fail(e);
  if (auto e = shapeops::checkIndexVector(a, 2, "block_shape"); !e.empty()) return InferResult::fail(e);
  const std::vector<int64_t> image = shapeops::intsOf(*a.constants[1]), block = shapeops::intsOf(*a.constants[2]);
  const size_t rank = image.size();
  if (rank == 0 || block.size() != rank) return InferResult::fail("image_shape and block_shape need one value per spatial dim");
  Geometry g;
  if (!readInts(a.attrs, "strides", rank, 1, 1, g.strides, err) || !readInts(a.attrs, "dilations", rank, 1, 1, g.dilations, err) ||
      !readInts(a.attrs, "pads", 2 * rank, 0, 0, g.pads, err))
    return InferResult::fail(err);
  int64_t blockSize = 1, positions = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (image[i] < 1 || block[i] < 1) return InferResult::fail("image and block dims must be positive");
    if (image[i] > (int64_t{1} << 20) || block[i] > (int64_t{1} << 20)) return InferResult::fail("image or block dims are too large");
    const int64_t count = g.positions(i, image[i], block[i]);
    if (count < 1) return InferResult::fail("a block does not fit the padded image");
    blockSize *= block[i];
    positions *= count;
  }
  if (input.shape[1] % blockSize != 0) return InferResult::fail("input dim 1 must be a multiple of the block size");
  if (input.shape[2] != positions)
    return InferResult::fail("input dim 2 must be the number of block positions (" + std::to_string(positions) + ")");
  Shape out{input.shape[0], input.shape[1] / blockSize};
  out.insert(out.end(), image.begin(), image.end());
  return {{TensorType{input.dtype, out}}, {}};
}

void col2imKernel(KernelArgs& a) {
  const Tensor& input = *a.inputs[0];
  const std::vector<int64_t> image = shapeops::intsOf(*a.inputs[1]), block = shapeops::intsOf(*a.inputs[2]);
  const size_t rank = image.size();
  const Geometry g = geometryOf(a.attrs, rank);
  std::vector<int64_t> counts(rank);
  for (size_t i = 0; i < rank; ++i) counts[i] = g.positions(i, image[i], block[i]);
  const int64_t blockSize = product(block), positions = product(counts), imageSize = product(image);
  const int64_t rows = input.type.shape[0] * input.type.shape[1];  // (n, c * blockSize + k) rows
  std::vector<int64_t> k(rank, 0), l(rank, 0);
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t plane = row / blockSize, offset = row % blockSize;  // plane = n * C + c
    int64_t r = offset;
    for (size_t i = rank; i-- > 0;) {
      k[i] = r % block[i];
      r /= block[i];
    }
    std::fill(l.begin(), l.end(), 0);
    for (int64_t col = 0; col < positions; ++col) {
      int64_t at = 0;
      bool inside = true;
      for (size_t i = 0; i < rank && inside; ++i) {
        const int64_t p = l[i] * g.strides[i] - g.pads[i] + k[i] * g.dilations[i];
        inside = p >= 0 && p < image[i];
        at = at * image[i] + p;
      }
      if (inside) a.outputs[0].data[static_cast<size_t>(plane * imageSize + at)] += input.data[static_cast<size_t>(row * positions + col)];
      nextIndex(l, counts);
    }
  }
}

}  // namespace

const OpSpec& opCol2Im() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "Col2Im";
    t.sinceVersion = 18;
    t.minInputs = t.maxInputs = 3;
    t.dtypes = kNumericTypes;
    t.minRank = t.maxRank = 3;
    t.constantInputs = 0b110;
    t.attrs = {intsAttr("dilations", 1, 3, 1, 3), intsAttr("pads", 0, 2, 2, 6), intsAttr("strides", 1, 3, 1, 3)};
    t.sampleAttrs = sampleCol2Im;
    t.nextInput = col2imShapes;
    t.infer = inferCol2Im;
    t.reference = col2imKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
