// blame.h - first-divergence blame: which operator of a failing case goes wrong first.
//
// A wrong result deep in a model is named by the first operator whose output is wrong while
// its inputs are right. Two ways to see intermediate values: run the case with every result
// exposed as an extra output (one SUT run), or, when exposing them changes what the SUT does
// (the bug disappears, or the case does not compile at all, as for an MCF whose model holds a
// wrong value upstream), run its prefixes, each ending at one more operator, until one comes
// out wrong (the whole case is not a prefix). When every proper prefix is right, the last operator
// is the culprit if alone, on right inputs, it is wrong too, or if, right alone, it is wrong behind
// other producers too (Neg and Relu in place of the one it had). No culprit when none of these shows
// a wrong value (a fusion of two particular operators): the reducer's result stands.
//
// The culprit names the bug by what matters to it, found by experiment on the operator alone
// with reference inputs: each attribute is reset to its default, and operands are made f32; what
// loses the bug when changed matters. Attribute values are shown for strings and 0/1 switches
// (they pick a code path: mode="cubic", transA=1) and not for other numbers and lists (data a
// kernel treats alike: axes=[1] and axes=[0,2] hit one axes bug). When the operator alone does
// not fail (the bug needs its context), every attribute and dtype it has is kept. A dtype that
// can be changed to f32 without losing the bug reads "*", an integer one that cannot be f32 but
// keeps the bug as i32 and as i64 reads "int" (see isolate in blame.cpp).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "triage/reduce.h"

namespace nnfuzz {

/// The operator a wrong result starts at, by what matters to the bug.
struct Culprit {
  std::string op;
  std::vector<std::string> dtypes;  ///< operand dtypes ("-" for omitted); empty when they do not matter
  std::vector<std::string> attrs;   ///< "name" or "name=value", in name order
  bool isolated = false;            ///< the operator alone, on reference inputs, fails
  /// Right alone, wrong behind Neg and behind Relu alike: the operator is wrong whenever its
  /// operand is computed, whatever computes it (shown and named: " behind any producer").
  bool behindAnyProducer = false;
  /// If, Loop, Scan: the sorted operator types of its bodies, in the name ("Scan[ReduceL1]"):
  /// blame stops at the body's owner, and two bugs in two bodies are two bugs.
  std::vector<std::string> bodyOps = {};
  /// "LRN{bias}", "Div(i8,i8)", "Resize{coordinate_transformation_mode=asymmetric,mode=nearest}".
  std::string text() const;
  /// What names the bug: the op and the dtypes that matter, "Div(i8,i8)". The attributes that
  /// matter are shown (text()) but not part of it: whether resetting one loses the bug depends on
  /// the reduced shapes and values (keepdims matters to a reduce-every-axis bug only when another
  /// axis is longer than 1), so they would split one kernel bug into several. The price: two bugs
  /// of one operator of one SUT, with the same dtypes, are one signature.
  std::string identity() const;
  bool operator==(const Culprit&) const = default;
};

/// What blame found.
struct Blame {
  std::optional<Culprit> culprit;
  size_t runs = 0;   ///< SUT runs spent
  std::string how;   ///< "exposed", "prefixes", or why there is no culprit
};

/// Runs the SUT on a case: its outputs, or nullopt when it did not produce them (an error).
using SutRun = std::function<std::optional<std::vector<Tensor>>(const SubCase&)>;
/// True when the SUT's tensor agrees with the reference's under the campaign's policy.
using Agrees = std::function<bool(const Tensor& actual, const Tensor& expected)>;

/// Blames a case whose outputs the SUT gets wrong (a DCF), or that it fails on (`wholeFails`:
/// an MCF or IF, so only proper prefixes can be run).
Blame blameFirstDivergence(const SubCase& failing, const SutRun& run, const Agrees& agrees, bool wholeFails = false);

}  // namespace nnfuzz
