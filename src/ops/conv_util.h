// conv_util.h - the parts of Conv (conv.cpp) that the quantized convolutions (qconv.cpp)
// share: attribute sampling, the geometry check giving the output shape, W's sampled
// type, and the sums of products with zero points subtracted.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "ops/op_spec.h"

namespace nnfuzz::convsupport {

/// Step 3 of Conv-like ops: group, auto_pad, strides, dilations, kernel_shape and pads for
/// the first input (N x C x D1..Dn).
void sampleConvAttrs(OpDraft& d);

/// The output shape of a convolution of x with w under attrs (group, kernel_shape, window),
/// or nullopt with `err` set. Dtypes are the caller's business.
std::optional<Shape> convOutput(const Attributes& attrs, const Shape& x, const Shape& w, std::string& err);

/// Pattern of W (M x C/group x k1..kn) for the first input x: any type convOutput accepts,
/// sampled with dtype `wtype`.
InputPattern convWeight(const TensorType& x, const Attributes& attrs, const Limits& limits, DType wtype, ValueRange range);

/// y[n, oc, ...] = sum over taps of (x - xZero) * (w - wZero(oc)); y arrives zero-filled with
/// the output shape.
void convSums(const Tensor& x, const Tensor& w, const Attributes& attrs, double xZero,
              const std::function<double(int64_t)>& wZero, Tensor& y);

}  // namespace nnfuzz::convsupport
