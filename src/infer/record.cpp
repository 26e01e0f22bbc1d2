// record.cpp - records from single-node ONNX models, and models from records.
#include "infer/record.h"

#include <algorithm>

#include "onnx/import.h"
#include "support/error.h"

namespace nnfuzz::infer {

namespace {

std::optional<TensorSig> sigOf(const onnx::ValueInfoProto& info, std::string* why) {
  if (!info.type().has_tensor_type()) {
    *why = "non-tensor type";
    return std::nullopt;
  }
  const auto& t = info.type().tensor_type();
  if (!t.has_shape()) {
    *why = "unknown rank";
    return std::nullopt;
  }
  TensorSig sig{t.elem_type(), {}};
  for (const auto& d : t.shape().dim()) {
    if (!d.has_dim_value()) {
      *why = "symbolic dimension";
      return std::nullopt;
    }
    sig.shape.push_back(d.dim_value());
  }
  return sig;
}

const onnx::ValueInfoProto* findInfo(const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos,
                                     const std::string& name) {
  for (const auto& info : infos)
    if (info.name() == name) return &info;
  return nullptr;
}

}  // namespace

std::optional<Record> recordFromModel(const onnx::ModelProto& model, const std::string& source, std::string* why) {
  const auto& g = model.graph();
  if (g.node_size() != 1) {
    *why = "not a single-node model";
    return std::nullopt;
  }
  if (g.initializer_size() > 0) {
    *why = "initializers";
    return std::nullopt;
  }
  const auto& node = g.node(0);
  Record r;
  r.op = node.op_type();
  r.domain = node.domain() == "ai.onnx" ? "" : node.domain();
  for (const auto& imp : model.opset_import())
    if ((imp.domain() == "ai.onnx" ? "" : imp.domain()) == r.domain) r.opset = static_cast<int>(imp.version());
  r.source = source;
  for (const auto& name : node.input()) {
    if (name.empty()) {
      r.inputs.push_back({});
      continue;
    }
    const auto* info = findInfo(g.input(), name);
    if (!info) {
      *why = "input is not a graph input";
      return std::nullopt;
    }
    auto sig = sigOf(*info, why);
    if (!sig) return std::nullopt;
    r.inputs.push_back(*sig);
  }
  for (const auto& name : node.output()) {
    const auto* info = findInfo(g.output(), name);
    if (!info) {
      *why = name.empty() ? "omitted optional output" : "output is not a graph output";
      return std::nullopt;
    }
    auto sig = sigOf(*info, why);
    if (!sig) return std::nullopt;
    r.outputs.push_back(*sig);
  }
  for (const auto& a : node.attribute()) {
    AttrValue v;
    switch (a.type()) {
      case onnx::AttributeProto::INT: v.kind = AttrValue::Int; v.ints = {a.i()}; break;
      case onnx::AttributeProto::INTS: v.kind = AttrValue::Ints; v.ints.assign(a.ints().begin(), a.ints().end()); break;
      case onnx::AttributeProto::FLOAT: v.kind = AttrValue::Float; v.floats = {a.f()}; break;
      case onnx::AttributeProto::FLOATS:
        v.kind = AttrValue::Floats;
        v.floats.assign(a.floats().begin(), a.floats().end());
        break;
      case onnx::AttributeProto::STRING: v.kind = AttrValue::String; v.strings = {a.s()}; break;
      case onnx::AttributeProto::STRINGS:
        v.kind = AttrValue::Strings;
        v.strings.assign(a.strings().begin(), a.strings().end());
        break;
      default:
        *why = "tensor or graph attribute";
        return std::nullopt;
    }
    r.attrs[a.name()] = std::move(v);
  }
  return r;
}

void collectNodeTestRecords(const std::filesystem::path& root, const std::string& label,
                            const std::vector<std::string>& ops, RecordSet& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw Error("node test folder " + root.string() + " does not exist");
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(root, ec))
    if (entry.is_directory()) dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    onnx::ModelProto model;
    try {
      model = loadModelFile(dir / "model.onnx");
    } catch (const Error&) {
      ++out.skipped["unreadable model"];
      continue;
    }
    if (model.graph().node_size() == 1 && !ops.empty() &&
        std::find(ops.begin(), ops.end(), model.graph().node(0).op_type()) == ops.end())
      continue;
    std::string why;
    auto record = recordFromModel(model, label + ":" + dir.filename().string(), &why);
    if (record) out.records.push_back(std::move(*record));
    else ++out.skipped[why];
  }
}

std::string nodeTestLabel(const std::string& dir) {
  if (dir.find("libonnx-testdata") != std::string::npos) return "debian";
  if (dir.find("site-packages/onnx") != std::string::npos) return "onnx-pip";
  return dir;
}

RecordSet collectNodeTests(const std::vector<std::string>& dirs, const std::vector<std::string>& ops,
                           std::string* labelledBy) {
  RecordSet set;
  *labelledBy = "ONNX backend node-test outputs:";
  for (const auto& dir : dirs) {
    collectNodeTestRecords(dir, nodeTestLabel(dir), ops, set);
    *labelledBy += " " + nodeTestLabel(dir);
  }
  return set;
}

onnx::ModelProto modelForRecord(const Record& record) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("nnfuzz-infer");
  auto* imp = model.add_opset_import();
  imp->set_domain(record.domain);
  imp->set_version(record.opset);
  if (!record.domain.empty()) {
    auto* def = model.add_opset_import();
    def->set_domain("");
    def->set_version(17);
  }
  auto* g = model.mutable_graph();
  g->set_name(record.op);
  auto* node = g->add_node();
  node->set_op_type(record.op);
  node->set_domain(record.domain);
  for (size_t i = 0; i < record.inputs.size(); ++i) {
    const TensorSig& sig = record.inputs[i];
    if (!sig.present()) {
      node->add_input("");
      continue;
    }
    std::string name = "x" + std::to_string(i);
    node->add_input(name);
    auto* in = g->add_input();
    in->set_name(name);
    auto* t = in->mutable_type()->mutable_tensor_type();
    t->set_elem_type(sig.elemType);
    auto* shape = t->mutable_shape();
    for (int64_t d : sig.shape) shape->add_dim()->set_dim_value(d);
  }
  for (size_t i = 0; i < record.outputs.size(); ++i) {
    std::string name = "y" + std::to_string(i);
    node->add_output(name);
    auto* out = g->add_output();
    out->set_name(name);
    // An unlabelled probe's output has no type yet: ONNX Runtime infers it.
    if (record.outputs[i].present()) out->mutable_type()->mutable_tensor_type()->set_elem_type(record.outputs[i].elemType);
  }
  for (const auto& [name, v] : record.attrs) {
    auto* a = node->add_attribute();
    a->set_name(name);
    switch (v.kind) {
      case AttrValue::Int: a->set_type(onnx::AttributeProto::INT); a->set_i(v.ints.at(0)); break;
      case AttrValue::Ints:
        a->set_type(onnx::AttributeProto::INTS);
        for (int64_t x : v.ints) a->add_ints(x);
        break;
      case AttrValue::Float: a->set_type(onnx::AttributeProto::FLOAT); a->set_f(static_cast<float>(v.floats.at(0))); break;
      case AttrValue::Floats:
        a->set_type(onnx::AttributeProto::FLOATS);
        for (double x : v.floats) a->add_floats(static_cast<float>(x));
        break;
      case AttrValue::String: a->set_type(onnx::AttributeProto::STRING); a->set_s(v.strings.at(0)); break;
      case AttrValue::Strings:
        a->set_type(onnx::AttributeProto::STRINGS);
        for (const auto& s : v.strings) a->add_strings(s);
        break;
    }
  }
  return model;
}

}  // namespace nnfuzz::infer
