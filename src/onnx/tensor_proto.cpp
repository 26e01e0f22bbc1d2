// tensor_proto.cpp - Tensor <-> onnx::TensorProto and .pb file reading and writing.
#include "onnx/tensor_proto.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "onnx/model_guard.h"
#include "support/error.h"

namespace nnfuzz {

namespace {

constexpr const char* kTypeNames[] = {
    "UNDEFINED", "FLOAT",     "UINT8",      "INT8",         "UINT16",         "INT16",        "INT32",
    "INT64",     "STRING",    "BOOL",       "FLOAT16",      "DOUBLE",         "UINT32",       "UINT64",
    "COMPLEX64", "COMPLEX128", "BFLOAT16",  "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",   "FLOAT8E5M2FNUZ",
    "UINT4",     "INT4",      "FLOAT4E2M1", "FLOAT8E8M0"};

size_t byteWidth(DType d) {
  switch (d) {
    case DType::Float64:
    case DType::Int64: return 8;
    case DType::Float32:
    case DType::Int32: return 4;
    case DType::Int8:
    case DType::UInt8:
    case DType::Bool: return 1;
  }
  return 1;
}

uint64_t getLE(const char* p, size_t width) {
  uint64_t bits = 0;
  for (size_t i = 0; i < width; ++i) bits |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return bits;
}

uint64_t encode(DType d, double x) {
  switch (d) {
    case DType::Float32: return std::bit_cast<uint32_t>(static_cast<float>(x));
    case DType::Float64: return std::bit_cast<uint64_t>(x);
    case DType::Int32: return static_cast<uint32_t>(static_cast<int32_t>(x));
    case DType::Int64: return static_cast<uint64_t>(toInt64Saturated(x));
    case DType::Int8: return static_cast<uint8_t>(static_cast<int8_t>(x));
    case DType::UInt8: return static_cast<uint8_t>(x);
    case DType::Bool: return x != 0 ? 1 : 0;
  }
  return 0;
}

double decode(DType d, uint64_t bits) {
  switch (d) {
    case DType::Float32: return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    case DType::Float64: return std::bit_cast<double>(bits);
    case DType::Int32: return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(bits)));
    case DType::Int64: return int64Element(static_cast<int64_t>(bits));
    case DType::Int8: return static_cast<double>(static_cast<int8_t>(static_cast<uint8_t>(bits)));
    case DType::UInt8: return static_cast<double>(static_cast<uint8_t>(bits));
    case DType::Bool: return bits != 0 ? 1.0 : 0.0;
  }
  return 0;
}

size_t rawDataSize(const Tensor& tensor) { return tensor.data.size() * byteWidth(tensor.type.dtype); }

// A tensor's raw_data at `out` (rawDataSize bytes): each element little-endian, whatever the
// host order, in stores of a width the compiler knows.
void putRawData(char* out, const Tensor& tensor) {
  const DType d = tensor.type.dtype;
  const auto store = [&]<typename U>(U) {
    for (double x : tensor.data) {
      const auto bits = static_cast<U>(encode(d, x));
      if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out, &bits, sizeof bits);
      } else {
        for (size_t i = 0; i < sizeof bits; ++i) out[i] = static_cast<char>((bits >> (8 * i)) & 0xFF);
      }
      out += sizeof bits;
    }
  };
  const size_t width = byteWidth(d);
  if (width == 8) store(uint64_t{});
  else if (width == 4) store(uint32_t{});
  else store(uint8_t{});
}

std::string describe(const onnx::TensorProto& proto) {
  return proto.name().empty() ? std::string("tensor") : "tensor '" + proto.name() + "'";
}

}  // namespace

std::string onnxTypeName(int elemType) {
  if (elemType >= 0 && elemType < static_cast<int>(std::size(kTypeNames))) return kTypeNames[elemType];
  return "type " + std::to_string(elemType);
}

DType dtypeOfOnnx(int elemType, const std::string& what) {
  if (auto d = dtypeFromOnnx(elemType)) return *d;
  throw Error(what + " has unsupported element type " + onnxTypeName(elemType));
}

onnx::TensorProto toTensorProto(const Tensor& tensor, const std::string& name) {
  onnx::TensorProto proto;
  setTensorProto(proto, tensor, name);
  return proto;
}

void setTensorProto(onnx::TensorProto& proto, const Tensor& tensor, const std::string& name) {
  proto.set_name(name);
  proto.set_data_type(onnxElemType(tensor.type.dtype));
  for (int64_t d : tensor.type.shape) proto.add_dims(d);
  std::string raw(rawDataSize(tensor), '\0');
  putRawData(raw.data(), tensor);
  proto.set_raw_data(std::move(raw));
}

void writeTensorFields(Wire& w, const Tensor& tensor, std::string_view name) {
  // TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 (setTensorProto's fields)
  for (int64_t d : tensor.type.shape) w.intField(1, d);
  w.intField(2, onnxElemType(tensor.type.dtype));
  w.stringField(8, name);
  const size_t size = rawDataSize(tensor);
  w.lengthOf(9, size);
  putRawData(w.extend(size), tensor);
}

Tensor fromTensorProto(const onnx::TensorProto& proto) {
  const std::string what = describe(proto);
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    throw Error(what + " keeps its data in an external file, which is not supported");
  if (proto.has_segment()) throw Error(what + " is segmented, which is not supported");
  // The guard has checked the dims and that raw data holds exactly what they need.
  if (auto problem = guardTensor(proto)) throw Error(*problem);
  TensorType type{dtypeOfOnnx(proto.data_type(), what), {}};
  for (int64_t dim : proto.dims()) type.shape.push_back(dim);
  const auto n = static_cast<size_t>(type.numel());
  Tensor t(type);
  const DType d = type.dtype;
  if (proto.has_raw_data()) {
    const std::string& raw = proto.raw_data();
    const size_t width = byteWidth(d);
    for (size_t i = 0; i < n; ++i) t.data[i] = decode(d, getLE(raw.data() + i * width, width));
    return t;
  }
  auto sizeCheck = [&](int have, const char* field) {
    if (static_cast<size_t>(have) != n)
      throw Error(what + " has " + std::to_string(have) + " values in " + field + ", its type " + toString(type) +
                  " needs " + std::to_string(n));
  };
  switch (d) {
    case DType::Float32:
      sizeCheck(proto.float_data_size(), "float_data");
      for (size_t i = 0; i < n; ++i) t.data[i] = static_cast<double>(proto.float_data(static_cast<int>(i)));
      break;
    case DType::Float64:
      sizeCheck(proto.double_data_size(), "double_data");
      for (size_t i = 0; i < n; ++i) t.data[i] = proto.double_data(static_cast<int>(i));
      break;
    case DType::Int64:
      sizeCheck(proto.int64_data_size(), "int64_data");
      for (size_t i = 0; i < n; ++i) t.data[i] = int64Element(proto.int64_data(static_cast<int>(i)));
      break;
    case DType::Int32:
    case DType::Int8:
    case DType::UInt8:
    case DType::Bool:
      sizeCheck(proto.int32_data_size(), "int32_data");
      for (size_t i = 0; i < n; ++i) t.data[i] = roundTo(d, static_cast<double>(proto.int32_data(static_cast<int>(i))));
      break;
  }
  return t;
}

std::string readFileBytes(const std::filesystem::path& path) {
  // open, fstat, read, close: a worker's outputs are read once a case, and asking first
  // whether the file exists, then reading through a stream, cost twice the system calls.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) throw Error("no such file: " + path.string());
    throw Error("cannot open " + path.string());
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    const bool dir = S_ISDIR(info.st_mode);
    ::close(fd);
    throw Error(dir ? path.string() + " is a directory, not a file" : "cannot read " + path.string());
  }
  // A regular file holds what fstat says: one read. Else (a size of 0, or a read cut
  // short), on to end of file.
  const auto size = static_cast<size_t>(info.st_size);
  std::string bytes(size > 0 ? size : 65536, '\0');
  size_t done = 0;
  while (size == 0 || done < size) {
    if (done == bytes.size()) bytes.resize(bytes.size() * 2);
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      ::close(fd);
      throw Error("cannot read " + path.string());
    }
  }
  ::close(fd);
  bytes.resize(done);
  return bytes;
}

void writeFileBytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot write " + path.string());
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error("cannot write " + path.string());
}

Tensor readTensorFile(const std::filesystem::path& path, std::string* name) {
  const std::string bytes = readFileBytes(path);
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) throw Error(path.string() + " is not a serialized TensorProto");
  try {
    Tensor t = fromTensorProto(proto);
    if (name) *name = proto.name();
    return t;
  } catch (const Error& e) {
    throw Error(path.string() + ": " + e.what());
  }
}

onnx::SequenceProto readSequenceFile(const std::filesystem::path& path) {
  onnx::SequenceProto seq;
  if (!seq.ParseFromString(readFileBytes(path))) throw Error(path.string() + " is not a serialized SequenceProto");
  return seq;
}

void writeTensorFile(const std::filesystem::path& path, const Tensor& tensor, const std::string& name) {
  std::string bytes;
  if (!toTensorProto(tensor, name).SerializeToString(&bytes)) throw Error("cannot serialize tensor " + name);
  writeFileBytes(path, bytes);
}

}  // namespace nnfuzz
