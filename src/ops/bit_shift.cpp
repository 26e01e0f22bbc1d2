// bit_shift.cpp - BitShift (opset 11): X shifted LEFT or RIGHT (`direction`, required) by Y
// bits, elementwise with multidirectional broadcasting, on unsigned integers (uint8 is
// the one GraphIR has). Left shifts drop the bits shifted out of the type. Shift amounts of
// the type's width or more are left to the compiler in C and C++ (undefined behaviour), so
// Y's values are kept to 0..7.
#include "ops/elem_util.h"
#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

void sampleDirection(OpDraft& d) { d.attrs.setString("direction", d.rng->bernoulli(0.5) ? "LEFT" : "RIGHT"); }

InputPattern shiftAmount(const OpDraft& d) {
  return elemutil::broadcastOperand(d.first().shape, d.first().dtype, *d.limits, ValueRange{0, 7, 0});
}

InferResult inferBitShift(const InferArgs& a) {
  if (std::string err = unknownAttr(a.attrs, {"direction"}); !err.empty()) return InferResult::fail(err);
  const std::string dir = a.attrs.getString("direction", "");
  if (dir != "LEFT" && dir != "RIGHT") return InferResult::fail("direction must be LEFT or RIGHT");
  return inferBroadcast(a);
}

void bitShiftKernel(KernelArgs& a) {
  const bool left = a.attrs.getString("direction", "") == "LEFT";
  broadcastKernel(a, [left](const std::vector<double>& v) {
    const auto x = static_cast<uint64_t>(v[0]), y = static_cast<uint64_t>(v[1]);
    if (y >= 8) return 0.0;
    return static_cast<double>(left ? (x << y) & 0xFFu : x >> y);
  });
}

// Shifts of 8 or more: undefined, as above. The sampler never draws them, but neuri's rule
// and record operators and the reducer reuse any uint8 (OpenVINO gave 1 for 178 >> 9).
bool bitShiftUnstable(const KernelArgs& a) {
  return elemutil::anyBroadcastPair(a, 0, 1, [](double, double y) { return y >= 8; });
}

}  // namespace

const OpSpec& opBitShift() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "BitShift";
    t.sinceVersion = 11;
    t.minInputs = t.maxInputs = 2;
    t.dtypes = {DType::UInt8};
    t.attrs = {stringAttr("direction", {"LEFT", "RIGHT"})};
    t.firstRange = [](DType) { return ValueRange{0, 255, 0}; };
    t.sampleAttrs = sampleDirection;
    t.nextInput = shiftAmount;
    t.infer = inferBitShift;
    t.reference = bitShiftKernel;
    t.unstable = bitShiftUnstable;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
