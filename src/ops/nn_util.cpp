#include "ops/nn_util.h"

#include <algorithm>
#include <cmath>

namespace nnfuzz::nnsupport {

std::string unknownAttr(const Attributes& attrs, std::initializer_list<std::string_view> known) {
  for (const auto& [name, value] : attrs)
    if (std::find(known.begin(), known.end(), name) == known.end()) return "unknown attribute " + name;
  return "";
}

bool readInt(const Attributes& attrs, std::string_view name, int64_t lo, int64_t hi, int64_t fallback, int64_t& out,
             std::string& err) {
  if (attrs.hasWrongKind<int64_t>(name)) {
    err = std::string(name) + " must be an int";
    return false;
  }
  out = attrs.getInt(name, fallback);
  if (out < lo || out > hi) {
    err = std::string(name) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return false;
  }
  return true;
}

bool readInts(const Attributes& attrs, std::string_view name, size_t len, int64_t lo, int64_t fallback,
              std::vector<int64_t>& out, std::string& err) {
  if (attrs.hasWrongKind<std::vector<int64_t>>(name)) {
    err = std::string(name) + " must be ints";
    return false;
  }
  if (!attrs.has(name)) {
    out.assign(len, fallback);
    return true;
  }
  out = attrs.getInts(name);
  if (out.size() != len) {
    err = std::string(name) + " must have " + std::to_string(len) + " elements";
    return false;
  }
  for (int64_t v : out)
    if (v < lo) {
      err = std::string(name) + " elements must be >= " + std::to_string(lo);
      return false;
    }
  return true;
}

bool readFloat(const Attributes& attrs, std::string_view name, double fallback, double& out, std::string& err) {
  if (attrs.hasWrongKind<double>(name)) {
    err = std::string(name) + " must be a float";
    return false;
  }
  out = attrs.getFloat(name, fallback);
  if (!std::isfinite(out)) {
    err = std::string(name) + " must be finite";
    return false;
  }
  return true;
}

bool readAutoPad(const Attributes& attrs, AutoPad& out, std::string& err) {
  if (attrs.hasWrongKind<std::string>("auto_pad")) {
    err = "auto_pad must be a string";
    return false;
  }
  const std::string s = attrs.getString("auto_pad", "NOTSET");
  for (size_t k = 0; k < std::size(kAutoPadNames); ++k)
    if (s == kAutoPadNames[k]) {
      out = static_cast<AutoPad>(k);
      return true;
    }
  err = "bad auto_pad " + s;
  return false;
}

bool readWindow(const Attributes& attrs, const Shape& in, const Shape& kernel, bool useDilations, Window& w,
                std::string& err) {
  const size_t n = in.size();
  w.in = in;
  w.kernel = kernel;
  if (!readAutoPad(attrs, w.autoPad, err)) return false;
  std::vector<int64_t> read;  // readInts fills a std::vector; Window keeps Shapes
  if (!readInts(attrs, "strides", n, 1, 1, read, err)) return false;
  w.strides = read;
  if (useDilations) {
    if (!readInts(attrs, "dilations", n, 1, 1, read, err)) return false;
    w.dilations = read;
  } else {
    w.dilations.assign(n, 1);
  }
  std::vector<int64_t> pads;
  if (!readInts(attrs, "pads", 2 * n, 0, 0, pads, err)) return false;
  if (attrs.has("pads") && w.autoPad != AutoPad::NotSet) {
    err = "pads cannot be used with auto_pad";
    return false;
  }
  w.padBegin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
  w.padEnd.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
  for (int64_t k : kernel)
    if (k < 1) {
      err = "kernel dims must be >= 1";
      return false;
    }
  return true;
}

bool resolveForward(Window& w, std::string& err) {
  const size_t n = w.rank();
  w.out.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = w.in[i], s = w.strides[i], ek = w.extent(i);
    if (w.autoPad == AutoPad::Valid) {
      w.padBegin[i] = w.padEnd[i] = 0;
    } else if (w.autoPad != AutoPad::NotSet) {
      // Pad so that out = ceil(in / s); an odd total puts the extra element at the end
      // for SAME_UPPER, at the beginning for SAME_LOWER.
      const int64_t target = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (target - 1) * s + ek - in);
      const int64_t small = total / 2;
      w.padBegin[i] = w.autoPad == AutoPad::SameUpper ? small : total - small;
      w.padEnd[i] = total - w.padBegin[i];
    }
    const int64_t span = in + w.padBegin[i] + w.padEnd[i] - ek;
    if (span < 0) {
      err = "kernel extent " + std::to_string(ek) + " exceeds the padded input " + std::to_string(span + ek);
      return false;
    }
    int64_t out = span / s + 1;
    if (w.ceilMode) {
      out = (span + s - 1) / s + 1;
      // The last window must start inside the input or its left padding.
      if ((out - 1) * s >= in + w.padBegin[i]) --out;
    }
    w.out[i] = out;
  }
  return true;
}

int64_t onnxForwardSize(const Window& w, size_t i) {
  const int64_t span = w.in[i] + w.padBegin[i] + w.padEnd[i] - w.extent(i);
  if (w.ceilMode) return 1 + static_cast<int64_t>(std::ceil(static_cast<float>(span) / static_cast<float>(w.strides[i])));
  return 1 + span / w.strides[i];
}

bool windowsNonEmpty(const Window& w, size_t i) {
  const int64_t d = w.dilations[i];
  for (int64_t o = 0; o < w.out[i]; ++o) {
    const int64_t start = o * w.strides[i] - w.padBegin[i];
    const int64_t j = start >= 0 ? 0 : (-start + d - 1) / d;  // first tap at or after 0
    if (j >= w.kernel[i] || start + j * d >= w.in[i]) return false;
  }
  return true;
}

void windowTaps(const Window& w, const std::vector<int64_t>& outIndex, std::vector<int64_t>& k,
                std::vector<std::pair<int64_t, int64_t>>& taps) {
  taps.clear();
  const size_t n = w.rank();
  k.assign(n, 0);
  int64_t kFlat = 0;
  do {
    int64_t xFlat = 0;
    bool inside = true;
    for (size_t i = 0; i < n; ++i) {
      const int64_t p = outIndex[i] * w.strides[i] - w.padBegin[i] + k[i] * w.dilations[i];
      if (p < 0 || p >= w.in[i]) {
        inside = false;
        break;
      }
      xFlat = xFlat * w.in[i] + p;
    }
    if (inside) taps.emplace_back(kFlat, xFlat);
    ++kFlat;
  } while (opsupport::nextIndex(k, w.kernel));
}

AutoPad sampleAutoPad(Rng& rng, Attributes& attrs) {
  static constexpr double kWeights[] = {0.55, 0.15, 0.15, 0.15};
  const auto pad = static_cast<AutoPad>(rng.weighted(kWeights));
  if (pad != AutoPad::NotSet || rng.bernoulli(0.2))
    attrs.setString("auto_pad", std::string(kAutoPadNames[static_cast<size_t>(pad)]));
  return pad;
}

bool inferAccepts(InferResult (*infer)(const InferArgs&), const std::vector<TensorType>& before,
                  const TensorType& candidate, const Attributes& attrs) {
  std::vector<const TensorType*> types;
  for (const TensorType& t : before) types.push_back(&t);
  types.push_back(&candidate);
  std::vector<const Tensor*> constants(types.size(), nullptr);
  InferArgs args{types, constants, attrs};
  return infer(args).ok();
}

void writeInts(Attributes& attrs, std::string_view name, const std::vector<int64_t>& values, int64_t fallback,
               Rng& rng, double omitProbability) {
  const bool isDefault = std::all_of(values.begin(), values.end(), [&](int64_t v) { return v == fallback; });
  if (isDefault && rng.bernoulli(omitProbability)) return;
  attrs.setInts(name, values);
}

bool normalizeAxes(const std::vector<int64_t>& axes, int rank, std::vector<int>& out, std::string& err) {
  out.clear();
  for (int64_t a : axes) {
    auto axis = opsupport::normalizeAxis(a, rank);
    if (!axis) {
      err = "axis " + std::to_string(a) + " out of range for rank " + std::to_string(rank);
      return false;
    }
    out.push_back(*axis);
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) {
    err = "repeated axis";
    return false;
  }
  return true;
}

std::vector<int64_t> sampleAxes(Rng& rng, int rank) {
  std::vector<int64_t> all(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) all[static_cast<size_t>(i)] = i;
  // Partial Fisher-Yates: the first `count` entries are a uniform random subset in random order.
  const auto count = static_cast<size_t>(rng.uniformInt(1, rank));
  for (size_t i = 0; i < count; ++i)
    std::swap(all[i], all[static_cast<size_t>(rng.uniformInt(static_cast<int64_t>(i), rank - 1))]);
  all.resize(count);
  for (int64_t& a : all)
    if (rng.bernoulli(0.3)) a -= rank;
  return all;
}

int64_t sampleDivisor(Rng& rng, int64_t n) {
  if (rng.bernoulli(0.4)) return 1;
  if (rng.bernoulli(0.3)) return n;
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) divisors.push_back(d);
  return rng.pick(divisors);
}

int64_t nearBestCount(const double* p, int64_t stride, int64_t len, bool largest) {
  double best = p[0];
  for (int64_t j = 1; j < len; ++j) best = largest ? std::max(best, p[j * stride]) : std::min(best, p[j * stride]);
  int64_t near = 0;
  for (int64_t j = 0; j < len; ++j)
    if (std::abs(p[j * stride] - best) < opsupport::kStabilityMargin * std::max(1.0, std::abs(best))) ++near;
  return near;
}

}  // namespace nnfuzz::nnsupport
