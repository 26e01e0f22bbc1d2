// pattern_neuron.cpp - Power, Exp and Log with all three of their parameters.
//
// Caffe computes Power as (shift + scale x)^power, Exp as base^(shift + scale x) and Log
// as log_base(shift + scale x) (power_layer.cpp, exp_layer.cpp, log_layer.cpp). Their
// ONNX runs, every weight a one-element float:
//   Power: Mul(x, scale) -> Add(shift) -> Pow(power)
//   Exp:   Mul(x, scale) -> Add(shift) -> Mul(ln base) -> Exp      (base = e^c)
//   Log:   Mul(x, scale) -> Add(shift) -> Log -> Mul(1 / ln base)  (base = e^(1/c))
// Each node alone is also a Caffe layer (Power, Exp, Log), so a run the generator did not
// emit as a unit still exports, one layer per node.
#include <cmath>

#include "caffe/pattern_util.h"

namespace nnfuzz::caffe_export {

namespace {

/// The scalars of the run's scalar-weight nodes (nullopt where one is not a scalar).
std::optional<std::vector<double>> scalars(const Graph& g, const std::vector<NodeId>& nodes,
                                           std::initializer_list<size_t> which) {
  std::vector<double> out;
  for (size_t k : which) {
    const auto s = scalarOperand(g, g.node(nodes[k]));
    if (!s) return std::nullopt;
    out.push_back(*s);
  }
  return out;
}

bool keepsShape(const Graph& g, const Node& n) {
  return g.value(n.outputs[0]).type.shape == g.value(n.inputs[0]).type.shape;
}

/// A base Caffe can take back from c = ln(base) (finite, positive, not 1).
bool usableLogBase(double c) { return std::isfinite(c) && c != 0 && std::abs(c) <= 60; }

}  // namespace

std::vector<NodeId> matchPower(const Graph& g, NodeId last) {
  auto nodes = chainBack(g, last, {"Mul", "Add", "Pow"});
  if (nodes.empty() || !scalars(g, nodes, {0, 1, 2})) return {};
  return nodes;
}

MapResult writePower(const PatternSite& site, Layers& out) {
  const auto s = *scalars(site.graph, site.nodes, {0, 1, 2});
  auto* p = addPatternLayer(site, out, "Power", {site.node(0).inputs[0]}).mutable_power_param();
  p->set_scale(static_cast<float>(s[0]));
  p->set_shift(static_cast<float>(s[1]));
  p->set_power(static_cast<float>(s[2]));
  return fit();
}

std::vector<NodeId> matchExp(const Graph& g, NodeId last) {
  auto nodes = chainBack(g, last, {"Mul", "Add", "Mul", "Exp"});
  if (nodes.empty() || !keepsShape(g, g.node(last))) return {};
  const auto s = scalars(g, nodes, {0, 1, 2});
  if (!s || !usableLogBase((*s)[2])) return {};
  return nodes;
}

MapResult writeExp(const PatternSite& site, Layers& out) {
  const auto s = *scalars(site.graph, site.nodes, {0, 1, 2});
  auto* p = addPatternLayer(site, out, "Exp", {site.node(0).inputs[0]}).mutable_exp_param();
  p->set_scale(static_cast<float>(s[0]));
  p->set_shift(static_cast<float>(s[1]));
  p->set_base(static_cast<float>(std::exp(s[2])));
  return fit();
}

std::vector<NodeId> matchLog(const Graph& g, NodeId last) {
  auto nodes = chainBack(g, last, {"Mul", "Add", "Log", "Mul"});
  if (nodes.empty() || !keepsShape(g, g.node(nodes[2]))) return {};
  const auto s = scalars(g, nodes, {0, 1, 3});
  if (!s || (*s)[2] == 0 || !usableLogBase(1.0 / (*s)[2])) return {};
  return nodes;
}

MapResult writeLog(const PatternSite& site, Layers& out) {
  const auto s = *scalars(site.graph, site.nodes, {0, 1, 3});
  auto* p = addPatternLayer(site, out, "Log", {site.node(0).inputs[0]}).mutable_log_param();
  p->set_scale(static_cast<float>(s[0]));
  p->set_shift(static_cast<float>(s[1]));
  p->set_base(static_cast<float>(std::exp(1.0 / s[2])));
  return fit();
}

}  // namespace nnfuzz::caffe_export
