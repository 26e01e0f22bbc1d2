// attributes.h - a node's attributes, named and typed exactly as in ONNX.
//
// GraphIR attributes are ONNX attributes (same names, same kinds), so export and import
// copy them one to one. Float attributes are float32 in ONNX: setFloat rounds to float so
// the reference kernel sees the value a SUT will see. Iteration is in name order, which
// keeps the text form and serialisation deterministic. They are kept as one vector sorted
// by name, not a map: a node has a few, and they are copied often (drafts, nodes, forms),
// which costs one allocation for the vector instead of one per attribute.
//
// A graph-valued attribute (If's branches, Loop's and Scan's body) holds a GraphAttr: an
// immutable, shared body Graph. Copying attributes shares the body; to change a body,
// build a new Graph and set it. Equality compares the bodies' text forms.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace nnfuzz {

class Graph;

/// A subgraph attribute: a body Graph (Graph::isBody() holds) shared between copies.
class GraphAttr {
 public:
  /// Takes the body and marks it a body (its formal inputs survive removeUnused).
  explicit GraphAttr(Graph body);
  const Graph& graph() const { return *graph_; }
  const Graph* operator->() const { return graph_.get(); }
  bool operator==(const GraphAttr& other) const;

 private:
  std::shared_ptr<const Graph> graph_;
};

using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>,
                               std::vector<std::string>, GraphAttr>;

class Attributes {
 public:
  bool has(std::string_view name) const { return find(name) != values_.end(); }
  bool empty() const { return values_.empty(); }
  size_t size() const { return values_.size(); }

  void setInt(std::string_view name, int64_t v) { slot(name) = v; }
  void setFloat(std::string_view name, double v) { slot(name) = static_cast<double>(static_cast<float>(v)); }
  void setString(std::string_view name, std::string v) { slot(name) = std::move(v); }
  void setInts(std::string_view name, std::vector<int64_t> v) { slot(name) = std::move(v); }
  void setFloats(std::string_view name, std::vector<double> v) {
    for (double& x : v) x = static_cast<double>(static_cast<float>(x));
    slot(name) = std::move(v);
  }
  void setStrings(std::string_view name, std::vector<std::string> v) { slot(name) = std::move(v); }
  void setGraph(std::string_view name, GraphAttr g) { slot(name) = std::move(g); }
  /// Stores a value as is (import and the parser; floats must already be float32-exact).
  void set(std::string_view name, AttrValue v) { slot(name) = std::move(v); }
  void erase(std::string_view name) {
    if (auto it = find(name); it != values_.end()) values_.erase(it);
  }

  /// Typed getters: the default when the attribute is absent (ONNX defaults live in the op files).
  int64_t getInt(std::string_view name, int64_t fallback) const { return get<int64_t>(name, fallback); }
  double getFloat(std::string_view name, double fallback) const { return get<double>(name, fallback); }
  std::string getString(std::string_view name, std::string fallback) const {
    return get<std::string>(name, std::move(fallback));
  }
  std::vector<int64_t> getInts(std::string_view name, std::vector<int64_t> fallback = {}) const {
    return get<std::vector<int64_t>>(name, std::move(fallback));
  }
  std::vector<double> getFloats(std::string_view name, std::vector<double> fallback = {}) const {
    return get<std::vector<double>>(name, std::move(fallback));
  }
  std::vector<std::string> getStrings(std::string_view name, std::vector<std::string> fallback = {}) const {
    return get<std::vector<std::string>>(name, std::move(fallback));
  }
  /// The body held by a graph attribute, or nullptr when absent or of another kind.
  const Graph* getGraph(std::string_view name) const {
    auto it = find(name);
    if (it == values_.end()) return nullptr;
    const auto* g = std::get_if<GraphAttr>(&it->second);
    return g ? &g->graph() : nullptr;
  }
  /// True when any attribute holds a graph.
  bool hasGraphs() const {
    for (const auto& [name, v] : values_)
      if (std::holds_alternative<GraphAttr>(v)) return true;
    return false;
  }
  /// True when the attribute is present but of another kind than T.
  template <typename T>
  bool hasWrongKind(std::string_view name) const {
    auto it = find(name);
    return it != values_.end() && !std::holds_alternative<T>(it->second);
  }

  auto begin() const { return values_.begin(); }
  auto end() const { return values_.end(); }
  bool operator==(const Attributes&) const = default;

 private:
  template <typename T>
  T get(std::string_view name, T fallback) const {
    auto it = find(name);
    if (it == values_.end()) return fallback;
    if (const T* v = std::get_if<T>(&it->second)) return *v;
    return fallback;
  }
  using Entry = std::pair<std::string, AttrValue>;
  std::vector<Entry>::const_iterator lowerBound(std::string_view name) const {
    return std::lower_bound(values_.begin(), values_.end(), name,
                            [](const Entry& e, std::string_view n) { return std::string_view(e.first) < n; });
  }
  std::vector<Entry>::const_iterator find(std::string_view name) const {
    // A node has a handful of attributes, read by kernels and inference many times a draw: a
    // scan that compares lengths first beats a binary search of string comparisons.
    return std::find_if(values_.begin(), values_.end(), [&](const Entry& e) { return std::string_view(e.first) == name; });
  }
  /// The value named `name`, inserted in name order (as an int 0) when absent.
  AttrValue& slot(std::string_view name) {
    auto at = values_.begin() + (lowerBound(name) - values_.cbegin());
    if (at == values_.end() || at->first != name) at = values_.insert(at, Entry(std::string(name), AttrValue()));
    return at->second;
  }
  std::vector<Entry> values_;  ///< sorted by name, each name once
};

/// An attribute value as the text form writes it: 3, 0.5, "nearest", [1,2], [0.5,1.0],
/// ["Tanh","Relu"] (empty lists: [] for ints, f[] for floats, s[] for strings); a graph
/// prints as its text form, with outer-scope values under the names %N they would have
/// in a graph of their own.
std::string attrText(const AttrValue& value);

}  // namespace nnfuzz
