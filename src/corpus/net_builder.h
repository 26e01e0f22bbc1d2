// net_builder.h - a small layer-level builder over GraphIR for tier 2 of the corpus: each
// call appends one layer (with random weights scaled by fan-in so activations stay near
// 1) and computes its results with the reference kernels as it goes, so the finished
// network comes with its inputs and reference outputs. One-line Error if a layer cannot be
// built (bad shape, unusable results).
#pragma once

#include <string>
#include <vector>

#include "gen/eval_builder.h"
#include "gen/value_pool.h"
#include "ir/graph.h"
#include "support/rng.h"

namespace nnfuzz {

struct BuiltNet {
  std::string name;
  Graph graph;
  std::vector<Tensor> inputs, outputs;
};

class NetBuilder {
 public:
  NetBuilder(std::string name, uint64_t seed);

  ValueId input(Shape shape);
  ValueId conv(ValueId x, int64_t outChannels, int64_t kernel, int64_t stride = 1, int64_t pad = 0, int64_t group = 1);
  ValueId batchNorm(ValueId x);
  ValueId relu(ValueId x);
  ValueId relu6(ValueId x);  ///< Clip(0, 6), MobileNet's activation
  ValueId maxPool(ValueId x, int64_t kernel, int64_t stride, int64_t pad = 0);
  ValueId avgPool(ValueId x, int64_t kernel, int64_t stride, int64_t pad = 0);
  ValueId globalAvgPool(ValueId x);
  ValueId lrn(ValueId x, int64_t size);
  ValueId flatten(ValueId x);
  ValueId fc(ValueId x, int64_t outFeatures);  ///< Gemm with transB = 1, as Caffe's InnerProduct
  ValueId add(ValueId a, ValueId b);
  ValueId concat(const std::vector<ValueId>& xs, int64_t axis);
  ValueId softmax(ValueId x, int64_t axis);
  ValueId transpose(ValueId x, std::vector<int64_t> perm);
  ValueId reshape(ValueId x, std::vector<int64_t> shape);

  const Shape& shape(ValueId v) const { return graph_.value(v).type.shape; }
  /// The finished network: `outputs` become the graph outputs.
  BuiltNet finish(const std::vector<ValueId>& outputs);

 private:
  ValueId layer(const std::string& op, std::vector<ValueId> inputs, Attributes attrs);
  ValueId randomWeight(Shape shape, double scale);

  std::string name_;
  Rng rng_;
  Graph graph_;
  ValuePool pool_;
  EvalBuilder builder_;
};

}  // namespace nnfuzz
