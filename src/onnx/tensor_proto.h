// tensor_proto.h - GraphIR tensors to and from onnx::TensorProto and .pb files.
//
// Writing always uses raw_data (little-endian, as the ONNX spec fixes it); reading takes
// raw_data or the typed repeated fields (float_data, int32_data, ...). Only the GraphIR
// dtypes (f32 f64 i32 i64 i8 u8 bool) are supported; any other element type, external
// data or a size that does not match the dims raises a one-line nnfuzz::Error.
#pragma once

#include <filesystem>
#include <string>

#include "ir/tensor.h"
#include "onnx/wire.h"
#include "onnx/onnx_pb.h"  // first: it defines what the generated headers use
#include "onnx/onnx-data.pb.h"

namespace nnfuzz {

/// The ONNX name of a TensorProto.DataType number ("FLOAT16", ...), or "type N".
std::string onnxTypeName(int elemType);
/// The GraphIR dtype of an ONNX element type; throws Error naming the type if unsupported.
DType dtypeOfOnnx(int elemType, const std::string& what);

onnx::TensorProto toTensorProto(const Tensor& tensor, const std::string& name);
/// The same, written into `proto` (a field of a message being built).
void setTensorProto(onnx::TensorProto& proto, const Tensor& tensor, const std::string& name);
/// setTensorProto's fields, written as a TensorProto's wire bytes (the caller opens the message).
void writeTensorFields(Wire& w, const Tensor& tensor, std::string_view name);
Tensor fromTensorProto(const onnx::TensorProto& proto);

/// Reads a serialized TensorProto (input_0.pb, ...); `name` receives its name if given.
Tensor readTensorFile(const std::filesystem::path& path, std::string* name = nullptr);
void writeTensorFile(const std::filesystem::path& path, const Tensor& tensor, const std::string& name);
/// Reads a serialized SequenceProto of tensors (a packed inputs.pb / outputs.pb).
onnx::SequenceProto readSequenceFile(const std::filesystem::path& path);

/// Reads a whole file; one-line Error if missing or unreadable.
std::string readFileBytes(const std::filesystem::path& path);
/// Writes a whole file; one-line Error if it cannot.
void writeFileBytes(const std::filesystem::path& path, const std::string& bytes);

}  // namespace nnfuzz
