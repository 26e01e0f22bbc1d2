// value_ranges.cpp - per-operand value statistics (see value_ranges.h).
#include "search/value_ranges.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

namespace nnfuzz::search {

void ValueRanges::add(const Graph& graph, const std::vector<Tensor>& values) {
  for (NodeId id : graph.nodes()) {
    const Node& node = graph.node(id);
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const ValueId v = node.inputs[k];
      if (v == kNoValue || static_cast<size_t>(v) >= values.size()) continue;
      const Tensor& t = values[static_cast<size_t>(v)];
      if (t.type.dtype == DType::Bool || t.data.empty()) continue;
      OperandValues& s = operands_[{node.op, static_cast<int>(k)}];
      const auto [lo, hi] = std::minmax_element(t.data.begin(), t.data.end());
      s.min = s.nodes ? std::min(s.min, *lo) : *lo;
      s.max = s.nodes ? std::max(s.max, *hi) : *hi;
      s.maxAbs = std::max({s.maxAbs, std::abs(*lo), std::abs(*hi)});
      bool large = false, tiny = false, zero = false, negative = false;
      for (double x : t.data) {
        const double a = std::abs(x);
        large |= a > kLargeValue;
        tiny |= a > 0 && a < kTinyValue;
        zero |= x == 0;
        negative |= x < 0;
      }
      s.large += large;
      s.tiny += tiny;
      s.zero += zero;
      s.negative += negative;
      ++s.nodes;
    }
  }
}

void ValueRanges::merge(const ValueRanges& other) {
  for (const auto& [key, o] : other.operands_) {
    OperandValues& s = operands_[key];
    s.min = s.nodes ? std::min(s.min, o.min) : o.min;
    s.max = s.nodes ? std::max(s.max, o.max) : o.max;
    s.maxAbs = std::max(s.maxAbs, o.maxAbs);
    s.nodes += o.nodes;
    s.large += o.large;
    s.tiny += o.tiny;
    s.zero += o.zero;
    s.negative += o.negative;
  }
}

namespace {
double percent(int64_t part, int64_t whole) { return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0; }
}  // namespace

std::string ValueRanges::format() const {
  std::string out = fmt::format("{:<26} {:>3} {:>7} {:>11} {:>11} {:>8} {:>8} {:>7} {:>6}\n", "operator", "in", "nodes",
                                "min", "max", "|x|>4", "tiny", "zero", "neg");
  for (const auto& [key, s] : operands_)
    out += fmt::format("{:<26} {:>3} {:>7} {:>11.4g} {:>11.4g} {:>7.1f}% {:>7.1f}% {:>6.1f}% {:>5.1f}%\n", key.first,
                       key.second, s.nodes, s.min, s.max, percent(s.large, s.nodes), percent(s.tiny, s.nodes),
                       percent(s.zero, s.nodes), percent(s.negative, s.nodes));
  return out;
}

nlohmann::json ValueRanges::toJson() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& [key, s] : operands_)
    rows.push_back({{"op", key.first}, {"operand", key.second}, {"nodes", s.nodes}, {"min", s.min}, {"max", s.max},
                    {"max_abs", s.maxAbs}, {"large_nodes", s.large}, {"tiny_nodes", s.tiny}, {"zero_nodes", s.zero},
                    {"negative_nodes", s.negative}});
  return rows;
}

}  // namespace nnfuzz::search
