// reduce.h - shrinking a failing case to the fewest operations that still fail the same way.
//
// A sub-case keeps a subset of the original nodes, in their order. A value a kept node reads
// but no kept node makes is cut: it becomes a weight holding its reference contents when it is
// constant in the original (it depends on weights only, so the SUT saw a constant there too),
// else a runtime input fed its reference contents. Every kept result that no kept node reads,
// or that was an output before, is an output; its reference contents are the expectation.
//
// The search (delta debugging, Zeller's ddmin restricted to complements) asks a predicate
// "does this sub-case still show the same bug?"; the caller runs the SUT and compares
// signatures. Two cheap guesses come first: the nodes that feed the outputs the bug is about,
// and single nodes of operator types already known to be culprits for this SUT (a repeat of a
// known bug then costs one or two runs). A search that finishes within its budget leaves a
// 1-minimal case: dropping any single node loses the bug.
//
// Dropping nodes is the first pass. The case it leaves then goes through the passes of
// reduce_schedule.h (shrink dims and ranks, reset attributes, narrow dtypes, constants for
// operands, fewer outputs, plainer values), each variant kept only while the predicate holds.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace nnfuzz {

/// A self-contained case cut out of a bigger one.
struct SubCase {
  Graph graph;
  std::vector<Tensor> inputs;    ///< one per graph.inputs(), in order
  std::vector<Tensor> expected;  ///< reference contents, one per graph.outputs()
};

/// The sub-case of `graph` keeping the nodes `keep` (any order; must be live nodes of `graph`).
/// `values` holds the reference contents of every value id (interp's runGraphAll).
SubCase extractSubCase(const Graph& graph, const std::vector<Tensor>& values, const std::vector<NodeId>& keep);

/// The live nodes that `graph`'s outputs at `positions` depend on, in order.
std::vector<NodeId> coneOf(const Graph& graph, const std::vector<size_t>& positions);

struct ReduceOptions {
  size_t maxTries = 48;                 ///< predicate calls at most
  std::vector<std::string> suspects;    ///< op types to try alone first
  std::vector<size_t> focusOutputs;     ///< output positions the bug shows in (empty: unknown)
  size_t maxPassTries = 64;             ///< predicate calls for the passes after ddmin (0: none)
};

struct Reduction {
  SubCase reduced;             ///< the smallest failing sub-case found (set only when shrunk)
  std::vector<NodeId> kept;    ///< its nodes, as ids of the original graph
  size_t tries = 0;            ///< predicate calls made
  bool shrunk = false;         ///< fewer nodes than the original, or a pass changed the case
  bool minimal = false;        ///< the search finished: dropping any one node loses the bug
  size_t passTries = 0;        ///< of `tries`, those the passes after ddmin made
  bool passesFinished = false; ///< the passes ran until none helped
  std::vector<std::string> passesKept;  ///< the passes that kept a variant, in table order
};

/// Reduces the case (`graph`, runtime `inputs`) while `stillFails` holds. The whole case is
/// assumed to fail and is not re-run.
Reduction reduceCase(const Graph& graph, const std::vector<Tensor>& inputs,
                     const std::function<bool(const SubCase&)>& stillFails, const ReduceOptions& options = {});

}  // namespace nnfuzz
