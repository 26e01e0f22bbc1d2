// nms.cpp - NonMaxSuppression (opset 11): per batch and class, boxes taken in descending
// score order (equal scores: lower index first), each kept unless its IoU with a box kept
// before exceeds iou_threshold, up to max_output_boxes_per_class; score_threshold (when
// given) drops boxes whose score is not above it. Boxes are [y1, x1, y2, x2] corners in
// either order (center_point_box = 0, default) or [x_center, y_center, width, height].
// The result lists (batch, class, box) as int64 rows.
//
// The row count depends on the values, and GraphIR shapes are static: boxes, scores and
// the three limits must be constants (initializers), so the shape is known at generation
// time. max_output_boxes_per_class is required here (without it nothing is selected, an
// empty result). Boxes sit on a grid of 1/4 so overlaps are exact; an IoU within a hair of
// the threshold is unstable (engines compute it in float32).
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "ops/nn_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

struct Corners {
  double y0, x0, y1, x1;
  double area() const { return (y1 - y0) * (x1 - x0); }
};

Corners cornersOf(const double* b, bool centerPoint) {
  if (centerPoint) return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

// IoU of two boxes, or nullopt where the schema's rule keeps them apart (no overlap, or a
// box without area).
std::optional<double> iouOf(const Corners& a, const Corners& b) {
  const double w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0), h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  if (w <= 0 || h <= 0) return std::nullopt;
  const double inter = w * h, uni = a.area() + b.area() - inter;
  if (a.area() <= 0 || b.area() <= 0 || uni <= 0) return std::nullopt;
  return inter / uni;
}

struct NmsArgs {
  const Tensor* boxes = nullptr;
  const Tensor* scores = nullptr;
  int64_t maxOut = 0;
  double iou = 0;
  std::optional<double> scoreThreshold;
  bool centerPoint = false;
};

NmsArgs nmsArgs(std::span<const Tensor* const> in, const Attributes& attrs) {
  NmsArgs a;
  a.boxes = in[0];
  a.scores = in[1];
  if (in.size() > 2 && in[2] && !in[2]->data.empty()) a.maxOut = std::max<int64_t>(0, static_cast<int64_t>(in[2]->data[0]));
  if (in.size() > 3 && in[3] && !in[3]->data.empty()) a.iou = in[3]->data[0];
  if (in.size() > 4 && in[4] && !in[4]->data.empty()) a.scoreThreshold = in[4]->data[0];
  a.centerPoint = attrs.getInt("center_point_box", 0) == 1;
  return a;
}

// The selected (batch, class, box) rows; onIou(iou) sees every IoU compared.
template <typename F>
std::vector<std::array<int64_t, 3>> select(const NmsArgs& a, F onIou) {
  const int64_t batches = a.boxes->type.shape[0], n = a.boxes->type.shape[1], classes = a.scores->type.shape[1];
  std::vector<std::array<int64_t, 3>> rows;
  std::vector<int64_t> order, kept;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const double* s = a.scores->data.data() + (b * classes + c) * n;
      order.clear();
      for (int64_t i = 0; i < n; ++i)
        if (!a.scoreThreshold || s[i] > *a.scoreThreshold) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return s[i] > s[j]; });
      kept.clear();
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= a.maxOut) break;
        const Corners box = cornersOf(a.boxes->data.data() + (b * n + i) * 4, a.centerPoint);
        bool keep = true;
        for (int64_t j : kept) {
          const auto iou = iouOf(box, cornersOf(a.boxes->data.data() + (b * n + j) * 4, a.centerPoint));
          if (!iou) continue;
          onIou(*iou);
          if (*iou > a.iou) {
            keep = false;
            break;
          }
        }
        if (!keep) continue;
        kept.push_back(i);
        rows.push_back({b, c, i});
      }
    }
  return rows;
}

// ---- sampling: every operand is a constant ----

double onGrid(Rng& rng, double lo, double hi) { return static_cast<double>(rng.uniformInt(static_cast<int64_t>(lo * 4), static_cast<int64_t>(hi * 4))) / 4; }

Tensor sampleBoxes(Rng& rng, const Limits& limits) {
  const int64_t batches = rng.uniformInt(1, 2), n = rng.uniformInt(1, std::max<int64_t>(2, limits.maxDim));
  Tensor t(TensorType{DType::Float32, {batches, n, 4}});
  for (int64_t i = 0; i < batches * n; ++i) {
    double* b = t.data.data() + i * 4;
    // Drawn as corners; the attribute (drawn next) may read them as centre and size, which
    // are positive too.
    b[0] = onGrid(rng, 0, 4), b[1] = onGrid(rng, 0, 4);
    b[2] = b[0] + onGrid(rng, 0.5, 3), b[3] = b[1] + onGrid(rng, 0.5, 3);
    if (rng.bernoulli(0.2)) std::swap(b[0], b[2]);  // flipped corners
  }
  return t;
}

void sampleNmsAttrs(OpDraft& d) {
  if (d.rng->bernoulli(0.4)) d.attrs.setInt("center_point_box", d.rng->uniformInt(0, 1));
}

InputPattern nmsOperand(const OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& boxes = d.first().shape;
  switch (d.inputTypes.size()) {
    case 1: {
      Tensor s(TensorType{DType::Float32, {boxes[0], rng.uniformInt(1, 3), boxes[1]}});
      for (double& v : s.data) v = static_cast<double>(static_cast<float>(rng.uniformReal(0, 1)));
      return InputPattern::constantTensor(std::move(s));
    }
    case 2:
      return InputPattern::constantTensor(Tensor(TensorType{DType::Int64, {1}}, {static_cast<double>(rng.uniformInt(1, boxes[1]))}));
    case 3: {
      static const std::vector<double> kIou{0.0, 0.3, 0.5, 0.7};
      const double iou = rng.bernoulli(0.7) ? rng.pick(kIou) : static_cast<double>(static_cast<float>(rng.uniformReal(0, 1)));
      return InputPattern::constantTensor(Tensor(TensorType{DType::Float32, {1}}, {iou}));
    }
    default: {
      // Below the best score, so something is selected.
      const double best = *std::max_element(d.constants[1]->data.begin(), d.constants[1]->data.end());
      return InputPattern::constantTensor(Tensor(TensorType{DType::Float32, {1}}, {static_cast<double>(static_cast<float>(rng.uniformReal(0, best * 0.9)))}));
    }
  }
}

InferResult inferNms(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"center_point_box"});
  int64_t v = 0;
  if (!err.empty() || !readInt(a.attrs, "center_point_box", 0, 1, 0, v, err)) return InferResult::fail(err);
  const TensorType& boxes = *a.inputs[0];
  if (boxes.rank() != 3 || boxes.shape[2] != 4) return InferResult::fail("boxes must be [batches, boxes, 4]");
  if (a.inputs.size() < 3 || !a.inputs[1] || !a.inputs[2])
    return InferResult::fail("scores and max_output_boxes_per_class are required (without the latter nothing is selected)");
  const TensorType& scores = *a.inputs[1];
  if (scores.dtype != boxes.dtype || scores.rank() != 3 || scores.shape[0] != boxes.shape[0] || scores.shape[2] != boxes.shape[1])
    return InferResult::fail("scores must be [batches, classes, boxes] of the boxes' dtype");
  static constexpr const char* kNames[] = {"max_output_boxes_per_class", "iou_threshold", "score_threshold"};
  for (size_t k = 2; k < a.inputs.size(); ++k) {
    if (!a.inputs[k]) continue;
    const TensorType& t = *a.inputs[k];
    if (t.rank() > 1 || t.numel() != 1 || t.dtype != (k == 2 ? DType::Int64 : DType::Float32))
      return InferResult::fail(std::string(kNames[k - 2]) + (k == 2 ? " must be one int64" : " must be one float"));
  }
  for (size_t k = 0; k < a.inputs.size(); ++k)
    if (a.inputs[k] && !a.constants[k]) return InferResult::fail("every operand must be a constant (the result's length depends on them)");
  const NmsArgs args = nmsArgs(a.constants, a.attrs);
  if (args.iou < 0 || args.iou > 1) return InferResult::fail("iou_threshold must be in [0, 1]");
  const auto rows = static_cast<int64_t>(select(args, [](double) {}).size());
  return {{TensorType{DType::Int64, {rows, 3}}}, {}};
}

void nmsKernel(KernelArgs& a) {
  const auto rows = select(nmsArgs(a.inputs, a.attrs), [](double) {});
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t k = 0; k < 3; ++k) a.outputs[0].data[r * 3 + k] = static_cast<double>(rows[r][k]);
}

bool nmsUnstable(const KernelArgs& a) {
  const NmsArgs args = nmsArgs(a.inputs, a.attrs);
  bool unstable = false;
  select(args, [&](double iou) { unstable = unstable || std::abs(iou - args.iou) < kStabilityMargin; });
  return unstable;
}

// Every box of a class is compared with every box kept before it.
double pairWork(const WorkArgs& a) {
  const TensorType& boxes = *a.inputs[0];
  const double perBatch = static_cast<double>(boxes.shape[1]);
  return a.inputs.size() > 1 && a.inputs[1] ? elementCount(*a.inputs[1]) * perBatch : perBatch * perBatch;
}

}  // namespace

const OpSpec& opNonMaxSuppression() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "NonMaxSuppression";
    t.sinceVersion = 11;
    t.minInputs = 3;  // the schema's minimum is 2, which selects nothing
    t.maxInputs = 5;
    t.dtypes = {DType::Float32};
    t.minRank = t.maxRank = 3;
    t.constantInputs = 0b11111;
    t.attrs = {intAttr("center_point_box", 0, 1)};
    t.sampleConstantFirst = sampleBoxes;
    t.sampleAttrs = sampleNmsAttrs;
    t.nextInput = nmsOperand;
    t.infer = inferNms;
    t.reference = nmsKernel;
    t.work = pairWork;
    t.unstable = nmsUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
