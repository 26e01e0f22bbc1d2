// blame.cpp - first-divergence blame and the culprit's experiments (see blame.h).
#include "triage/blame.h"

#include <algorithm>
#include <set>

#include "interp/interpreter.h"
#include "ops/registry.h"
#include "triage/reduce_variant.h"

namespace nnfuzz {

namespace {

// True when some output of the SUT's run disagrees with the case's expectation.
bool wrong(const std::optional<std::vector<Tensor>>& got, const SubCase& c, const Agrees& agrees) {
  if (!got || got->size() != c.expected.size()) return false;
  for (size_t k = 0; k < got->size(); ++k)
    if (!agrees((*got)[k], c.expected[k])) return true;
  return false;
}

// A switch: an int attribute whose schema domain is {0, 1} (keepdims, transA, ceil_mode).
bool isSwitch(const std::string& op, const std::string& name) {
  const OpSpec* spec = findOp(op);
  if (!spec) return false;
  for (const AttrSpec& a : spec->attrs)
    if (a.name == name) return a.kind == AttrKind::Int && a.lo == 0 && a.hi == 1;
  return false;
}

std::string attrShown(const std::string& op, const std::string& name, const AttrValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return name + "=" + *s;
  if (const auto* i = std::get_if<int64_t>(&value); i && isSwitch(op, name)) return name + "=" + std::to_string(*i);
  return name;
}

std::vector<std::string> dtypesOf(const Graph& g, const Node& n) {
  std::vector<std::string> out;
  for (ValueId v : n.inputs) out.push_back(v == kNoValue ? "-" : std::string(dtypeName(g.value(v).type.dtype)));
  return out;
}

// The operator types inside a node's bodies, sorted and distinct.
std::vector<std::string> bodyOpsOf(const Node& n) {
  std::set<std::string> ops;
  for (const auto& [name, value] : n.attrs)
    if (const auto* body = std::get_if<GraphAttr>(&value))
      forEachNodeDeep(body->graph(), [&](const Node& inner, const Graph&) { ops.insert(inner.op); });
  return {ops.begin(), ops.end()};
}

// The culprit with everything it has (its context may matter: no experiments possible).
Culprit whole(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  Culprit c{n.op, dtypesOf(g, n), {}, false, false, bodyOpsOf(n)};
  for (const auto& [name, value] : n.attrs) c.attrs.push_back(attrShown(n.op, name, value));
  return c;
}

// Experiments on the culprit alone (see blame.h); returns `fallback` when alone it passes.
Culprit isolate(const Graph& g, const std::vector<Tensor>& values, NodeId id, const SutRun& run,
                const Agrees& agrees, size_t& runs, Culprit fallback) {
  const SubCase alone = extractSubCase(g, values, {id});
  ++runs;
  if (!wrong(run(alone), alone, agrees)) return fallback;
  // Whether the bug survives a change; nullopt when the change makes no valid case (a required
  // attribute, an operator without f32): then it cannot be told apart, and stays in the name.
  auto stillWrong = [&](SubCase variant) -> std::optional<bool> {
    auto settled = settleVariant(std::move(variant));
    if (!settled) return std::nullopt;
    ++runs;
    return wrong(run(settled->sub), settled->sub, agrees);
  };
  auto matters = [&](SubCase variant) { return !stillWrong(std::move(variant)).value_or(false); };
  const NodeId node = alone.graph.nodes().front();
  const Node& n = alone.graph.node(node);
  Culprit c{n.op, {}, {}, true, false, bodyOpsOf(n)};
  for (const auto& [name, value] : n.attrs) {
    SubCase variant = alone;
    variant.graph.node(node).attrs.erase(name);
    if (matters(std::move(variant))) c.attrs.push_back(attrShown(n.op, name, value));
  }
  // Dtypes: every operand made f32 at once; if that loses the bug (or makes no valid case), each
  // operand alone. A position whose own change keeps the bug, or that is f32 already, reads "*":
  // GatherND's data dtype does not matter to a negative-index bug (bool, i64 or f32 data), its
  // index dtype cannot be f32, so GatherND(i64,i64) and GatherND(bool,i64) are GatherND(*,i64),
  // or GatherND(*,int) when i32 indices show the bug too.
  const std::vector<ValueId> params = dataParams(alone.graph);
  auto narrowable = [&](ValueId v) {
    const DType t = alone.graph.value(v).type.dtype;
    return t != DType::Float32 && (isFloat(t) || isInteger(t) || t == DType::Bool) &&
           std::find(params.begin(), params.end(), v) != params.end();
  };
  SubCase f32 = alone;
  bool narrowed = false;
  for (ValueId v : params) {
    if (!narrowable(v)) continue;
    setParam(f32, v, castTensor(paramData(f32, v), DType::Float32));
    narrowed = true;
  }
  if (!narrowed || !matters(std::move(f32))) return c;
  c.dtypes = dtypesOf(alone.graph, n);
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const ValueId v = n.inputs[k];
    if (v == kNoValue) continue;
    if (alone.graph.value(v).type.dtype == DType::Float32) {
      c.dtypes[k] = "*";
      continue;
    }
    if (!narrowable(v)) continue;
    SubCase one = alone;
    setParam(one, v, castTensor(paramData(one, v), DType::Float32));
    if (stillWrong(std::move(one)).value_or(false)) {
      c.dtypes[k] = "*";
      continue;
    }
    // An integer operand that cannot be f32 (indices, an exponent the bug needs integral) may
    // still not care for its width: i32 and i64 alike read "int", so GatherElements(*,i32) and
    // GatherElements(*,i64) of one negative-index bug are one name.
    const DType t = alone.graph.value(v).type.dtype;
    if (t != DType::Int32 && t != DType::Int64) continue;
    SubCase width = alone;
    setParam(width, v, castTensor(paramData(width, v), t == DType::Int32 ? DType::Int64 : DType::Int32));
    if (stillWrong(std::move(width)).value_or(false)) c.dtypes[k] = "int";
  }
  while (!c.dtypes.empty() && c.dtypes.back() == "*") c.dtypes.pop_back();
  return c;
}

// Whether the last operator, right alone, is wrong behind any producer: each of its operands that
// a node computed is fed through Neg, then through Relu instead (other operators, other values;
// the reference recomputes the expectation). Wrong both ways, the fault is the operator's wherever
// its operand is computed, not a fusion of two particular operators (MNN's Dropout mask, OpenVINO
// 2025.2's Softsign in noopt).
bool wrongBehindAnyProducer(const Graph& g, const std::vector<Tensor>& values, NodeId last, const SutRun& run,
                            const Agrees& agrees, size_t& runs) {
  for (const char* producer : {"Neg", "Relu"}) {
    SubCase variant = extractSubCase(g, values, {last});
    const NodeId node = variant.graph.nodes().front();
    bool fed = false;
    for (uint32_t k = 0; k < g.node(last).inputs.size(); ++k) {
      const ValueId original = g.node(last).inputs[k];
      const ValueId now = variant.graph.node(node).inputs[k];
      if (original == kNoValue || g.value(original).kind != ValueKind::Result ||
          variant.graph.value(now).kind != ValueKind::Input || !isFloat(variant.graph.value(now).type.dtype))
        continue;
      const NodeId made = variant.graph.insertNode(node, producer, {now}, {}, {variant.graph.value(now).type});
      variant.graph.setOperand(node, k, variant.graph.node(made).outputs[0]);
      fed = true;
    }
    if (!fed) return false;
    const auto settled = settleVariant(std::move(variant));
    if (!settled) return false;
    ++runs;
    if (!wrong(run(settled->sub), settled->sub, agrees)) return false;
  }
  return true;
}

// "(a,b)", "[a,b]", "{a,b}": a list in its brackets, or nothing when empty.
std::string bracketed(const std::vector<std::string>& items, char open, char close) {
  if (items.empty()) return "";
  std::string s(1, open);
  for (size_t i = 0; i < items.size(); ++i) s += (i ? "," : "") + items[i];
  return s + close;
}

}  // namespace

std::string Culprit::text() const {
  std::string s = op + bracketed(dtypes, '(', ')') + bracketed(bodyOps, '[', ']') + bracketed(attrs, '{', '}');
  if (behindAnyProducer) s += " behind any producer";
  return s;
}

std::string Culprit::identity() const {
  Culprit named = *this;
  named.attrs.clear();
  return named.text();
}

Blame blameFirstDivergence(const SubCase& failing, const SutRun& run, const Agrees& agrees, bool wholeFails) {
  Blame blame;
  const Graph& g = failing.graph;
  const std::vector<Tensor> values = runGraphAll(g, failing.inputs);
  const std::vector<NodeId> nodes = g.nodes();
  std::optional<NodeId> culprit;
  if (!wholeFails) {
    // Every result exposed: the original outputs first, so "the bug is still there" is easy to see.
    SubCase exposed = failing;
    std::set<ValueId> shown(g.outputs().begin(), g.outputs().end());
    for (NodeId id : nodes)
      for (ValueId v : g.node(id).outputs)
        if (shown.insert(v).second) {
          exposed.graph.addOutput(v);
          exposed.expected.push_back(values[v]);
        }
    ++blame.runs;
    const auto got = run(exposed);
    SubCase original = failing;
    std::optional<std::vector<Tensor>> head;
    // A SUT may hand back fewer outputs than asked for (MNN drops some): then nothing is read.
    const bool complete = got && got->size() == exposed.expected.size();
    if (complete) head = std::vector<Tensor>(got->begin(), got->begin() + static_cast<std::ptrdiff_t>(g.outputs().size()));
    if (complete && wrong(head, original, agrees)) {
      std::vector<bool> right(g.valueCapacity(), true);
      for (size_t k = 0; k < exposed.graph.outputs().size(); ++k)
        right[exposed.graph.outputs()[k]] = agrees((*got)[k], exposed.expected[k]);
      for (NodeId id : nodes) {
        const Node& n = g.node(id);
        const bool inputsRight =
            std::all_of(n.inputs.begin(), n.inputs.end(), [&](ValueId v) { return v == kNoValue || right[v]; });
        const bool outputWrong = std::any_of(n.outputs.begin(), n.outputs.end(), [&](ValueId v) { return !right[v]; });
        if (inputsRight && outputWrong) {
          culprit = id;
          blame.how = "exposed";
          break;
        }
      }
    }
  }
  // Prefixes, each ending at one more operator: the first that comes out wrong ends at the culprit.
  // The whole case is not one of them: it is known to fail, and a failure that only the whole
  // shows (two operators fused) has no single culprit.
  for (size_t i = 0; !culprit && i + 1 < nodes.size(); ++i) {
    const SubCase prefix = extractSubCase(g, values, std::vector<NodeId>(nodes.begin(), nodes.begin() + i + 1));
    ++blame.runs;
    if (wrong(run(prefix), prefix, agrees)) {
      culprit = nodes[i];
      blame.how = "prefixes";
    }
  }
  // Every proper prefix is right and the whole is wrong: the last operator took right inputs to a
  // wrong result, if alone it is wrong too (MNN's Dropout mask after any producer). Right alone,
  // it is wrong only fused with what feeds it: no single culprit.
  if (!culprit && !wholeFails && nodes.size() > 1) {
    const SubCase last = extractSubCase(g, values, {nodes.back()});
    ++blame.runs;
    if (wrong(run(last), last, agrees)) {
      culprit = nodes.back();
      blame.how = "last operator alone";
    }
  }
  bool behind = false;
  if (!culprit && !wholeFails && nodes.size() > 1 &&
      wrongBehindAnyProducer(g, values, nodes.back(), run, agrees, blame.runs)) {
    culprit = nodes.back();
    behind = true;
    blame.how = "last operator behind any producer";
  }
  if (!culprit) {
    blame.how = "no intermediate value is wrong";
    return blame;
  }
  blame.culprit = isolate(g, values, *culprit, run, agrees, blame.runs, whole(g, *culprit));
  // Right alone: its context matters, and "behind any producer" may be all of it.
  if (!blame.culprit->isolated && !behind) behind = wrongBehindAnyProducer(g, values, *culprit, run, agrees, blame.runs);
  blame.culprit->behindAnyProducer = behind;
  return blame;
}

}  // namespace nnfuzz
