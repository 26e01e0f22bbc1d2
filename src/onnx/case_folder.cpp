// case_folder.cpp - writing, reading and checking case folders (see case_folder.h).
#include "onnx/case_folder.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <unordered_set>

#include "interp/interpreter.h"
#include "onnx/compare.h"
#include "onnx/import.h"
#include "onnx/model_check.h"
#include "onnx/onnx-data.pb.h"
#include "onnx/tensor_proto.h"
#include "ops/registry.h"
#include "ops/schema_history.h"
#include "support/error.h"

namespace nnfuzz {

namespace fs = std::filesystem;

namespace {

const char* const kDataSet = "test_data_set_0";

fs::path pbPath(const fs::path& set, const char* kind, size_t k) {
  return set / (std::string(kind) + "_" + std::to_string(k) + ".pb");
}

// The packed file of a kind: "inputs.pb" / "outputs.pb".
fs::path packedPath(const fs::path& set, const char* kind) { return set / (std::string(kind) + "s.pb"); }

// A SequenceProto of tensors (name = 1, elem_type = 2, tensor_values = 3), on the wire.
void writePacked(const fs::path& path, const std::vector<Tensor>& tensors, const std::vector<std::string>& names) {
  Wire w;
  w.stringField(1, path.stem().string());
  w.intField(2, onnx::SequenceProto::TENSOR);
  for (size_t k = 0; k < tensors.size(); ++k) {
    const size_t tensor = w.open(3);
    writeTensorFields(w, tensors[k], names.at(k));
    w.close(tensor);
  }
  writeFileBytes(path, w.bytes);
}

// One tensor of a data set, as stored, with a label for messages ("input_0.pb", "inputs.pb[0]"):
// in a packed file (proto), or its own file, parsed on demand (it may hold a sequence).
struct StoredTensor {
  std::string label;
  fs::path file;
  onnx::TensorProto proto;

  onnx::TensorProto load() const {
    if (file.empty()) return proto;
    onnx::TensorProto parsed;
    if (!parsed.ParseFromString(readFileBytes(file))) throw Error(file.string() + " is not a serialized TensorProto");
    return parsed;
  }
};

// Every tensor of a kind ("input", "output") of a data set, from whichever layout it uses.
std::vector<StoredTensor> storedTensors(const fs::path& set, const char* kind) {
  std::vector<StoredTensor> out;
  const fs::path packed = packedPath(set, kind);
  std::error_code ec;
  if (fs::exists(packed, ec)) {
    const onnx::SequenceProto seq = readSequenceFile(packed);
    for (int k = 0; k < seq.tensor_values_size(); ++k)
      out.push_back({packed.filename().string() + "[" + std::to_string(k) + "]", {}, seq.tensor_values(k)});
    return out;
  }
  for (size_t k = 0; fs::exists(pbPath(set, kind, k), ec); ++k)
    out.push_back({pbPath(set, kind, k).filename().string(), pbPath(set, kind, k), {}});
  return out;
}

void checkTensors(const char* what, const std::vector<Tensor>& tensors, const Graph& graph,
                  const std::vector<ValueId>& values) {
  if (tensors.size() != values.size())
    throw Error(std::string("writeCase: ") + std::to_string(tensors.size()) + " " + what + " tensors for " +
                std::to_string(values.size()) + " graph " + what + "s");
  for (size_t k = 0; k < values.size(); ++k)
    if (tensors[k].type != graph.value(values[k]).type)
      throw Error(std::string("writeCase: ") + what + " " + std::to_string(k) + " is " + toString(tensors[k].type) +
                  ", the graph has " + toString(graph.value(values[k]).type));
}

// Declared type of a value vs a tensor proto on disk: one line or nullopt.
std::optional<std::string> protoMatches(const onnx::TensorProto& t, const onnx::ValueInfoProto& declared) {
  const auto& tt = declared.type().tensor_type();
  // ONNX's own test data (onnx <= 1.12) stores bfloat16 tensors with data_type UINT16.
  const bool bfloat16AsUint16 =
      tt.elem_type() == onnx::TensorProto::BFLOAT16 && t.data_type() == onnx::TensorProto::UINT16;
  if (t.data_type() != tt.elem_type() && !bfloat16AsUint16)
    return "holds " + onnxTypeName(t.data_type()) + ", '" + declared.name() + "' is declared " +
           onnxTypeName(tt.elem_type());
  if (!tt.has_shape()) return std::nullopt;
  if (tt.shape().dim_size() != t.dims_size())
    return "has rank " + std::to_string(t.dims_size()) + ", '" + declared.name() + "' is declared rank " +
           std::to_string(tt.shape().dim_size());
  for (int i = 0; i < t.dims_size(); ++i) {
    const auto& dim = tt.shape().dim(i);
    if (dim.has_dim_value() && dim.dim_value() != t.dims(i))
      return "has dimension " + std::to_string(i) + " = " + std::to_string(t.dims(i)) + ", '" + declared.name() +
             "' is declared " + std::to_string(dim.dim_value());
  }
  return std::nullopt;
}


// Why our reference cannot be trusted on this model, or nullopt.
std::optional<std::string> rerunBlocker(const onnx::ModelProto& model) {
  const int opset = defaultOpset(model).value_or(0);
  for (const auto& node : model.graph().node()) {
    if (node.op_type() == "Constant") continue;
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return "operator " + node.domain() + "." + node.op_type() + " has no nnfuzz reference";
    const OpSpec* spec = findOp(node.op_type());
    if (!spec) return "unsupported operator: " + node.op_type();
    // Import read every other opset's form into the canonical one (ops/version_forms.h).
    if (opset < kMinOpset || opset > kMaxOpset)
      return "opset " + std::to_string(opset) + " is outside the opsets nnfuzz models (" + std::to_string(kMinOpset) +
             " to " + std::to_string(kMaxOpset) + ")";
  }
  return std::nullopt;
}

}  // namespace

CaseLayout caseLayoutNamed(const std::string& name) {
  if (name == "packed") return CaseLayout::Packed;
  if (name == "onnx") return CaseLayout::Onnx;
  throw Error("unknown case layout '" + name + "' (known: packed, onnx)");
}

void writeCase(const fs::path& dirArg, const Graph& graph, const std::vector<Tensor>& inputs,
               const std::vector<Tensor>& expected, const nlohmann::json& meta, int opset, CaseLayout layout) {
  checkTensors("input", inputs, graph, graph.inputs());
  checkTensors("output", expected, graph, graph.outputs());
  ExportedNames names;
  const std::string model = exportModelBytes(graph, opset, &names);
  const fs::path dir = dirArg.has_filename() ? dirArg : dirArg.parent_path();  // "out/case/" names "out/case"
  std::error_code ec;
  if (fs::exists(dir, ec)) throw Error("case folder " + dir.string() + " already exists");
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  fs::create_directories(parent, ec);
  static std::atomic<unsigned> counter{0};
  const fs::path temp = parent / ("." + dir.filename().string() + ".partial-" + std::to_string(::getpid()) + "-" +
                                  std::to_string(counter++));
  if (!fs::create_directory(temp, ec) || ec)
    throw Error("cannot write case folder " + dir.string() + ": " + (ec ? ec.message() : "temp folder exists"));
  try {
    writeFileBytes(temp / "model.onnx", model);
    const fs::path set = temp / kDataSet;
    if (!fs::create_directory(set, ec) || ec) throw Error("cannot create " + set.string());
    if (layout == CaseLayout::Packed) {
      writePacked(packedPath(set, "input"), inputs, names.inputs);
      writePacked(packedPath(set, "output"), expected, names.outputs);
    } else {
      for (size_t k = 0; k < inputs.size(); ++k) writeTensorFile(pbPath(set, "input", k), inputs[k], names.inputs[k]);
      for (size_t k = 0; k < expected.size(); ++k)
        writeTensorFile(pbPath(set, "output", k), expected[k], names.outputs[k]);
    }
    writeFileBytes(temp / "meta.json", meta.dump(2) + "\n");
    fs::rename(temp, dir, ec);
    if (ec) throw Error("cannot move the case into " + dir.string() + ": " + ec.message());
  } catch (const std::exception& e) {
    fs::remove_all(temp, ec);
    if (dynamic_cast<const Error*>(&e)) throw;
    throw Error("cannot write case folder " + dir.string() + ": " + e.what());
  }
}

fs::path onnxLayoutCase(const fs::path& dir, const fs::path& copy) {
  const fs::path set = dir / kDataSet;
  std::error_code ec;
  if (!fs::exists(packedPath(set, "input"), ec) && !fs::exists(packedPath(set, "output"), ec)) return dir;
  fs::remove_all(copy, ec);
  fs::create_directories(copy / kDataSet);
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().filename() != kDataSet) fs::create_symlink(fs::absolute(entry.path()), copy / entry.path().filename());
  for (const char* kind : {"input", "output"}) {
    const auto tensors = storedTensors(set, kind);
    for (size_t k = 0; k < tensors.size(); ++k)
      writeFileBytes(pbPath(copy / kDataSet, kind, k), tensors[k].load().SerializeAsString());
  }
  return copy;
}

CaseData readCase(const fs::path& dir) {
  CaseData c;
  c.model = loadModelFile(dir / "model.onnx");
  try {
    c.graph = importModel(c.model);
  } catch (const Error& e) {
    c.importProblem = e.what();
  }
  const fs::path set = dir / kDataSet;
  std::error_code ec;
  if (!fs::is_directory(set, ec)) throw Error(dir.string() + " has no " + kDataSet + " folder");
  auto decode = [&](const StoredTensor& t, std::vector<Tensor>& into, std::vector<std::string>& names) {
    const onnx::TensorProto proto = t.load();
    try {
      into.push_back(fromTensorProto(proto));
    } catch (const Error& e) {
      throw Error((set / t.label).string() + ": " + e.what());
    }
    names.push_back(proto.name());
  };
  for (const StoredTensor& t : storedTensors(set, "input")) decode(t, c.inputs, c.inputNames);
  for (const StoredTensor& t : storedTensors(set, "output")) decode(t, c.expected, c.outputNames);
  if (fs::exists(dir / "meta.json", ec)) {
    try {
      c.meta = nlohmann::json::parse(readFileBytes(dir / "meta.json"));
    } catch (const nlohmann::json::exception& e) {
      throw Error((dir / "meta.json").string() + " is not valid JSON: " + e.what());
    }
  }
  return c;
}

CaseCheck checkCase(const fs::path& dir) {
  CaseCheck r;
  auto fail = [&](std::string problem) {
    r.ok = false;
    r.problem = std::move(problem);
    return r;
  };
  auto addNote = [&](const std::string& note) {
    if (r.note.find(note) == std::string::npos) r.note += (r.note.empty() ? "" : "; ") + note;
  };
  try {
    const onnx::ModelProto model = loadModelFile(dir / "model.onnx");
    std::optional<Graph> graph;
    try {
      graph = importModel(model);
    } catch (const Error& e) {
      addNote(std::string("not rerun: ") + e.what());
    }
    const int opset = defaultOpset(model).value_or(0);
    if (model.ir_version() > onnx::IR_VERSION || opset > knownOpset()) {
      // The linked onnx (1.12) cannot check newer models; the data checks still run.
      addNote("ONNX checker skipped: ir_version " + std::to_string(model.ir_version()) + " / opset " +
              std::to_string(opset) + " is newer than the linked onnx supports");
    } else if (auto problem = checkModelContained(model, graph ? &*graph : nullptr)) {
      return fail("model: " + *problem);
    }
    if (graph)
      if (auto blocker = rerunBlocker(model)) {
        addNote("not rerun: " + *blocker);
        graph.reset();
      }

    // Declared runtime inputs and outputs.
    std::unordered_set<std::string> inits;
    for (const auto& t : model.graph().initializer()) inits.insert(t.name());
    std::vector<const onnx::ValueInfoProto*> ins, outs;
    for (const auto& in : model.graph().input())
      if (!inits.count(in.name())) ins.push_back(&in);
    for (const auto& out : model.graph().output()) outs.push_back(&out);

    std::vector<fs::path> sets;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
        sets.push_back(entry.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) return fail("no test_data_set_* folder in " + dir.string());
    r.dataSets = static_cast<int>(sets.size());

    for (const fs::path& set : sets) {
      const std::string setName = set.filename().string(), where = setName + "/";
      const auto inFiles = storedTensors(set, "input"), outFiles = storedTensors(set, "output");
      if (inFiles.size() != ins.size())
        return fail(setName + " has " + std::to_string(inFiles.size()) + " inputs, the model " +
                    std::to_string(ins.size()));
      if (outFiles.size() != outs.size())
        return fail(setName + " has " + std::to_string(outFiles.size()) + " outputs, the model " +
                    std::to_string(outs.size()));
      r.inputs = static_cast<int>(ins.size());
      r.outputs = static_cast<int>(outs.size());
      auto matchAll = [&](const std::vector<StoredTensor>& files, const std::vector<const onnx::ValueInfoProto*>& decl,
                          std::vector<Tensor>* decoded) -> std::optional<std::string> {
        for (size_t k = 0; k < files.size(); ++k) {
          const std::string file = where + files[k].label;
          if (!decl[k]->type().has_tensor_type()) {  // a SequenceProto, OptionalProto, ...: not checked
            addNote("'" + decl[k]->name() + "' is not a tensor, its data is not checked");
            continue;
          }
          const onnx::TensorProto proto = files[k].load();
          if (!proto.name().empty() && proto.name() != decl[k]->name())
            return file + " is named '" + proto.name() + "', the model's is '" + decl[k]->name() + "'";
          if (auto problem = protoMatches(proto, *decl[k])) return file + " " + *problem;
          if (decoded) {
            try {
              decoded->push_back(fromTensorProto(proto));
            } catch (const Error& e) {
              return file + ": " + e.what();
            }
          }
        }
        return std::nullopt;
      };
      std::vector<Tensor> inputs, expected;
      if (auto p = matchAll(inFiles, ins, graph ? &inputs : nullptr)) return fail(*p);
      if (auto p = matchAll(outFiles, outs, graph ? &expected : nullptr)) return fail(*p);
      if (!graph) continue;
      const auto actual = runGraph(*graph, inputs);
      for (size_t k = 0; k < expected.size(); ++k) {
        const CompareResult c = compareTensors(actual[k], expected[k], Tolerance{1e-3, 1e-4});
        if (!c.ok)
          return fail(where + outFiles[k].label + " ('" + outs[k]->name() +
                      "') differs from the nnfuzz reference: " + c.problem);
      }
    }
    r.rerun = graph.has_value();
    r.ok = true;
    return r;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

}  // namespace nnfuzz
