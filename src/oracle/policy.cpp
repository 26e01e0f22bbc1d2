// policy.cpp - the allclose and luo comparison policies (see policy.h).
#include "oracle/policy.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace nnfuzz {

namespace {

// Non-finite values agree when both are NaN or both are the same infinity.
bool nonFiniteAgrees(double a, double e) {
  if (std::isnan(a) || std::isnan(e)) return std::isnan(a) && std::isnan(e);
  return a == e;
}

}  // namespace

std::string elementIndex(const Shape& shape, size_t flat) {
  // A multi-index reads better than a flat one in a bug report: "[1,0,2]".
  std::string s = "[";
  const auto strides = stridesOf(shape);
  int64_t rest = static_cast<int64_t>(flat);
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d) s += ",";
    s += std::to_string(strides[d] ? rest / strides[d] : 0);
    if (strides[d]) rest %= strides[d];
  }
  return s + "]";
}

bool elementDiffers(double a, double e, bool exact, const Policy& policy) {
  if (!std::isfinite(a) || !std::isfinite(e)) return !nonFiniteAgrees(a, e);
  const double diff = std::abs(a - e);
  if (exact) return a != e;
  if (policy.kind == PolicyKind::AllClose) return diff > policy.atol + policy.rtol * std::abs(e);
  return diff / std::max(std::abs(e), policy.luoFloor) > policy.luoRelError;
}

std::string_view Policy::name() const { return kind == PolicyKind::Luo ? "luo" : "allclose"; }

nlohmann::json Policy::toJson() const {
  nlohmann::json j{{"policy", std::string(name())}};
  if (kind == PolicyKind::AllClose) {
    j["atol"] = atol;
    j["rtol"] = rtol;
  } else {
    j["rel_error"] = luoRelError;
    j["max_fraction"] = luoMaxFraction;
    j["floor"] = luoFloor;
  }
  return j;
}

std::optional<Policy> Policy::named(std::string_view name) {
  Policy p;
  if (name == "allclose") return p;
  if (name == "luo") {
    p.kind = PolicyKind::Luo;
    return p;
  }
  return std::nullopt;
}

Policy Policy::fromJson(const nlohmann::json& j) {
  if (!j.is_object()) throw Error("policy: expected a JSON object");
  const std::string name = j.value("policy", std::string("allclose"));
  auto p = named(name);
  if (!p) throw Error("policy: unknown policy '" + name + "' (allclose or luo)");
  auto read = [&](const char* key, double& field) {
    if (!j.contains(key)) return;
    if (!j[key].is_number() || j[key].get<double>() < 0)
      throw Error(std::string("policy: '") + key + "' must be a non-negative number");
    field = j[key].get<double>();
  };
  read("atol", p->atol);
  read("rtol", p->rtol);
  read("rel_error", p->luoRelError);
  read("max_fraction", p->luoMaxFraction);
  read("floor", p->luoFloor);
  return *p;
}

std::string_view diffKindName(DiffKind kind) {
  switch (kind) {
    case DiffKind::None: return "none";
    case DiffKind::DType: return "dtype";
    case DiffKind::Shape: return "shape";
    case DiffKind::NonFinite: return "nonfinite";
    case DiffKind::Values: return "values";
  }
  return "none";
}

OutputDiff compareOutput(const Tensor& actual, const Tensor& expected, const Policy& policy, size_t output) {
  OutputDiff d;
  d.output = output;
  d.elements = expected.numel();
  const std::string label = "output " + std::to_string(output) + ": ";
  if (actual.type.dtype != expected.type.dtype) {
    d.kind = DiffKind::DType;
    d.detail = label + "dtype " + std::string(dtypeName(actual.type.dtype)) + ", expected " +
               std::string(dtypeName(expected.type.dtype));
    return d;
  }
  if (actual.type.shape != expected.type.shape || actual.data.size() != expected.data.size()) {
    d.kind = DiffKind::Shape;
    d.detail = label + "shape " + toString(actual.type) + ", expected " + toString(expected.type);
    return d;
  }
  const bool exact = !isFloat(expected.type.dtype);
  int64_t firstNonFinite = -1, firstBad = -1;
  for (size_t i = 0; i < expected.data.size(); ++i) {
    const double a = actual.data[i], e = expected.data[i];
    if (!std::isfinite(a) || !std::isfinite(e)) {
      if (!nonFiniteAgrees(a, e)) {
        if (firstNonFinite < 0) firstNonFinite = static_cast<int64_t>(i);
        ++d.badElements;
      }
      continue;
    }
    const double diff = std::abs(a - e);
    d.maxAbsError = std::max(d.maxAbsError, diff);
    if (e != 0) d.maxRelError = std::max(d.maxRelError, diff / std::abs(e));
    if (elementDiffers(a, e, exact, policy)) {
      if (firstBad < 0) firstBad = static_cast<int64_t>(i);
      ++d.badElements;
    }
  }
  auto element = [&](int64_t i) {
    const auto k = static_cast<size_t>(i);
    return " at " + elementIndex(expected.type.shape, k) + ": got " + formatValue(actual.data[k]) + ", expected " +
           formatValue(expected.data[k]);
  };
  if (firstNonFinite >= 0) {
    // NaN/Inf in the wrong places fail under every policy: no tolerance makes them close.
    d.kind = DiffKind::NonFinite;
    d.detail = label + "NaN/Inf positions differ" + element(firstNonFinite);
    return d;
  }
  if (firstBad < 0) return d;
  if (!exact && policy.kind == PolicyKind::Luo &&
      static_cast<double>(d.badElements) <= policy.luoMaxFraction * static_cast<double>(d.elements))
    return d;  // few enough bad elements: Luo's rule passes the output
  d.kind = DiffKind::Values;
  d.detail = label + std::to_string(d.badElements) + " of " + std::to_string(d.elements) + " values differ" +
             (exact ? " (exact " + std::string(dtypeName(expected.type.dtype)) + ")" : "") + ", first" +
             element(firstBad) + "; max abs error " + formatValue(d.maxAbsError) + ", max rel error " + formatValue(d.maxRelError);
  return d;
}

}  // namespace nnfuzz
