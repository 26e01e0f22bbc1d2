// schema_history.h - every ONNX schema version (opsets 1..21) of nnfuzz's operators, as
// data: schema_history.inc, written by tools/schema_history.py from python's onnx.
//
// The op library implements each operator in its opset-17 form (the canonical GraphIR);
// this history says, at another target opset, whether the operator exists, which dtypes
// its type parameters allow, and which inputs and attributes its form has. version_forms.h
// turns canonical nodes into those forms and back.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "ir/dtype.h"

namespace nnfuzz {

inline constexpr int kMinOpset = 7;
inline constexpr int kMaxOpset = 21;

struct SchemaFormal {
  std::string_view name;
  bool optional = false;
  bool variadic = false;
  bool homogeneous = true;  ///< every operand of a variadic formal has one dtype
  int typeParam = 0;        ///< index into SchemaVersion::typeParams
};

struct SchemaAttr {
  std::string_view name;
  char kind = '?';  ///< i f s (int, float, string), I F S (lists), ? (other: tensor, graph)
  bool required = false;
  bool hasDefault = false;
  std::string_view defaultText;  ///< ints as decimal, floats as python's repr, lists comma-joined
};

struct SchemaTypeParam {
  std::string_view name;  ///< "T", or a literal type such as "tensor(int64)"
  uint8_t dtypes = 0;     ///< bit i: kAllDTypes[i] allowed
  bool allows(DType d) const { return (dtypes >> static_cast<int>(d)) & 1u; }
};

struct SchemaVersion {
  std::string_view op;
  int since = 1;
  bool deprecated = false;
  std::vector<SchemaFormal> inputs, outputs;
  std::vector<SchemaAttr> attrs;
  std::vector<SchemaTypeParam> typeParams;

  const SchemaAttr* attr(std::string_view name) const;
  /// The formal that operand `index` binds to (the last one when it is variadic), or nullptr.
  const SchemaFormal* input(size_t index) const;
  const SchemaFormal* output(size_t index) const;
};

/// The schema of `op` in force at `opset` (the newest version with since <= opset), or
/// nullptr when there is none or it is deprecated there (the operator does not exist).
const SchemaVersion* schemaAt(std::string_view op, int opset);
/// True when `op` has a history (the tool knew the operator).
bool hasSchemaHistory(std::string_view op);
/// All versions of `op`, oldest first (empty when unknown).
std::span<const SchemaVersion* const> schemaVersions(std::string_view op);

}  // namespace nnfuzz
