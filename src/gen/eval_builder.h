// eval_builder.h - appends operator nodes whose results are computed as they are appended,
// and takes them back when a block cannot be used after all.
//
// Generators evaluate every operation while building (value_pool.h), so a node is appended
// only if its results are usable as test data: finite, not huge, and not within a hair of
// a rounding or comparison boundary (OpSpec::unstable).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "gen/value_pool.h"
#include "ir/graph.h"
#include "ops/op_spec.h"

namespace nnfuzz {

/// Results above this magnitude make relative comparison across SUTs meaningless.
inline constexpr double kMaxResultMagnitude = 1e6;

/// True if `results` of `spec` on `operands` are finite, at most kMaxResultMagnitude and
/// not unstable.
bool usableResults(const OpSpec& spec, const std::vector<const Tensor*>& operands, const Attributes& attrs,
                   std::vector<Tensor>& results);

/// Appends to `outputs` the results of `node` that become graph outputs: the unused ones,
/// less some unused optional ones (OpSpec::optionalOutputs) left absent, never all of the
/// node's results. Draws from rng only for nodes with optional results.
void appendGraphOutputs(const Graph& graph, NodeId node, Rng& rng, std::vector<ValueId>& outputs);

class EvalBuilder {
 public:
  EvalBuilder(Graph& graph, ValuePool& pool) : graph_(graph), pool_(pool) {}

  Graph& graph() { return graph_; }
  ValuePool& pool() { return pool_; }
  const TensorType& typeOf(ValueId v) const { return graph_.value(v).type; }

  /// A new weight holding `data`.
  ValueId weight(Tensor data);
  /// A new runtime input holding `data`.
  ValueId input(Tensor data);
  /// Appends `op` on `inputs` (kNoValue: omitted) and computes its results; nullopt (and
  /// nothing appended) when shape inference rejects it or its results are unusable.
  std::optional<std::vector<ValueId>> append(std::string_view op, std::vector<ValueId> inputs, Attributes attrs);
  /// Appends a node whose types and results the caller computed (`captures`: for a node
  /// with bodies, the values they read, graph.h).
  NodeId commit(std::string_view op, std::vector<ValueId> inputs, Attributes attrs,
                const std::vector<TensorType>& outputTypes, std::vector<Tensor> results,
                std::vector<ValueId> captures = {});

  /// A point to roll back to.
  size_t mark() const { return appended_.size(); }
  /// Removes the nodes appended since `mark`, newest first (their weights and inputs stay
  /// until Graph::removeUnused).
  void rollback(size_t mark);
  /// The nodes appended and not rolled back, in order.
  const std::vector<NodeId>& appended() const { return appended_; }

 private:
  Graph& graph_;
  ValuePool& pool_;
  std::vector<NodeId> appended_;
};

}  // namespace nnfuzz
