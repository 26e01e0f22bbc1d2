// padding.cpp - stride-1 pads that keep the spatial size of Conv/ConvTranspose/pools.
#include "gen/padding.h"

#include "ops/infer_node.h"

namespace nnfuzz {

bool hasSpatialPadding(std::string_view op) {
  return op == "Conv" || op == "ConvTranspose" || op == "MaxPool" || op == "AveragePool";
}

bool solveSamePadding(const OpSpec& spec, Instantiation& inst) {
  const std::string_view op = spec.name;
  if (!hasSpatialPadding(op) || inst.operands.empty()) return false;
  const Shape& x = inst.operands[0].type.shape;
  if (x.size() < 3) return false;
  const size_t n = x.size() - 2;
  const bool conv = op == "Conv" || op == "ConvTranspose";
  const bool pool = !conv;
  std::vector<int64_t> kernel = inst.attrs.getInts("kernel_shape");
  if (kernel.empty() && conv && inst.operands.size() > 1) {
    const Shape& w = inst.operands[1].type.shape;
    kernel.assign(w.begin() + 2, w.end());
  }
  if (kernel.size() != n) return false;
  std::vector<int64_t> dilations = inst.attrs.getInts("dilations", std::vector<int64_t>(n, 1));
  if (dilations.size() != n) return false;

  Attributes attrs = inst.attrs;
  std::vector<int64_t> pads(2 * n);
  for (size_t i = 0; i < n; ++i) {
    int64_t total = dilations[i] * (kernel[i] - 1);
    if (pool && (total + 1) / 2 >= kernel[i] && kernel[i] > 1) {
      dilations[i] = 1;  // pads must stay below the kernel
      total = kernel[i] - 1;
    }
    pads[i] = total / 2;
    pads[n + i] = total - total / 2;
  }
  attrs.erase("auto_pad");
  attrs.erase("output_padding");
  attrs.erase("output_shape");
  attrs.setInts("strides", std::vector<int64_t>(n, 1));
  attrs.setInts("pads", pads);
  if (attrs.has("dilations")) attrs.setInts("dilations", dilations);

  std::vector<const TensorType*> types;
  std::vector<const Tensor*> constants;
  for (const Operand& o : inst.operands) {
    types.push_back(o.omitted ? nullptr : &o.type);
    constants.push_back(o.constant ? &*o.constant : nullptr);
  }
  InferResult inferred = inferNode(spec, types, constants, attrs);
  if (!inferred.ok() || inferred.types.empty()) return false;
  const Shape& y = inferred.types[0].shape;
  if (y.size() != x.size() || !std::equal(x.begin() + 2, x.end(), y.begin() + 2)) return false;
  inst.attrs = std::move(attrs);
  inst.outputTypes = std::move(inferred.types);
  return true;
}

}  // namespace nnfuzz
