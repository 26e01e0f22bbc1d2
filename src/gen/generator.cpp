#include "gen/generator.h"

#include "gen/generators.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "ops/infer_node.h"
#include "ops/opset_fit.h"
#include "ops/registry.h"
#include "ops/schema_history.h"
#include "ops/version_forms.h"
#include "support/error.h"
#include "support/name_table.h"

namespace nnfuzz {

std::vector<std::string> GeneratedCase::opTypes() const {
  std::vector<std::string> ops;
  for (NodeId id : graph.nodes()) ops.push_back(qualifiedOp(graph.node(id)));
  return ops;
}

namespace {

std::unique_ptr<Generator> makeNamed(const GenConfig& config) {
  if (config.generator == "declgen") return makeDeclGen(config);
  if (config.generator == "randoop") return makeRandoopGen(config);
  if (config.generator == "graph") return makeGraphGen(config);
  if (config.generator == "neuri") return makeNeuriGen(config);
  return makeIsraGen(config);
}

// What the passes after generation need of an operator at one opset, worked out once per
// generator: schema lookups and default parsing cost more than the passes themselves.
struct OpAtOpset {
  const OpSpec* spec = nullptr;
  const SchemaVersion* here = nullptr;       // schemaAt(op, opset)
  const SchemaVersion* canonical = nullptr;  // schemaAt(op, 17)
  /// Drawn scalar attributes whose default setDefaultAttrs may write or leave out: the
  /// default is the canonical one and a binary fraction (floats: 0, 1, -0.75, ...).
  struct Default {
    std::string_view name;
    const SchemaAttr* schema;
    AttrValue value;
  };
  std::vector<Default> defaults;

  OpAtOpset(const OpSpec& op, int opset) : spec(&op) {
    here = schemaAt(op.name, opset);
    canonical = opset == 17 ? here : schemaAt(op.name, 17);
    if (!here || !canonical) return;
    for (const AttrSpec& drawn : op.attrs) {
      const SchemaAttr* a = here->attr(drawn.name);
      const SchemaAttr* c = canonical->attr(drawn.name);
      if (!a || !c || a->defaultText != c->defaultText || a->kind != c->kind) continue;
      std::optional<AttrValue> value = schemaDefault(*a);
      if (!value) continue;
      // Float defaults only where binary fractions hold them: the schema keeps float32's
      // nearest of 1e-5, a kernel's fallback the double, a few ulps apart.
      if (const auto* f = std::get_if<double>(&*value); f && std::ldexp(*f, 10) != std::floor(std::ldexp(*f, 10))) continue;
      defaults.push_back({drawn.name, a, std::move(*value)});
    }
  }
};

class OpsetTables {
 public:
  OpsetTables(const std::vector<const OpSpec*>& ops, int opset) : opset_(opset), entries_(makeEntries(ops, opset)) {}
  OpsetTables(const OpsetTables&) = delete;  // byName_ points into entries_
  /// The entry of node `n`'s operator (the spec findOp(n) gives), or nullptr when it has no
  /// spec; for an operator outside the config (a block's or a pass's), one made in `spare`.
  const OpAtOpset* of(const Node& n, std::optional<OpAtOpset>& spare) const {
    if (!n.domain.empty()) return nullptr;
    if (const OpAtOpset* const* known = byName_.find(n.op)) return *known;
    const OpSpec* spec = findOp(n);
    return spec ? &spare.emplace(*spec, opset_) : nullptr;
  }

 private:
  static std::vector<OpAtOpset> makeEntries(const std::vector<const OpSpec*>& ops, int opset) {
    std::vector<OpAtOpset> entries;
    entries.reserve(ops.size());
    for (const OpSpec* op : ops) entries.emplace_back(*op, opset);
    return entries;
  }
  static NameTable<const OpAtOpset*> index(const std::vector<OpAtOpset>& entries) {
    std::vector<std::pair<std::string_view, const OpAtOpset*>> named;
    for (const OpAtOpset& e : entries) named.emplace_back(e.spec->name, &e);
    return NameTable<const OpAtOpset*>(named);
  }
  int opset_;
  std::vector<OpAtOpset> entries_;  // the config's operators (registry specs: a name is its spec)
  NameTable<const OpAtOpset*> byName_ = index(entries_);
};

// Optional inputs after a node's last given one, written as empty names with the config's
// odds (frontends that count inputs rather than read their names take "" for an operand).
// Only where the schema at the opset has such optional, non-variadic inputs (export keeps
// them: version_forms.cpp); bodies are left as they are.
// The config's avoid rules ("empty": [k]) keep them off where a target mishandles them.
void addTrailingEmpties(Graph& graph, const GenConfig& config, const OpsetTables& tables, Rng& rng) {
  if (!(config.emptyInputs > 0) || config.format != "onnx") return;
  std::optional<OpAtOpset> spare;
  for (NodeId id : graph.nodes()) {
    Node& n = graph.node(id);
    const OpAtOpset* entry = tables.of(n, spare);
    const SchemaVersion* schema = entry ? entry->here : nullptr;
    if (!schema || n.attrs.hasGraphs()) continue;
    const OpSpec* spec = entry->spec;
    const size_t limit = std::min(static_cast<size_t>(spec->maxInputs), schema->inputs.size());
    size_t room = n.inputs.size();
    while (room < limit && schema->inputs[room].optional && !schema->inputs[room].variadic) ++room;
    if (room == n.inputs.size() || !rng.bernoulli(config.emptyInputs)) continue;
    const auto count = static_cast<size_t>(rng.uniformInt(static_cast<int64_t>(n.inputs.size()) + 1, static_cast<int64_t>(room)));
    std::vector<const TensorType*> types;
    std::vector<const Tensor*> constants;
    for (ValueId v : n.inputs) {
      types.push_back(v == kNoValue ? nullptr : &graph.value(v).type);
      constants.push_back(v == kNoValue || !graph.value(v).data ? nullptr : &*graph.value(v).data);
    }
    types.resize(count, nullptr);
    constants.resize(count, nullptr);
    if (!config.avoids(*spec, types, n.attrs, constants)) n.inputs.resize(count, kNoValue);
  }
}

// Attributes at their schema defaults, written out or left out with the config's odds
// ("default_attrs"): frontends that assume their own default, or read an attribute only when
// present, differ here. Only scalar attributes the operator's spec draws (its reference
// reads them) whose default at the opset is the canonical one, so the node means what it
// did; a node an avoid rule (or our inference) would then refuse keeps its attributes.
void setDefaultAttrs(Graph& graph, const GenConfig& config, const OpsetTables& tables, Rng& rng) {
  const DefaultAttrMix& mix = config.defaultAttrs;
  if (!(mix.written > 0 || mix.omitted > 0) || config.format != "onnx") return;
  const double odds[] = {mix.written, mix.omitted, std::max(0.0, 1 - mix.written - mix.omitted)};
  std::optional<OpAtOpset> spare;
  for (NodeId id : graph.nodes()) {
    Node& n = graph.node(id);
    const OpAtOpset* found = tables.of(n, spare);
    if (!found) continue;
    const OpAtOpset& entry = *found;
    const OpSpec* spec = entry.spec;
    if (!entry.here || !entry.canonical || n.attrs.hasGraphs()) continue;
    const size_t way = rng.weighted(odds);
    if (way == 2) continue;
    std::optional<Attributes> changed;  // copied at the first change
    for (const OpAtOpset::Default& d : entry.defaults) {
      if (way == 0 && !n.attrs.has(d.name)) {
        if (!changed) changed = n.attrs;
        changed->set(d.name, d.value);
      }
      if (way == 1)
        for (const auto& [name, held] : n.attrs)
          if (name == d.name && isSchemaDefault(held, *d.schema)) {
            if (!changed) changed = n.attrs;
            changed->erase(name);
          }
    }
    if (!changed || *changed == n.attrs) continue;
    Attributes& attrs = *changed;
    std::vector<const TensorType*> types;
    std::vector<const Tensor*> constants;
    for (ValueId v : n.inputs) {
      types.push_back(v == kNoValue ? nullptr : &graph.value(v).type);
      constants.push_back(v == kNoValue || !graph.value(v).data ? nullptr : &*graph.value(v).data);
    }
    // A default may not fit the node (QuantizeLinear's axis 1 on a 1-D input): our
    // inference must still give the node's result types.
    const InferResult inferred = inferNode(*spec, types, constants, attrs);
    bool same = inferred.ok() && inferred.types.size() >= n.outputs.size();
    for (size_t k = 0; same && k < n.outputs.size(); ++k)
      same = n.outputs[k] == kNoValue || inferred.types[k] == graph.value(n.outputs[k]).type;
    if (same && !config.avoids(*spec, types, attrs, constants)) n.attrs = std::move(attrs);
  }
}

// The named generator at each target opset (the config's one, or its mix): operators the
// opset lacks are left out, and the model's graph records the opset it was made for.
class OpsetGen : public Generator {
 public:
  explicit OpsetGen(const GenConfig& config) {
    std::map<int, double> mix = config.opsetMix;
    if (mix.empty()) mix[config.opset] = 1.0;
    for (const auto& [opset, weight] : mix) {
      if (!(weight > 0)) continue;
      // Generators may keep a reference to their config: each keeps its own here.
      GenConfig& c = *configs_.emplace_back(std::make_unique<GenConfig>(config));
      c.opset = opset;
      c.indexAvoidRules();
      c.opsetMix.clear();
      c.ops.clear();
      c.opWeights.clear();
      for (size_t k = 0; k < config.ops.size(); ++k)
        if (availableAt(config.ops[k]->name, opset)) {
          c.ops.push_back(config.ops[k]);
          c.opWeights.push_back(config.opWeights[k]);
        }
      opsets_.push_back(opset);
      weights_.push_back(weight);
      inner_.push_back(makeNamed(c));
      tables_.push_back(std::make_unique<OpsetTables>(c.ops, opset));
    }
  }

  GeneratedCase generate(Rng& rng) const override {
    // A single opset draws nothing, so such runs keep their bytes.
    const size_t k = inner_.size() == 1 ? 0 : rng.weighted(weights_);
    // Nodes are drawn in the opset's forms; a pass that rewrites the graph afterwards (the
    // graph generator's mutations) may still leave one the opset cannot express: draw again.
    GeneratedCase c = inner_[k]->generate(rng);
    std::optional<std::string> misfit = opsetMisfit(c.graph, opsets_[k]);
    for (int redraw = 0; redraw < kRedraws && misfit; ++redraw) {
      c = inner_[k]->generate(rng);
      misfit = opsetMisfit(c.graph, opsets_[k]);
    }
    if (misfit) throw Error("no model fits opset " + std::to_string(opsets_[k]) + ": " + *misfit);
    c.graph.setOpset(opsets_[k]);
    // After the draws above, so the nodes and values drawn stay those of the seed.
    addTrailingEmpties(c.graph, *configs_[k], *tables_[k], rng);
    setDefaultAttrs(c.graph, *configs_[k], *tables_[k], rng);
    return c;
  }

 private:
  static constexpr int kRedraws = 20;
  std::vector<std::unique_ptr<GenConfig>> configs_;
  std::vector<int> opsets_;
  std::vector<double> weights_;
  std::vector<std::unique_ptr<Generator>> inner_;
  std::vector<std::unique_ptr<OpsetTables>> tables_;
};

}  // namespace

std::unique_ptr<Generator> makeGenerator(const GenConfig& config) { return std::make_unique<OpsetGen>(config); }

uint64_t caseSeed(uint64_t seed, uint64_t index) {
  uint64_t z = seed * 0x9e3779b97f4a7c15ULL + index + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

GeneratedCase generateCase(const GenConfig& config, uint64_t index) {
  return generateCase(*makeGenerator(config), config.seed, index);
}

GeneratedCase generateCase(const Generator& generator, uint64_t seed, uint64_t index) {
  Rng rng(caseSeed(seed, index));
  return generator.generate(rng);
}

}  // namespace nnfuzz
