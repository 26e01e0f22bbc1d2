#include "ir/tensor.h"

#include <sstream>

namespace nnfuzz {

int64_t TensorType::numel() const {
  // An empty dim anywhere makes 0, even after dims whose product alone would overflow.
  for (int64_t d : shape)
    if (d == 0) return 0;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string formatValue(double x) {
  std::ostringstream s;
  s.precision(9);
  s << x;
  return s.str();
}

std::string toString(const TensorType& type) {
  std::string text(dtypeName(type.dtype));
  text += '[';
  for (size_t i = 0; i < type.shape.size(); ++i) {
    if (i) text += ',';
    text += std::to_string(type.shape[i]);
  }
  text += ']';
  return text;
}

std::vector<int64_t> stridesOf(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

Tensor int64Tensor(const std::vector<int64_t>& values) {
  Tensor t(TensorType{DType::Int64, {static_cast<int64_t>(values.size())}});
  for (size_t i = 0; i < values.size(); ++i) t.data[i] = static_cast<double>(values[i]);
  return t;
}

std::vector<int64_t> toInt64s(const Tensor& tensor) {
  std::vector<int64_t> out(tensor.data.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(tensor.data[i]);
  return out;
}

}  // namespace nnfuzz
