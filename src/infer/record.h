// record.h - invocation records: what one operator call took and produced (seed 002, §3.1).
//
// A record keeps only compile-time facts: operator, domain, opset, input and output
// dtypes and shapes, and attribute values. Tensor contents are dropped. A record is a
// passing example (the acceptor ran it, outputs as it produced them) or a
// counter-example (rejected at load or run; no outputs).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace nnfuzz::infer {

struct TensorSig {
  int elemType = 0;             // onnx::TensorProto::DataType; 0 = absent optional input
  std::vector<int64_t> shape;
  bool present() const { return elemType != 0; }
  bool operator==(const TensorSig&) const = default;
};

/// An attribute as a rule sees it: integers are symbols, floats are rule-orthogonal,
/// strings (and lists of them) are rule-relevant and select the partial operator.
struct AttrValue {
  enum Kind { Int, Ints, Float, Floats, String, Strings } kind = Int;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;
  bool operator==(const AttrValue&) const = default;
};

struct Record {
  std::string op;
  std::string domain;  // "" is the default domain
  int opset = 0;
  std::vector<TensorSig> inputs, outputs;
  std::map<std::string, AttrValue> attrs;
  std::string source;  // provenance: "debian:test_conv_with_strides_padding", "mutant:..."
  bool passing = true;
};

/// The record of a single-node model's node, from its declared graph input and output
/// types; nullopt (with `why` set) when the model is not single-node, a type is not a
/// static tensor shape, or an attribute is a tensor or graph.
std::optional<Record> recordFromModel(const onnx::ModelProto& model, const std::string& source, std::string* why);

struct RecordSet {
  std::vector<Record> records;
  std::map<std::string, int> skipped;  // reason -> count
};

/// Records from every node test folder (DIR/NAME/model.onnx) under `root`, labelled
/// "<label>:<NAME>"; `ops` non-empty keeps only those operator types.
void collectNodeTestRecords(const std::filesystem::path& root, const std::string& label,
                            const std::vector<std::string>& ops, RecordSet& out);

/// The provenance label of a node-test folder: "debian" for Debian's libonnx-testdata,
/// "onnx-pip" for the pip package's data, else the folder itself.
std::string nodeTestLabel(const std::string& dir);

/// Records from every folder; `labelledBy` names them for the rule files.
RecordSet collectNodeTests(const std::vector<std::string>& dirs, const std::vector<std::string>& ops,
                           std::string* labelledBy);

/// Builds a single-node model reproducing the record's call (inputs as graph inputs).
onnx::ModelProto modelForRecord(const Record& record);

}  // namespace nnfuzz::infer
