// version_forms.h - a GraphIR node in the form of the ONNX schema in force at an opset.
//
// GraphIR nodes always hold the canonical form: the opset-17 schema with opset-17
// semantics (what the op library's inference and kernels implement). A graph targets an
// opset (Graph::opset); export writes each node as that opset's schema has it, import
// reads any opset's form back into the canonical one. Between opsets 7 and 21 forms
// differ by attributes that became inputs (Slice, TopK, Pad, Clip, Split, Squeeze,
// Unsqueeze, ReduceSum, Dropout, DFT) or inputs that came from attributes (Reduce* at 18),
// attributes a version does not have yet (written only at their default, else refused),
// changed defaults (written explicitly), and a few changed semantics that only a subset
// of canonical nodes can express (Softmax, LogSoftmax and Hardmax before 13 flatten the
// input to 2-D at `axis`: canonical nodes say so by nnfuzz's attribute coerce_2d, written
// only before 13). Canonical nodes may also hold what opsets after 17 added to an
// operator (Pad's axes, LpPool's ceil_mode, Scatter* max/min, Resize's axes, ...): below
// that opset, 17 included, it is dropped at its default or converted, else refused.
// Trailing empty operands a node holds (config "empty_inputs") are written as empty names
// where the opset's schema has optional inputs there.
//
// formAt also checks the result against the schema history (schema_history.h): the
// operator exists, every operand's dtype is one its type parameter allows, omitted
// operands are optional, attributes are known and required ones given. An error means
// the opset cannot express the node: generators refuse the draw, export fails loudly.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "ir/tensor.h"

namespace nnfuzz {

/// One operand slot of a node form: an operand of the node it came from, a constant the
/// form adds (an attribute turned input, or an input filled in), or empty.
struct FormOperand {
  int operand = -1;                ///< index into the source node's operands, or -1
  std::optional<Tensor> constant;  ///< set when operand == -1 and the slot is not empty
  bool empty() const { return operand < 0 && !constant; }
};

struct NodeForm {
  std::string op;
  std::vector<FormOperand> inputs;  ///< trailing empty slots dropped
  Attributes attrs;
  /// formAt(..., ownAttributes = false) left `attrs` empty: they are the node's own.
  bool nodesAttributes = false;
  std::string error;  ///< non-empty: the opset cannot express the node (one line)
  bool ok() const { return error.empty(); }
};

/// A node as the conversions see it: operand types (nullptr = omitted) and the contents
/// of operands that are constants (nullptr = not known to be constant).
struct NodeView {
  std::string_view op;
  std::span<const TensorType* const> types;
  std::span<const Tensor* const> constants;
  const Attributes& attrs;
  size_t outputs = 1;  ///< result count of the canonical node
};

/// The form of a canonical node at `opset` (bodies are written by the caller), checked
/// against that opset's schema; at opset 17 the node as it is, unchecked.
/// With `copyAttributes` false, a node whose form at `opset` keeps its attributes as they are
/// gets none copied (NodeForm::nodesAttributes): export writes the node's own.
NodeForm formAt(const NodeView& node, int opset, bool copyAttributes = true);

/// True when every node of `op` is written at `opset` as it is (its operands, its attributes):
/// at opset 17, for operators no later opset changed; formAt's and export's shortcut.
bool canonicalAsItIs(std::string_view op, int opset);

/// Why `opset` cannot express the node (formAt's error), or nullopt: formAt without the
/// form, which is cheap at opset 17 for operators no later opset changed.
std::optional<std::string> formProblem(const NodeView& node, int opset);

/// The canonical node of a node written in `opset`'s form; its operands index `node`'s.
NodeForm canonicalFrom(const NodeView& node, int opset);

/// True when `op` exists at `opset` (a schema, not deprecated) and nnfuzz can write it
/// there at all (see the exclusions in version_forms.cpp).
bool availableAt(std::string_view op, int opset);

struct SchemaAttr;
/// The schema's default of a scalar attribute (int, float, string) as a value; nullopt for
/// lists and attributes without one.
std::optional<AttrValue> schemaDefault(const SchemaAttr& attr);
/// True when `value` is exactly the schema's default (floats compared as float32).
bool isSchemaDefault(const AttrValue& value, const SchemaAttr& attr);

/// Operators nnfuzz leaves out at some opsets although ONNX has them, with the reason
/// (for docs and `nnfuzz ops`): {op, first opset nnfuzz writes it, why}.
struct OpsetExclusion {
  std::string_view op;
  int from;
  std::string_view why;
};
std::span<const OpsetExclusion> opsetExclusions();

}  // namespace nnfuzz
