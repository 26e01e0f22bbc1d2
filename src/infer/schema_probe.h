// schema_probe.h - candidate calls of an operator built from its ONNX schema (issue 9, item 1).
//
// An operator without node tests has no records to infer from. Its OpSchema (libonnx's
// registry: inputs, outputs, type constraints, attributes) is enough to write calls that
// may or may not be valid: random ranks and dims, one allowed tensor type per type
// constraint, required attributes filled, some optional integer attributes set. The
// acceptor (ONNX Runtime) labels them: a call it runs becomes a passing record with the
// output shapes it produced, one it rejects a counter-example. The records carry no
// output types (elemType 0) until labelled.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "infer/record.h"

namespace nnfuzz::infer {

/// Default-domain operators the registry defines at `opset` (not deprecated), sorted.
std::vector<std::string> defaultDomainOperators(int opset);

/// Up to `count` distinct candidate calls of the operator's schema at `opset` (the
/// schema's since_version becomes the record's opset). Empty, with `why` set, when the
/// schema needs what a record cannot hold: non-tensor inputs or outputs, a required
/// string, tensor or graph attribute.
std::vector<Record> probeRecords(const std::string& op, int opset, int count, uint64_t seed, std::string* why);

/// Another domain's schemas, as tools/ort_contrib_schemas.py dumps ONNX Runtime's
/// (config/ort_contrib_schemas.json): the domain, the ONNX Runtime version, and the
/// operators with a CPU kernel (the others cannot be labelled on this machine).
struct SchemaDump {
  std::string domain, onnxruntime;
  nlohmann::json schemas;  ///< the dump's "schemas" list
  std::vector<std::string> cpuOperators() const;
};
/// Reads a dump; one-line Error for a missing or malformed file.
SchemaDump loadSchemaDump(const std::string& path);
/// probeRecords for operator `op` of a dump (its domain set on every record).
std::vector<Record> probeDumpRecords(const SchemaDump& dump, const std::string& op, int count, uint64_t seed,
                                     std::string* why);

}  // namespace nnfuzz::infer
