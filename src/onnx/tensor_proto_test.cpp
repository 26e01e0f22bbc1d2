// tensor_proto_test.cpp - Tensor <-> TensorProto and .pb files, for every GraphIR dtype.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "onnx/compare.h"
#include "onnx/tensor_proto.h"
#include "support/error.h"

namespace nnfuzz {
namespace {

Tensor sample(DType d) {
  switch (d) {
    case DType::Float32:  // float32-exact values, one subnormal
      return Tensor({d, {2, 3}}, {1.5, -0.0, roundTo(d, 3.0e38), roundTo(d, -1.25e-40), roundTo(d, 1.0 / 3), -7});
    case DType::Float64: return Tensor({d, {3}}, {1e300, -1.0 / 3.0, 5e-324});
    case DType::Int32: return Tensor({d, {4}}, {0, -1, 2147483647, -2147483648.0});
    case DType::Int64: return Tensor({d, {2, 2}}, {9007199254740992.0, -9007199254740992.0, -1, 42});
    case DType::Int8: return Tensor({d, {3}}, {-128, 127, -5});
    case DType::UInt8: return Tensor({d, {3}}, {0, 255, 17});
    case DType::Bool: return Tensor({d, {2, 1}}, {1, 0});
  }
  return {};
}

TEST(TensorProto, RoundTripsEveryDType) {
  for (DType d : kAllDTypes) {
    SCOPED_TRACE(std::string(dtypeName(d)));
    const Tensor t = sample(d);
    const onnx::TensorProto proto = toTensorProto(t, "x");
    EXPECT_EQ(proto.data_type(), onnxElemType(d));
    EXPECT_TRUE(proto.has_raw_data());
    EXPECT_EQ(fromTensorProto(proto), t);
    const Tensor scalar({d, {}}, {1});
    EXPECT_EQ(fromTensorProto(toTensorProto(scalar, "s")), scalar);
    const Tensor empty({d, {0, 3}});
    EXPECT_EQ(fromTensorProto(toTensorProto(empty, "e")), empty);
  }
}

TEST(TensorProto, RawDataIsLittleEndian) {
  const auto proto = toTensorProto(Tensor({DType::Int32, {1}}, {0x01020304}), "x");
  EXPECT_EQ(proto.raw_data(), std::string("\x04\x03\x02\x01", 4));
  const auto f = toTensorProto(Tensor({DType::Float32, {1}}, {1.0}), "x");
  EXPECT_EQ(f.raw_data(), std::string("\x00\x00\x80\x3f", 4));
}

TEST(TensorProto, NanAndInfinitySurvive) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Tensor t({DType::Float32, {3}}, {nan, inf, -inf});
  const Tensor back = fromTensorProto(toTensorProto(t, "x"));
  EXPECT_TRUE(std::isnan(back.data[0]));
  EXPECT_EQ(back.data[1], inf);
  EXPECT_EQ(back.data[2], -inf);
  EXPECT_TRUE(compareTensors(back, t).ok);
}

TEST(TensorProto, ReadsTypedFields) {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(2);
  p.add_float_data(0.5f);
  p.add_float_data(-2.0f);
  EXPECT_EQ(fromTensorProto(p), Tensor({DType::Float32, {2}}, {0.5, -2.0}));

  onnx::TensorProto q;
  q.set_data_type(onnx::TensorProto::INT8);
  q.add_dims(2);
  q.add_int32_data(-3);
  q.add_int32_data(100);
  EXPECT_EQ(fromTensorProto(q), Tensor({DType::Int8, {2}}, {-3, 100}));

  onnx::TensorProto r;
  r.set_data_type(onnx::TensorProto::INT64);
  r.add_int64_data(-77);  // scalar
  EXPECT_EQ(fromTensorProto(r), Tensor({DType::Int64, {}}, {-77}));

  onnx::TensorProto d;
  d.set_data_type(onnx::TensorProto::DOUBLE);
  d.add_dims(1);
  d.add_double_data(0.1);
  EXPECT_EQ(fromTensorProto(d), Tensor({DType::Float64, {1}}, {0.1}));

  onnx::TensorProto b;
  b.set_data_type(onnx::TensorProto::BOOL);
  b.add_dims(2);
  b.add_int32_data(1);
  b.add_int32_data(0);
  EXPECT_EQ(fromTensorProto(b), Tensor({DType::Bool, {2}}, {1, 0}));
}

TEST(TensorProto, RejectsUnsupportedTypesAndBadSizes) {
  onnx::TensorProto p;
  p.set_name("h");
  p.set_data_type(onnx::TensorProto::FLOAT16);
  p.add_dims(1);
  p.set_raw_data(std::string(2, '\0'));
  try {
    fromTensorProto(p);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("FLOAT16"), std::string::npos) << e.what();
  }
  p.set_data_type(onnx::TensorProto::STRING);
  EXPECT_THROW(fromTensorProto(p), Error);
  p.set_data_type(onnx::TensorProto::FLOAT);
  EXPECT_THROW(fromTensorProto(p), Error);  // 2 bytes for one float
  onnx::TensorProto q;
  q.set_data_type(onnx::TensorProto::FLOAT);
  q.add_dims(3);
  q.add_float_data(1);
  EXPECT_THROW(fromTensorProto(q), Error);  // 1 value for 3
}

TEST(TensorProto, FilesRoundTripWithName) {
  const auto dir = std::filesystem::temp_directory_path() / ("nnfuzz_tp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (DType d : kAllDTypes) {
    const Tensor t = sample(d);
    writeTensorFile(dir / "t.pb", t, "input_0");
    std::string name;
    EXPECT_EQ(readTensorFile(dir / "t.pb", &name), t);
    EXPECT_EQ(name, "input_0");
  }
  EXPECT_THROW(readTensorFile(dir / "missing.pb"), Error);
  writeFileBytes(dir / "bad.pb", "\xff\xff\xff");
  EXPECT_THROW(readTensorFile(dir / "bad.pb"), Error);
  EXPECT_THROW(writeTensorFile(dir / "no" / "such" / "dir.pb", sample(DType::Int8), "x"), Error);
  std::filesystem::remove_all(dir);
}

TEST(Compare, TolerancesNanAndExactIntegers) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor e({DType::Float32, {3}}, {1.0, nan, 100.0});
  EXPECT_TRUE(compareTensors(Tensor({DType::Float32, {3}}, {1.0005, nan, 100.09}), e).ok);
  auto r = compareTensors(Tensor({DType::Float32, {3}}, {1.01, nan, 100.0}), e);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 1);
  EXPECT_NEAR(r.maxAbsError, 0.01, 1e-9);
  EXPECT_FALSE(compareTensors(Tensor({DType::Float32, {3}}, {1.0, 0.0, 100.0}), e).ok);  // NaN position
  EXPECT_FALSE(compareTensors(Tensor({DType::Float32, {1, 3}}, {1.0, nan, 100.0}), e).ok);  // shape
  EXPECT_FALSE(compareTensors(Tensor({DType::Float64, {3}}, {1.0, nan, 100.0}), e).ok);  // dtype
  EXPECT_FALSE(compareTensors(Tensor({DType::Int32, {1}}, {1000001}), Tensor({DType::Int32, {1}}, {1000000})).ok);
  EXPECT_TRUE(compareTensors(Tensor({DType::Float32, {1}}, {0.0}), Tensor({DType::Float32, {1}}, {5e-8})).ok);
}

}  // namespace
}  // namespace nnfuzz
