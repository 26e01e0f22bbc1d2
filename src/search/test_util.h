// test_util.h - hand-built ONNX models for the search tests (header only, tests only).
//
// OnnxBuilder writes exactly the protos a test describes: node names, empty operands,
// attribute order and which tensors get value_info are all up to the test, because the
// metrics under test react to each of them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace nnfuzz::search::testing {

class OnnxBuilder {
 public:
  OnnxBuilder() {
    model_.set_ir_version(8);
    auto* imp = model_.add_opset_import();
    imp->set_domain("");
    imp->set_version(17);
    model_.mutable_graph()->set_name("test");
  }
  OnnxBuilder& input(const std::string& name, std::vector<int64_t> dims) {
    setType(model_.mutable_graph()->add_input(), name, dims);
    return *this;
  }
  OnnxBuilder& initializer(const std::string& name, std::vector<int64_t> dims) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) {
      t->add_dims(d);
      n *= d;
    }
    for (int64_t i = 0; i < n; ++i) t->add_float_data(0.5f);
    return *this;
  }
  OnnxBuilder& valueInfo(const std::string& name, std::vector<int64_t> dims) {
    setType(model_.mutable_graph()->add_value_info(), name, dims);
    return *this;
  }
  OnnxBuilder& output(const std::string& name, std::vector<int64_t> dims) {
    setType(model_.mutable_graph()->add_output(), name, dims);
    return *this;
  }
  /// Adds a node; returns it so the test can add attributes in the order it wants.
  onnx::NodeProto& node(const std::string& op, std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs, const std::string& name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  const onnx::ModelProto& model() const { return model_; }

  static void intAttr(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }

 private:
  static void setType(onnx::ValueInfoProto* info, const std::string& name, const std::vector<int64_t>& dims) {
    info->set_name(name);
    auto* t = info->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    auto* shape = t->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
  }
  onnx::ModelProto model_;
};

}  // namespace nnfuzz::search::testing
