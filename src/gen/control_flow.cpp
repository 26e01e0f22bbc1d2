// control_flow.cpp - building If, Loop and Scan nodes with grown bodies (control_flow.h).
#include "gen/control_flow.h"

#include <algorithm>
#include <memory>

#include "interp/interpreter.h"
#include "interp/values.h"
#include "ops/common.h"
#include "ops/infer_node.h"
#include "ops/instantiate.h"
#include "ops/registry.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

/// Most outer values a body is offered (it keeps those it reads).
constexpr int kMaxOffered = 4;

/// How much likelier an If, Loop or Scan is inside a body than in the model.
constexpr double kNestedControlFlowBoost = 8;

Tensor sliceAt(const Tensor& t, int axis, int64_t index) {
  TensorType type = t.type;
  type.shape.erase(type.shape.begin() + axis);
  Tensor out(type);
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= t.type.shape[static_cast<size_t>(i)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < t.type.shape.size(); ++i) inner *= t.type.shape[i];
  const int64_t n = t.type.shape[static_cast<size_t>(axis)];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      out.data[static_cast<size_t>(o * inner + i)] = t.data[static_cast<size_t>((o * n + index) * inner + i)];
  return out;
}

// One body being grown: its graph, a pool of its values with their first-run contents,
// and the outer value each of its outer parameters stands for.
class BodyGrower {
 public:
  BodyGrower(const GenConfig& config, const BodyOps& ops, Rng& rng)
      : config_(config), ops_(ops), rng_(rng), pool_(graph_, rng), builder_(graph_, pool_) {
    graph_.markBody();
  }
  BodyGrower(const BodyGrower&) = delete;
  BodyGrower& operator=(const BodyGrower&) = delete;

  Graph& graph() { return graph_; }
  ValuePool& pool() { return pool_; }
  EvalBuilder& builder() { return builder_; }

  ValueId formal(Tensor data) {
    const ValueId v = graph_.addInput(data.type);
    pool_.add(v, std::move(data));
    return v;
  }

  /// Offers up to kMaxOffered random values of the enclosing graph as outer parameters.
  void offerOuter(const Graph& outer, const ValuePool& outerPool) {
    std::vector<ValueId> candidates;
    for (ValueId p : outer.params())
      if (outer.value(p).alive) candidates.push_back(p);
    for (NodeId id : outer.nodes())
      for (ValueId v : outer.node(id).outputs) candidates.push_back(v);
    for (int k = 0; k < kMaxOffered && !candidates.empty(); ++k) {
      const auto at = static_cast<size_t>(rng_.uniformInt(0, static_cast<int64_t>(candidates.size()) - 1));
      const ValueId v = candidates[at];
      candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(at));
      // Not empty, and within the rank limit (a returned outer value goes through an Identity).
      if (outerPool.data(v).numel() == 0 || outer.value(v).type.rank() > config_.limits.maxRank) continue;
      const ValueId param = graph_.addOuter(outer.value(v).type, static_cast<uint32_t>(outerOf_.size()));
      outerOf_.push_back(v);
      pool_.add(param, outerPool.data(v));
    }
  }

  /// Appends up to `count` operations in Isra's order, each evaluated; returns how many.
  int grow(int count) {
    int added = 0;
    for (int attempt = 0; attempt < 20 * count && added < count && !ops_.ops.empty(); ++attempt) {
      const OpSpec& spec = *ops_.ops[rng_.weighted(ops_.weights)];
      if (!spec.bodies.empty()) {  // nested control flow, over this body's values
        added += buildControlFlow(spec, builder_, config_, *ops_.nested.at(&spec), rng_) ? 1 : 0;
        continue;
      }
      Instantiation inst = instantiateOp(spec, rng_, config_.limits, &pool_, config_.pickingRate);
      if (!inst.ok()) continue;
      if (std::any_of(inst.outputTypes.begin(), inst.outputTypes.end(), [](const TensorType& t) { return t.numel() == 0; }))
        continue;
      std::vector<const TensorType*> types;
      std::vector<const Tensor*> constants;
      for (const Operand& op : inst.operands) {
        types.push_back(op.omitted ? nullptr : &op.type);
        constants.push_back(op.constant ? &*op.constant : nullptr);
      }
      if (config_.avoids(spec, types, inst.attrs, constants)) continue;
      std::vector<Tensor> fresh;
      std::vector<const Tensor*> data;
      operandContents(inst, pool_, rng_, config_.values, fresh, data);
      std::vector<Tensor> results = evalOp(spec, data, inst.attrs, inst.outputTypes);
      if (!usableResults(spec, data, inst.attrs, results)) continue;
      std::vector<ValueId> operands(inst.operands.size(), kNoValue);
      for (size_t k = 0; k < inst.operands.size(); ++k) {
        const Operand& op = inst.operands[k];
        if (op.omitted) continue;
        operands[k] = op.existing != kNoValue ? op.existing : builder_.weight(std::move(fresh[k]));
      }
      builder_.commit(spec.name, std::move(operands), std::move(inst.attrs), inst.outputTypes, std::move(results));
      ++added;
    }
    return added;
  }

  /// Results of grown nodes, newest first.
  /// Results a scan output may stack: one rank below the limit, so the stacked value is within it.
  std::vector<ValueId> resultsBelowRank(int maxRank) const {
    std::vector<ValueId> out;
    for (ValueId v : results())
      if (graph_.value(v).type.rank() < maxRank) out.push_back(v);
    return out;
  }

  std::vector<ValueId> results() const {
    std::vector<ValueId> out;
    const auto order = graph_.nodes();
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      for (ValueId v : graph_.node(*it).outputs) out.push_back(v);
    return out;
  }

  /// The newest result of type `type`, or kNoValue.
  ValueId newestOfType(const TensorType& type) const {
    for (ValueId v : results())
      if (graph_.value(v).type == type) return v;
    return kNoValue;
  }

  /// Sets the outputs and drops what they do not need; returns the outer values the
  /// remaining outer parameters stand for, by their (old) capture index. An output the
  /// body does not compute (a formal input, outer value or weight) or returns twice goes
  /// through an Identity here, as export would write it, so the graph round-trips.
  const std::vector<ValueId>& finish(std::vector<ValueId> outputs) {
    std::vector<ValueId> seen;
    for (ValueId& v : outputs) {
      const bool repeated = std::find(seen.begin(), seen.end(), v) != seen.end();
      seen.push_back(v);
      if (graph_.value(v).kind == ValueKind::Result && !repeated) continue;
      const NodeId copy = graph_.addNode("Identity", {v}, {}, {graph_.value(v).type});
      v = graph_.node(copy).outputs[0];
    }
    graph_.setOutputs(std::move(outputs));
    graph_.removeUnused();
    return outerOf_;
  }

 private:
  const GenConfig& config_;
  const BodyOps& ops_;
  Rng& rng_;
  Graph graph_;
  ValuePool pool_;
  EvalBuilder builder_;
  std::vector<ValueId> outerOf_;
};

// Renumbers the outer parameters of finished bodies onto one capture list for their node.
std::vector<ValueId> bindCaptures(const std::vector<BodyGrower*>& bodies) {
  std::vector<ValueId> captures;
  for (BodyGrower* b : bodies) {
    const std::vector<ValueId>& outerOf = b->finish(b->graph().outputs());
    for (ValueId p : b->graph().paramList()) {
      Value& v = b->graph().value(p);
      if (v.kind != ValueKind::Outer) continue;
      const ValueId outer = outerOf[v.capture];
      auto at = std::find(captures.begin(), captures.end(), outer);
      v.capture = static_cast<uint32_t>(at - captures.begin());
      if (at == captures.end()) captures.push_back(outer);
    }
  }
  return captures;
}

// An operand of the node: an existing value, or fresh contents that become a weight or a
// runtime input only if the node is committed (so a dropped node leaves nothing behind).
struct NodeOperand {
  ValueId existing = kNoValue;
  Tensor fresh;
  bool input = false;
  bool omitted = false;
};
NodeOperand existing(ValueId v) { return {v, {}, false, false}; }
NodeOperand freshWeight(Tensor t) { return {kNoValue, std::move(t), false, false}; }
NodeOperand freshInput(Tensor t) { return {kNoValue, std::move(t), true, false}; }
NodeOperand omitted() { return {kNoValue, {}, false, true}; }

// Evaluates the finished node and commits it when its results are usable.
bool commitNode(const OpSpec& spec, EvalBuilder& builder, const GenConfig& config, std::vector<NodeOperand> operands,
                Attributes attrs, std::vector<ValueId> captures) {
  Graph& g = builder.graph();
  ValuePool& pool = builder.pool();
  std::vector<const TensorType*> types;
  std::vector<const Tensor*> constants, data, captured;
  for (const NodeOperand& op : operands) {
    if (op.omitted) {
      types.push_back(nullptr);
      data.push_back(nullptr);
      constants.push_back(nullptr);
      continue;
    }
    const bool fresh = op.existing == kNoValue;
    types.push_back(fresh ? &op.fresh.type : &g.value(op.existing).type);
    data.push_back(fresh ? &op.fresh : &pool.data(op.existing));
    const bool weight = fresh ? !op.input : g.value(op.existing).kind == ValueKind::Weight;
    constants.push_back(weight ? data.back() : nullptr);
  }
  // The config's avoid rules hold for the node itself too (Loop without cond for ONNX Runtime).
  if (config.avoids(spec, types, attrs, constants)) return false;
  for (ValueId v : captures) captured.push_back(&pool.data(v));
  InferResult inferred = inferNode(spec, types, constants, attrs);
  if (!inferred.ok()) return false;
  for (const TensorType& t : inferred.types)
    if (t.numel() == 0) return false;
  std::vector<Tensor> results;
  try {
    results = evalOp(spec, data, attrs, inferred.types, captured);
  } catch (const Error&) {
    return false;  // e.g. a Loop whose condition cut its scan outputs short
  }
  if (!usableResults(spec, data, attrs, results)) return false;
  std::vector<ValueId> ids;
  for (NodeOperand& op : operands) {
    if (op.existing != kNoValue || op.omitted) ids.push_back(op.existing);
    else ids.push_back(op.input ? builder.input(std::move(op.fresh)) : builder.weight(std::move(op.fresh)));
  }
  builder.commit(spec.name, std::move(ids), std::move(attrs), inferred.types, std::move(results), std::move(captures));
  return true;
}

// A fresh value of rank minRank..3 in the config's dtypes and dims.
Tensor freshTensor(const GenConfig& config, Rng& rng, int minRank = 0) {
  const int rank = static_cast<int>(rng.uniformInt(minRank, std::max(minRank, std::min(config.limits.maxRank, 3))));
  const TensorType type{opsupport::sampleDType(rng, config.limits, opsupport::kAllTypes),
                        opsupport::sampleShape(rng, config.limits, rank)};
  return sampleTensor(type, defaultRange(type.dtype), rng);
}

int bodySize(Rng& rng) { return static_cast<int>(rng.uniformInt(1, kMaxBodyOps)); }

ValueId pickAny(EvalBuilder& builder, const std::function<bool(const TensorType&)>& accepts) {
  return builder.pool().pickExisting(accepts, [](DType) { return ValueRange{-1e300, 1e300, 0}; });
}

bool buildIf(const OpSpec& spec, EvalBuilder& builder, const GenConfig& config, const BodyOps& ops, Rng& rng) {
  const Graph& g = builder.graph();
  BodyGrower thenBody(config, ops, rng), elseBody(config, ops, rng);
  thenBody.offerOuter(g, builder.pool());
  elseBody.offerOuter(g, builder.pool());
  if (thenBody.grow(bodySize(rng)) == 0) return false;
  const std::vector<ValueId> made = thenBody.results();
  const ValueId thenOut = made[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(made.size()) - 1))];
  const TensorType type = thenBody.graph().value(thenOut).type;
  elseBody.grow(bodySize(rng));
  ValueId elseOut = elseBody.newestOfType(type);
  if (elseOut == kNoValue)
    elseOut = elseBody.pool().pickExisting([&](const TensorType& t) { return t == type; },
                                           [](DType) { return ValueRange{-1e300, 1e300, 0}; });
  if (elseOut == kNoValue) elseOut = elseBody.builder().weight(sampleTensor(type, defaultRange(type.dtype), rng));
  thenBody.graph().setOutputs({thenOut});
  elseBody.graph().setOutputs({elseOut});
  std::vector<ValueId> captures = bindCaptures({&thenBody, &elseBody});
  // cond: an existing one-element bool, or a fresh runtime input (so no engine can fold it).
  const ValueId cond =
      pickAny(builder, [](const TensorType& t) { return t.dtype == DType::Bool && t.numel() == 1 && t.rank() <= 1; });
  std::vector<NodeOperand> operands;
  if (cond == kNoValue || rng.bernoulli(0.5))
    operands.push_back(freshInput(scalarTensor(DType::Bool, rng.bernoulli(0.5) ? 1 : 0)));
  else
    operands.push_back(existing(cond));
  Attributes attrs;
  attrs.setGraph("else_branch", GraphAttr(std::move(elseBody.graph())));
  attrs.setGraph("then_branch", GraphAttr(std::move(thenBody.graph())));
  return commitNode(spec, builder, config, std::move(operands), std::move(attrs), std::move(captures));
}

bool buildLoop(const OpSpec& spec, EvalBuilder& builder, const GenConfig& config, const BodyOps& ops, Rng& rng) {
  const Graph& g = builder.graph();
  const ValueId init = pickAny(builder, [](const TensorType& t) { return t.numel() > 0; });
  NodeOperand initOp = init != kNoValue && !rng.bernoulli(0.1) ? existing(init) : freshInput(freshTensor(config, rng));
  const Tensor& initData = initOp.existing != kNoValue ? builder.pool().data(initOp.existing) : initOp.fresh;
  const TensorType carriedType = initData.type;
  const int64_t trips = rng.uniformInt(1, 3);
  BodyGrower body(config, ops, rng);
  const ValueId iter = body.formal(scalarTensor(DType::Int64, 0));
  const ValueId condIn = body.formal(scalarTensor(DType::Bool, 1));
  const ValueId carried = body.formal(initData);
  body.offerOuter(g, builder.pool());
  if (body.grow(bodySize(rng)) == 0) return false;
  ValueId carriedOut = body.newestOfType(carriedType);
  if (carriedOut == kNoValue) carriedOut = carried;
  // The forms exporters write: M and cond; M alone (cond omitted: a for loop); cond alone
  // (M omitted: a while loop, which only the body's condition ends, so it has no scan outputs).
  const double form = rng.uniformReal(0, 1);
  const bool withoutM = form < 0.2, withoutCond = form >= 0.2 && form < 0.35;
  std::vector<ValueId> outputs{condIn, carriedOut};
  const std::vector<ValueId> stackable = body.resultsBelowRank(config.limits.maxRank);
  if (!withoutM && !stackable.empty() && rng.bernoulli(0.6)) {  // a scan output: the loop must run all M iterations
    outputs.push_back(stackable[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(stackable.size()) - 1))]);
  } else if (withoutM || rng.bernoulli(0.5)) {  // a condition: go on while iteration < c
    const ValueId c = body.builder().weight(scalarTensor(DType::Int64, static_cast<double>(rng.uniformInt(0, trips - 1))));
    auto less = body.builder().append("Less", {iter, c}, {});
    if (!less) return false;
    outputs[0] = less->front();
  }
  body.graph().setOutputs(outputs);
  std::vector<ValueId> captures = bindCaptures({&body});
  std::vector<NodeOperand> operands;
  operands.push_back(withoutM ? omitted() : freshWeight(scalarTensor(DType::Int64, static_cast<double>(trips))));
  operands.push_back(withoutCond ? omitted() : freshWeight(scalarTensor(DType::Bool, 1)));
  operands.push_back(std::move(initOp));
  Attributes attrs;
  attrs.setGraph("body", GraphAttr(std::move(body.graph())));
  return commitNode(spec, builder, config, std::move(operands), std::move(attrs), std::move(captures));
}

bool buildScan(const OpSpec& spec, EvalBuilder& builder, const GenConfig& config, const BodyOps& ops, Rng& rng) {
  const Graph& g = builder.graph();
  const ValueId x = pickAny(builder, [](const TensorType& t) { return t.rank() >= 1 && t.numel() > 0; });
  NodeOperand xOp = x != kNoValue && !rng.bernoulli(0.1) ? existing(x) : freshInput(freshTensor(config, rng, 1));
  const Tensor& xData = xOp.existing != kNoValue ? builder.pool().data(xOp.existing) : xOp.fresh;
  const TensorType xType = xData.type;
  const int axis = static_cast<int>(rng.uniformInt(0, xType.rank() - 1));
  const bool reverse = rng.bernoulli(0.3);
  const int64_t length = xType.shape[static_cast<size_t>(axis)];
  const Tensor first = sliceAt(xData, axis, reverse ? length - 1 : 0);
  const TensorType sliceType = first.type;
  const ValueId state =
      rng.bernoulli(0.5) ? pickAny(builder, [&](const TensorType& t) { return t == sliceType; }) : kNoValue;
  std::vector<NodeOperand> operands;
  operands.push_back(state != kNoValue ? existing(state)
                                       : freshWeight(sampleTensor(sliceType, defaultRange(sliceType.dtype), rng)));
  operands.push_back(std::move(xOp));
  BodyGrower body(config, ops, rng);
  body.formal(state != kNoValue ? builder.pool().data(state) : operands.front().fresh);
  const ValueId sliceIn = body.formal(first);
  body.offerOuter(g, builder.pool());
  if (body.grow(bodySize(rng)) == 0) return false;
  ValueId stateOut = body.newestOfType(sliceType);
  if (stateOut == kNoValue) stateOut = sliceIn;
  std::vector<ValueId> outputs{stateOut};
  Attributes attrs;
  attrs.setInt("num_scan_inputs", 1);
  if (axis != 0 || rng.bernoulli(0.3)) attrs.setInts("scan_input_axes", {rng.bernoulli(0.3) ? axis - xType.rank() : axis});
  if (reverse) attrs.setInts("scan_input_directions", {1});
  const std::vector<ValueId> stackable = body.resultsBelowRank(config.limits.maxRank);
  if (!stackable.empty() && rng.bernoulli(0.8)) {
    const ValueId element = stackable[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(stackable.size()) - 1))];
    outputs.push_back(element);
    const int rank = body.graph().value(element).type.rank();
    const auto outAxis = rng.uniformInt(0, rank);
    if (outAxis != 0) attrs.setInts("scan_output_axes", {outAxis});
    if (rng.bernoulli(0.3)) attrs.setInts("scan_output_directions", {1});
  }
  body.graph().setOutputs(outputs);
  std::vector<ValueId> captures = bindCaptures({&body});
  attrs.setGraph("body", GraphAttr(std::move(body.graph())));
  return commitNode(spec, builder, config, std::move(operands), std::move(attrs), std::move(captures));
}

}  // namespace

BodyOps bodyOpsFor(const OpSpec& op, const std::vector<const OpSpec*>& all, const std::vector<double>& weights,
                   bool repeated, int level) {
  repeated = repeated || op.name != "If";
  BodyOps out;
  for (size_t i = 0; i < all.size(); ++i) {
    const OpSpec& inner = *all[i];
    if (!inner.bodies.empty()) {
      if (level >= kMaxNesting) continue;
      out.nested[&inner] = std::make_shared<const BodyOps>(bodyOpsFor(inner, all, weights, repeated, level + 1));
    } else if (repeated && inner.unstable) {
      continue;
    }
    out.ops.push_back(&inner);
    // Nested control flow is a bug class of its own; at the model's weights a body of 1..3
    // operators would hold it in fewer than 1 of 200 models.
    out.weights.push_back(weights[i] * (inner.bodies.empty() ? 1.0 : kNestedControlFlowBoost));
  }
  return out;
}

bool buildControlFlow(const OpSpec& spec, EvalBuilder& builder, const GenConfig& config, const BodyOps& bodyOps,
                      Rng& rng) {
  const size_t mark = builder.mark();
  bool ok = false;
  if (spec.name == "If") ok = buildIf(spec, builder, config, bodyOps, rng);
  if (spec.name == "Loop") ok = buildLoop(spec, builder, config, bodyOps, rng);
  if (spec.name == "Scan") ok = buildScan(spec, builder, config, bodyOps, rng);
  if (!ok) builder.rollback(mark);
  return ok;
}

}  // namespace nnfuzz
