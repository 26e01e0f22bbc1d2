// version_forms.cpp - canonical (opset-17) nodes to and from other opsets' forms.
//
// Each move below is one fact of the ONNX changelog (the schema history shows where the
// forms differ); what no move covers is judged by the generic schema check at the end.
#include "ops/version_forms.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "ops/common.h"
#include "ops/opset_fit.h"
#include "ops/schema_history.h"
#include "support/name_table.h"

namespace nnfuzz {

namespace {

// Operators ONNX has at these opsets but nnfuzz does not write there.
const OpsetExclusion kExclusions[] = {
    {"Resize", 11, "Resize-10 (nearest/linear, scales only) has Upsample's coordinate rules, which nnfuzz does not model"},
    {"Loop", 11, "Loop-1's loop-carried and scan-output rules are not modelled"},
    {"Scan", 11, "Scan-8 has a batch axis and sequence_lens; Scan-9 allows no negative axes"},
    {"MaxPool", 8, "MaxPool-1 has no Indices output"},
    {"Compress", 11, "libonnx 1.12 (nnfuzz check, gen --onnx-check) infers no result type for Compress-9"},
    {"If", 9, "a body's constants must be Constant nodes before ir_version 4, and Constant-1 is float only"},
    {"Dropout", 12, "an inference Dropout's mask before 12 is unspecified (ONNX Runtime gives all false, 12 all true)"},
};

// Ops whose axis attributes may be negative only from opset 11 (OneHot always could).
bool negativeAxesFrom11(std::string_view op) { return op != "OneHot"; }

const SchemaVersion* canonicalSchema(std::string_view op) { return schemaAt(op, 17); }

std::vector<int64_t> intsOf(const Tensor& t) {
  std::vector<int64_t> v;
  for (double x : t.data) v.push_back(toInt64Saturated(x));
  return v;
}

Tensor scalarOf(DType dtype, double value) { return Tensor(TensorType{dtype, {}}, {roundTo(dtype, value)}); }

std::string attrToText(const AttrValue& v) {
  auto num = [](double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", x);
    return std::string(buf);
  };
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* f = std::get_if<double>(&v)) return num(*f);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  std::string out;
  if (const auto* is = std::get_if<std::vector<int64_t>>(&v))
    for (int64_t x : *is) out += (out.empty() ? "" : ",") + std::to_string(x);
  if (const auto* fs = std::get_if<std::vector<double>>(&v))
    for (double x : *fs) out += (out.empty() ? "" : ",") + num(x);
  if (const auto* ss = std::get_if<std::vector<std::string>>(&v))
    for (const auto& x : *ss) out += (out.empty() ? "" : ",") + x;
  return out;
}

bool sameValue(const AttrValue& v, const SchemaAttr& a) {
  if (!a.hasDefault) return false;
  if (const auto* f = std::get_if<double>(&v)) {
    auto d = schemaDefault(a);
    return d && std::holds_alternative<double>(*d) && std::fabs(std::get<double>(*d) - *f) <= 1e-6 * std::fabs(*f);
  }
  if (a.kind == 'f') return false;
  return attrToText(v) == std::string(a.defaultText);
}

// Attributes a later opset added to operators nnfuzz draws in their opset-17 form: below
// `since` the attribute is dropped at its default (every element of a list equal to it)
// and refused otherwise; an empty default refuses it whenever given.
struct LaterAttr {
  std::string_view op, attr;
  int since;
  std::string_view defaultText;
};
const LaterAttr kLaterAttrs[] = {
    {"LpPool", "ceil_mode", 18, "0"},
    {"LpPool", "dilations", 18, "1"},
    {"AveragePool", "dilations", 19, "1"},
    {"Resize", "antialias", 18, "0"},
    {"Resize", "axes", 18, ""},
    {"Resize", "keep_aspect_ratio_policy", 18, "stretch"},
};

// Values a later opset added to an existing attribute: refused below `since`.
struct LaterValue {
  std::string_view op, attr, value;
  int since;
};
const LaterValue kLaterValues[] = {
    {"ScatterElements", "reduction", "max", 18},
    {"ScatterElements", "reduction", "min", 18},
    {"ScatterND", "reduction", "max", 18},
    {"ScatterND", "reduction", "min", 18},
    {"Resize", "coordinate_transformation_mode", "half_pixel_symmetric", 19},
    {"Pad", "mode", "wrap", 19},
};

struct Work {
  const NodeView& node;
  int opset;
  NodeForm form;
  const TensorType* type(const FormOperand& in) const {
    if (in.constant) return &in.constant->type;
    return in.operand >= 0 ? node.types[static_cast<size_t>(in.operand)] : nullptr;
  }
  const Tensor* constant(size_t slot) const {
    if (slot >= form.inputs.size()) return nullptr;
    const FormOperand& in = form.inputs[slot];
    if (in.constant) return &*in.constant;
    return in.operand >= 0 ? node.constants[static_cast<size_t>(in.operand)] : nullptr;
  }
  bool present(size_t slot) const { return slot < form.inputs.size() && !form.inputs[slot].empty(); }
  void fail(const std::string& why) {
    if (form.error.empty()) form.error = std::string(node.op) + " at opset " + std::to_string(opset) + ": " + why;
  }
  void setSlot(size_t slot, FormOperand in) {
    if (form.inputs.size() <= slot) form.inputs.resize(slot + 1);
    form.inputs[slot] = std::move(in);
  }
  void clearSlot(size_t slot) {
    if (slot < form.inputs.size()) form.inputs[slot] = FormOperand{};
  }
  // Input `slot` (a constant) becomes attribute `name` (ints); false if it is not constant.
  bool inputToInts(size_t slot, const std::string& name) {
    if (!present(slot)) return true;
    const Tensor* c = constant(slot);
    if (!c) return fail("'" + name + "' must be a constant to become an attribute"), false;
    form.attrs.setInts(name, intsOf(*c));
    clearSlot(slot);
    return true;
  }
  bool inputToFloat(size_t slot, const std::string& name) {
    if (!present(slot)) return true;
    const Tensor* c = constant(slot);
    if (!c || c->numel() != 1) return fail("'" + name + "' must be a one-element constant to become an attribute"), false;
    form.attrs.setFloat(name, c->data[0]);
    clearSlot(slot);
    return true;
  }
  void intsToInput(const std::string& name, size_t slot) {
    if (!form.attrs.has(name)) return;
    setSlot(slot, FormOperand{-1, int64Tensor(form.attrs.getInts(name))});
    form.attrs.erase(name);
  }
  void floatToInput(const std::string& name, size_t slot, DType dtype) {
    if (!form.attrs.has(name)) return;
    setSlot(slot, FormOperand{-1, scalarOf(dtype, form.attrs.getFloat(name, 0))});
    form.attrs.erase(name);
  }
  int rank() const { return node.types.empty() || !node.types[0] ? 0 : node.types[0]->rank(); }
};

// ---- canonical -> opset N ----

void sliceTo(Work& w) {
  if (w.opset >= 10) return;
  if (const Tensor* steps = w.constant(4)) {
    for (int64_t s : intsOf(*steps))
      if (s != 1) return w.fail("steps other than 1 need Slice-10");
  } else if (w.present(4)) {
    return w.fail("steps must be a constant");
  }
  w.clearSlot(4);
  for (auto [slot, name] : {std::pair<size_t, const char*>{1, "starts"}, {2, "ends"}, {3, "axes"}})
    if (!w.inputToInts(slot, name)) return;
}

void topkTo(Work& w) {
  if (w.opset >= 10) return;
  if (!w.present(1) || !w.constant(1)) return w.fail("K must be a constant");
  w.form.attrs.setInt("k", intsOf(*w.constant(1)).at(0));
  w.clearSlot(1);
}

void padTo(Work& w) {
  // Pad-18's axes: earlier forms pad every axis, so the pads of the others are 0.
  if (w.opset < 18 && w.present(3)) {
    const Tensor* pads = w.constant(1);
    const Tensor* axes = w.constant(3);
    if (!pads || !axes) return w.fail("pads and axes must be constants to pad every axis");
    const int r = w.rank();
    const std::vector<int64_t> given = intsOf(*pads), which = intsOf(*axes);
    if (given.size() != 2 * which.size()) return w.fail("pads must hold two values per axis");
    std::vector<int64_t> full(2 * static_cast<size_t>(r), 0);
    for (size_t k = 0; k < which.size(); ++k) {
      const auto axis = opsupport::normalizeAxis(which[k], r);
      if (!axis) return w.fail("an axis is out of range");
      full[static_cast<size_t>(*axis)] = given[k];
      full[static_cast<size_t>(*axis + r)] = given[k + which.size()];
    }
    w.setSlot(1, FormOperand{-1, int64Tensor(full)});
    w.clearSlot(3);
  }
  if (w.opset >= 11) return;
  if (w.inputToInts(1, "pads")) w.inputToFloat(2, "value");
}

void clipTo(Work& w) {
  if (w.opset >= 11) return;
  if (w.inputToFloat(1, "min")) w.inputToFloat(2, "max");
}

void splitTo(Work& w) {
  if (w.opset < 13) {
    w.inputToInts(1, "split");
  } else if (w.opset >= 18 && !w.present(1)) {
    w.form.attrs.setInt("num_outputs", static_cast<int64_t>(w.node.outputs));
  }
}

void axesInputTo(Work& w) {  // Squeeze, Unsqueeze, ReduceSum: axes an input from 13
  if (w.opset >= 13) return;
  if (w.node.op == "ReduceSum" && w.form.attrs.getInt("noop_with_empty_axes", 0) == 1) {
    if (!w.present(1)) return w.fail("noop_with_empty_axes needs ReduceSum-13");
    w.form.attrs.erase("noop_with_empty_axes");
  }
  if (!w.inputToInts(1, "axes") || !w.form.attrs.has("axes")) return;
  // The order of axes means nothing here, and ONNX's Squeeze-1/11 inference wants them sorted.
  std::vector<int64_t> axes = w.form.attrs.getInts("axes");
  std::sort(axes.begin(), axes.end());
  w.form.attrs.setInts("axes", axes);
}

void reduceTo(Work& w) {  // the other Reduce*: axes an input from 18
  if (w.opset >= 18) w.intsToInput("axes", 1);
}

void dropoutTo(Work& w) {
  if (w.opset >= 12) return;
  if (w.present(2)) {
    const Tensor* mode = w.constant(2);
    if (!mode || mode->data.at(0) != 0) return w.fail("training_mode needs Dropout-12");
    w.clearSlot(2);
  }
  w.inputToFloat(1, "ratio");
}

void resizeTo(Work& w) {
  if (w.opset >= 13) return;
  // Resize-11: roi and scales are required; an empty tensor stands for "not given".
  if (!w.present(1)) w.setSlot(1, FormOperand{-1, Tensor(TensorType{DType::Float32, {0}})});
  if (!w.present(2)) w.setSlot(2, FormOperand{-1, Tensor(TensorType{DType::Float32, {0}})});
}

void dftTo(Work& w) {
  if (w.opset < 20) return;
  w.setSlot(2, FormOperand{-1, int64Tensor({w.form.attrs.getInt("axis", 1)})});
  w.form.inputs[2].constant->type.shape.clear();  // a 0-D axis
  w.form.attrs.erase("axis");
}

void gridSampleTo(Work& w) {  // GridSample-20 renamed the modes
  if (w.opset < 20) return;
  const std::string mode = w.form.attrs.getString("mode", "bilinear");
  w.form.attrs.setString("mode", mode == "bilinear" ? "linear" : mode == "bicubic" ? "cubic" : mode);
}

// True when the 2-D coercion at `axis` leaves one axis: no dims after it but 1s.
bool coercionIsOneAxis(const Work& w, int axis) {
  const TensorType* x = w.node.types.empty() ? nullptr : w.node.types[0];
  return x && std::all_of(x->shape.begin() + axis + 1, x->shape.end(), [](int64_t d) { return d == 1; });
}

// Before 13 the input is flattened to 2-D at axis (canonical nodes say so by coerce_2d).
void softmaxTo(Work& w) {
  const auto axis = opsupport::normalizeAxis(w.form.attrs.getInt("axis", -1), w.rank());
  if (!axis) return w.fail("axis out of range");
  const bool coerce = w.form.attrs.getInt("coerce_2d", 0) == 1;
  w.form.attrs.erase("coerce_2d");
  if (w.opset >= 13) {
    if (coerce && !coercionIsOneAxis(w, *axis))
      w.fail("a 2-D coercion at a middle axis (coerce_2d) needs an opset before 13");
    return;
  }
  if (!coerce && !coercionIsOneAxis(w, *axis)) return w.fail("only the last axis means the same before opset 13");
  w.form.attrs.setInt("axis", *axis);
}

void roiAlignTo(Work& w) {  // before 16 the coordinates were always output_half_pixel
  if (w.opset >= 16) return;
  if (w.form.attrs.getString("coordinate_transformation_mode", "half_pixel") != "output_half_pixel")
    return w.fail("half_pixel coordinates need RoiAlign-16");
  w.form.attrs.erase("coordinate_transformation_mode");
}

void variadicTo(Work& w) {  // Max, Min, Sum, Mean broadcast from opset 8
  if (w.opset >= 8) return;
  for (const TensorType* t : w.node.types)
    if (t && w.node.types[0] && t->shape != w.node.types[0]->shape) return w.fail("operands must have one shape");
}

void quantizeTo(Work& w) {  // per-axis scales from opset 13
  if (w.opset >= 13) return;
  // A 1-D scale is per-axis (along `axis`, which the form drops), even with one value.
  if (w.present(1) && w.type(w.form.inputs[1])->rank() != 0) w.fail("per-axis scales need opset 13");
  w.form.attrs.erase("axis");
}

// ---- opset N -> canonical ----

void sliceFrom(Work& w) {
  if (w.opset >= 10) return;
  w.intsToInput("starts", 1);
  w.intsToInput("ends", 2);
  w.intsToInput("axes", 3);
}
void topkFrom(Work& w) {
  if (w.opset >= 10) return;
  if (w.form.attrs.has("k")) w.setSlot(1, FormOperand{-1, int64Tensor({w.form.attrs.getInt("k", 0)})});
  w.form.attrs.erase("k");
}
void padFrom(Work& w) {
  if (w.opset >= 11) return;
  w.intsToInput("pads", 1);
  if (w.form.attrs.has("value")) w.floatToInput("value", 2, w.node.types[0]->dtype);
}
void clipFrom(Work& w) {
  if (w.opset >= 11) return;
  const DType dtype = w.node.types[0]->dtype;
  const bool hasMax = w.form.attrs.has("max");
  if (w.form.attrs.has("min") || hasMax)
    w.setSlot(1, FormOperand{-1, scalarOf(dtype, w.form.attrs.getFloat("min", -3.4028234663852886e38))});
  w.form.attrs.erase("min");
  if (hasMax) w.floatToInput("max", 2, dtype);
}
void splitFrom(Work& w) {
  if (w.opset < 13) return w.intsToInput("split", 1);
  if (!w.form.attrs.has("num_outputs")) return;
  const int64_t n = w.form.attrs.getInt("num_outputs", 1);
  w.form.attrs.erase("num_outputs");
  if (n == 1 || w.present(1)) return;
  const auto axis = opsupport::normalizeAxis(w.form.attrs.getInt("axis", 0), w.rank());
  if (!axis || n < 1) return w.fail("bad axis or num_outputs");
  const int64_t len = w.node.types[0]->shape[static_cast<size_t>(*axis)];
  const int64_t part = (len + n - 1) / n;
  std::vector<int64_t> sizes;
  for (int64_t left = len; left > 0; left -= part) sizes.push_back(std::min(part, left));
  if (static_cast<int64_t>(sizes.size()) != n) return w.fail("num_outputs does not split the axis in that many parts");
  w.setSlot(1, FormOperand{-1, int64Tensor(sizes)});
}
void axesInputFrom(Work& w) {
  if (w.opset < 13) w.intsToInput("axes", 1);
}
void reduceFrom(Work& w) {
  if (w.opset < 18) return;
  if (w.form.attrs.getInt("noop_with_empty_axes", 0) == 1 && !w.present(1))
    return w.fail("noop_with_empty_axes without axes is not modelled");
  w.form.attrs.erase("noop_with_empty_axes");
  w.inputToInts(1, "axes");
}
void dropoutFrom(Work& w) {
  if (w.opset >= 12) return;
  w.form.attrs.erase("is_test");
  w.floatToInput("ratio", 1, DType::Float32);
}
void resizeFrom(Work& w) {
  if (w.opset < 11) return w.fail("Resize-10 is not modelled");
  for (size_t slot : {size_t{1}, size_t{2}}) {
    const Tensor* c = w.constant(slot);
    if (w.opset < 13 && c && c->numel() == 0) w.clearSlot(slot);
  }
}
void dftFrom(Work& w) {
  if (w.opset < 20 || !w.present(2)) return;
  const Tensor* axis = w.constant(2);
  if (!axis) return w.fail("axis must be a constant");
  w.form.attrs.setInt("axis", intsOf(*axis).at(0));
  w.clearSlot(2);
}
void gridSampleFrom(Work& w) {
  if (w.opset < 20) return;
  const std::string mode = w.form.attrs.getString("mode", "linear");
  w.form.attrs.setString("mode", mode == "linear" ? "bilinear" : mode == "cubic" ? "bicubic" : mode);
}
void softmaxFrom(Work& w) {
  if (w.opset >= 13) return;
  const auto axis = opsupport::normalizeAxis(w.form.attrs.getInt("axis", 1), w.rank());
  if (!axis) return w.fail("axis out of range");
  w.form.attrs.setInt("axis", *axis);
  if (*axis != w.rank() - 1) w.form.attrs.setInt("coerce_2d", 1);
}
void roiAlignFrom(Work& w) {
  if (w.opset < 16) w.form.attrs.setString("coordinate_transformation_mode", "output_half_pixel");
}

// The later attributes and values (kLaterAttrs, kLaterValues) at an opset before them.
void laterAttributesTo(Work& w) {
  for (const LaterAttr& later : kLaterAttrs) {
    if (later.op != w.node.op || w.opset >= later.since || !w.form.attrs.has(later.attr)) continue;
    const std::string name(later.attr);
    bool atDefault = !later.defaultText.empty();
    for (const auto& [key, value] : w.form.attrs) {
      if (key != name) continue;
      if (const auto* list = std::get_if<std::vector<int64_t>>(&value))
        for (int64_t x : *list) atDefault = atDefault && std::to_string(x) == later.defaultText;
      else
        atDefault = atDefault && attrToText(value) == later.defaultText;
    }
    if (!atDefault) return w.fail("attribute '" + name + "' needs opset " + std::to_string(later.since));
    w.form.attrs.erase(name);
  }
  for (const LaterValue& later : kLaterValues) {
    if (later.op != w.node.op || w.opset >= later.since) continue;
    const std::string name(later.attr);
    if (w.form.attrs.getString(name, "") == later.value)
      return w.fail(name + " '" + std::string(later.value) + "' needs opset " + std::to_string(later.since));
  }
}

using Move = void (*)(Work&);
struct Moves {
  std::string_view op;
  Move to, from;
  /// `to` may change or refuse a node at opset 17 (the canonical one): else the per-draw
  /// check skips the form there (canonicalAsItIs; version_forms_test holds the flags to it).
  bool actsAt17 = false;
};
const Moves kMoves[] = {
    {"Slice", sliceTo, sliceFrom},
    {"TopK", topkTo, topkFrom},
    {"Pad", padTo, padFrom, true},  // folds Pad-18's axes into pads
    {"Clip", clipTo, clipFrom},
    {"Split", splitTo, splitFrom},
    {"Squeeze", axesInputTo, axesInputFrom},
    {"Unsqueeze", axesInputTo, axesInputFrom},
    {"ReduceSum", axesInputTo, axesInputFrom},
    {"ReduceL1", reduceTo, reduceFrom},
    {"ReduceL2", reduceTo, reduceFrom},
    {"ReduceLogSum", reduceTo, reduceFrom},
    {"ReduceLogSumExp", reduceTo, reduceFrom},
    {"ReduceMax", reduceTo, reduceFrom},
    {"ReduceMean", reduceTo, reduceFrom},
    {"ReduceMin", reduceTo, reduceFrom},
    {"ReduceProd", reduceTo, reduceFrom},
    {"ReduceSumSquare", reduceTo, reduceFrom},
    {"Dropout", dropoutTo, dropoutFrom},
    {"Resize", resizeTo, resizeFrom},
    {"DFT", dftTo, dftFrom},
    {"GridSample", gridSampleTo, gridSampleFrom},
    {"Softmax", softmaxTo, softmaxFrom, true},  // checks the axis, drops coerce_2d at every opset
    {"LogSoftmax", softmaxTo, softmaxFrom, true},
    {"Hardmax", softmaxTo, softmaxFrom, true},
    {"RoiAlign", roiAlignTo, roiAlignFrom},
    {"Max", variadicTo, nullptr},
    {"Min", variadicTo, nullptr},
    {"Sum", variadicTo, nullptr},
    {"Mean", variadicTo, nullptr},
    {"QuantizeLinear", quantizeTo, nullptr},
    {"DequantizeLinear", quantizeTo, nullptr},
};

const Moves* movesOf(std::string_view op) {
  // Asked for every node a generator draws or export writes: a hash, not a scan.
  static const NameTable<const Moves*> byOp = [] {
    std::vector<std::pair<std::string_view, const Moves*>> entries;
    for (const Moves& m : kMoves) entries.emplace_back(m.op, &m);
    return NameTable<const Moves*>(entries);
  }();
  const Moves* const* found = byOp.find(op);
  return found ? *found : nullptr;
}

Work start(const NodeView& node, int opset, bool copyAttributes = true) {
  Work w{node, opset, {}};
  w.form.op = std::string(node.op);
  if (copyAttributes) w.form.attrs = node.attrs;
  w.form.nodesAttributes = !copyAttributes;
  w.form.inputs.reserve(node.types.size());
  for (size_t k = 0; k < node.types.size(); ++k)
    w.form.inputs.push_back(node.types[k] ? FormOperand{static_cast<int>(k), std::nullopt} : FormOperand{});
  return w;
}

// Drops empty slots at the end, but keeps those the node itself leaves empty (trailing
// empty names: config "empty_inputs") where the schema has an optional input there.
void trimInputs(NodeForm& form, const NodeView* node = nullptr, int opset = 0) {
  while (!form.inputs.empty() && form.inputs.back().empty()) form.inputs.pop_back();
  // Only a node with empty slots past the form's last operand needs its schema looked up.
  if (!node || form.inputs.size() >= node->types.size()) return;
  const SchemaVersion* version = schemaAt(node->op, opset);
  if (!version || !form.ok()) return;
  size_t given = node->types.size();  // the node's own trailing empties start here
  while (given > 0 && !node->types[given - 1]) --given;
  if (form.inputs.size() < given) return;  // a move emptied the end: no empties of the node's
  const size_t slots = std::min(node->types.size(), version->inputs.size());
  for (size_t k = form.inputs.size(); k < slots; ++k) {
    if (!version->inputs[k].optional || version->inputs[k].variadic) return;
    form.inputs.emplace_back();
  }
}

// Attributes the version lacks: dropped at the canonical default, else the node is refused.
// Attributes whose default changed are written out, so the canonical meaning holds.
void fitAttributes(Work& w, const SchemaVersion& version) {
  const SchemaVersion* canonical = canonicalSchema(w.node.op);
  std::vector<std::string> drop;
  for (const auto& [name, value] : w.form.attrs) {
    if (std::holds_alternative<GraphAttr>(value) || version.attr(name)) continue;
    const SchemaAttr* c = canonical ? canonical->attr(name) : nullptr;
    if (c && sameValue(value, *c)) {
      drop.push_back(name);
      continue;
    }
    return w.fail("attribute '" + name + "' = " + attrToText(value) + " needs a later opset");
  }
  for (const std::string& name : drop) w.form.attrs.erase(name);
  if (canonical)
    for (const SchemaAttr& c : canonical->attrs) {
      const SchemaAttr* here = version.attr(c.name);
      if (!c.hasDefault || !here || w.form.attrs.has(c.name)) continue;
      if (!here->hasDefault || here->defaultText != c.defaultText)
        if (auto v = schemaDefault(c)) w.form.attrs.set(c.name, *v);
    }
  if (w.opset < 11 && negativeAxesFrom11(w.node.op))
    if (w.form.attrs.getInt("axis", 0) < 0 || std::ranges::any_of(w.form.attrs.getInts("axes"), [](int64_t a) { return a < 0; }))
      return w.fail("negative axes need opset 11");
  for (const SchemaAttr& a : version.attrs)
    if (a.required && !w.form.attrs.has(a.name)) return w.fail("attribute '" + std::string(a.name) + "' is required");
}

// Operands against the version's formals and type constraints.
void fitOperands(Work& w, const SchemaVersion& version) {
  const auto& inputs = w.form.inputs;
  if (!version.inputs.empty() && !version.inputs.back().variadic && inputs.size() > version.inputs.size())
    return w.fail("it takes at most " + std::to_string(version.inputs.size()) + " inputs");
  std::vector<int> bound(version.typeParams.size(), -1);
  for (size_t k = 0; k < std::max(inputs.size(), version.inputs.size()); ++k) {
    const SchemaFormal* formal = version.input(k);
    if (!formal) continue;
    const bool given = k < inputs.size() && !inputs[k].empty();
    if (!given) {
      const bool trailingVariadic = formal->variadic && k >= version.inputs.size() - 1 && k > 0;
      if (!formal->optional && !trailingVariadic) return w.fail("input '" + std::string(formal->name) + "' is required");
      continue;
    }
    const DType d = w.type(inputs[k])->dtype;
    const SchemaTypeParam& param = version.typeParams.at(static_cast<size_t>(formal->typeParam));
    if (!param.allows(d))
      return w.fail("input '" + std::string(formal->name) + "' may not be " + std::string(dtypeName(d)));
    int& b = bound[static_cast<size_t>(formal->typeParam)];
    const bool homogeneous = !formal->variadic || formal->homogeneous;
    if (homogeneous && b >= 0 && b != static_cast<int>(d))
      return w.fail("inputs of type " + std::string(param.name) + " differ in dtype");
    if (homogeneous) b = static_cast<int>(d);
  }
  const SchemaVersion* canonical = canonicalSchema(w.node.op);
  if (canonical && !version.outputs.empty() && !version.outputs.back().variadic &&
      version.outputs.size() < canonical->outputs.size())
    return w.fail("it has fewer results than opset 17's");
}

}  // namespace

// True when the opset-17 form of `op`'s nodes is the node itself, whatever it holds: no move
// that acts there and nothing a later opset added (formProblem's shortcut, asked per draw
// and per node).
bool canonicalAsItIs(std::string_view op, int opset) {
  static const NameTable<bool> changed = [] {
    std::vector<std::pair<std::string_view, bool>> ops;
    for (const Moves& m : kMoves)
      if (m.actsAt17) ops.emplace_back(m.op, true);
    for (const LaterAttr& a : kLaterAttrs) ops.emplace_back(a.op, true);
    for (const LaterValue& v : kLaterValues) ops.emplace_back(v.op, true);
    return NameTable<bool>(ops);
  }();
  return opset == 17 && !changed.find(op);
}

std::optional<AttrValue> schemaDefault(const SchemaAttr& a) {
  if (!a.hasDefault) return std::nullopt;
  const std::string text(a.defaultText);
  switch (a.kind) {
    case 'i': return AttrValue(static_cast<int64_t>(std::stoll(text)));
    case 'f': return AttrValue(static_cast<double>(static_cast<float>(std::stod(text))));
    case 's': return AttrValue(text);
    default: return std::nullopt;  // list defaults: nnfuzz never relies on them
  }
}

bool isSchemaDefault(const AttrValue& value, const SchemaAttr& a) {
  const std::optional<AttrValue> d = schemaDefault(a);
  if (!d) return false;
  if (const auto* f = std::get_if<double>(&value))
    return std::holds_alternative<double>(*d) && static_cast<float>(*f) == static_cast<float>(std::get<double>(*d));
  return value == *d;
}

std::span<const OpsetExclusion> opsetExclusions() { return kExclusions; }

bool availableAt(std::string_view op, int opset) {
  if (!schemaAt(op, opset)) return false;
  for (const OpsetExclusion& e : kExclusions)
    if (e.op == op && opset < e.from) return false;
  return true;
}

NodeForm formAt(const NodeView& node, int opset, bool copyAttributes) {
  if (!copyAttributes && canonicalAsItIs(node.op, opset)) {  // nothing below would touch them
    Work w = start(node, opset, false);
    trimInputs(w.form, &node, opset);
    return std::move(w.form);
  }
  Work w = start(node, opset);
  // The canonical form itself, whatever it holds (ONNX's checker judges unknown ops), but
  // without what later opsets added.
  if (opset == 17) {
    if (const Moves* m = movesOf(node.op); m && m->to) m->to(w);
    if (w.form.ok()) laterAttributesTo(w);
    trimInputs(w.form, &node, opset);
    return std::move(w.form);
  }
  const SchemaVersion* version = schemaAt(node.op, opset);
  if (!version) {
    w.fail("there is no such operator (or it is deprecated) at this opset");
    return std::move(w.form);
  }
  if (!availableAt(node.op, opset)) {
    w.fail("not written by nnfuzz at this opset (opsetExclusions)");
    return std::move(w.form);
  }
  if (const Moves* m = movesOf(node.op); m && m->to) m->to(w);
  if (w.form.ok()) laterAttributesTo(w);
  trimInputs(w.form, &node, opset);
  if (w.form.ok()) fitAttributes(w, *version);
  if (w.form.ok()) fitOperands(w, *version);
  return std::move(w.form);
}

std::optional<std::string> formProblem(const NodeView& node, int opset) {
  // At opset 17 only a move or what a later opset added can refuse a node.
  if (canonicalAsItIs(node.op, opset)) return std::nullopt;
  NodeForm form = formAt(node, opset);
  if (form.ok()) return std::nullopt;
  return std::move(form.error);
}

NodeForm canonicalFrom(const NodeView& node, int opset) {
  Work w = start(node, opset);
  if (opset == 17) return std::move(w.form);
  if (const Moves* m = movesOf(node.op); m && m->from) m->from(w);
  // Defaults that differ from opset 17's are written out (e.g. RoiAlign's modes).
  if (const SchemaVersion* version = schemaAt(node.op, opset); version && w.form.ok()) {
    const SchemaVersion* canonical = canonicalSchema(node.op);
    for (const SchemaAttr& a : version->attrs) {
      const SchemaAttr* c = canonical ? canonical->attr(a.name) : nullptr;
      if (!a.hasDefault || !c || w.form.attrs.has(a.name)) continue;
      if (!c->hasDefault || c->defaultText != a.defaultText)
        if (auto v = schemaDefault(a)) w.form.attrs.set(a.name, *v);
    }
  }
  trimInputs(w.form, &node, 17);
  return std::move(w.form);
}

std::optional<std::string> opsetMisfit(const Graph& graph, int opset) {
  std::optional<std::string> problem;
  forEachNodeDeep(graph, [&](const Node& n, const Graph& g) {
    if (problem || canonicalAsItIs(n.op, opset)) return;  // before gathering its operands
    OperandTypes types;
    OperandConstants constants;
    for (ValueId v : n.inputs) {
      types.push_back(v == kNoValue ? nullptr : &g.value(v).type);
      constants.push_back(v == kNoValue || !g.value(v).data ? nullptr : &*g.value(v).data);
    }
    problem = formProblem(NodeView{n.op, types, constants, n.attrs, n.outputs.size()}, opset);
  });
  return problem;
}

}  // namespace nnfuzz
