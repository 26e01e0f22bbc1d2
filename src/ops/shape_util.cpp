#include "ops/shape_util.h"

#include "support/error.h"

namespace nnfuzz::shapeops {

int64_t indexWithin(double v, int64_t n) {
  int64_t i = saturatingInt(v);
  if (i < 0 && i >= -n) i += n;
  if (i < 0 || i >= n) throw Error("index " + std::to_string(i) + " is out of range for a dim of " + std::to_string(n));
  return i;
}

}  // namespace nnfuzz::shapeops
