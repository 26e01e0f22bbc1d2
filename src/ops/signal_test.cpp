// signal_test.cpp - the signal operators: window functions (periodic and symmetric, float
// output types only), DFT (lengths, onesided, inverse, the near-zero stability rule), STFT
// (frame count, window, the forms ONNX's shape inference gets wrong) and MelWeightMatrix.
#include <cmath>

#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Tensor i64(double v) { return T(DType::Int64, {}, {v}); }

TEST(Window, PeriodicAndSymmetric) {
  const Tensor four = i64(4);
  expectValues(run("HannWindow", {&four}), {4}, {0, 0.5, 1, 0.5});
  const Attributes symmetric = A([](Attributes& a) { a.setInt("periodic", 0); });
  expectValues(run("HannWindow", {&four}, symmetric), {4}, {0, 0.75, 0.75, 0});
  // Hamming with ONNX's 25/46 and 21/46: w[0] = 4/46.
  expectValues(run("HammingWindow", {&four}), {4}, {4.0 / 46, 25.0 / 46, 1, 25.0 / 46});
  expectValues(run("BlackmanWindow", {&four}), {4}, {0, 0.34, 1, 0.34});
  const Tensor one = i64(1);
  EXPECT_FALSE(inferOp("HannWindow", {&one}, symmetric).ok());  // divides by size - 1 = 0
  EXPECT_TRUE(inferOp("HannWindow", {&one}).ok());
  const Attributes toInt = A([](Attributes& a) { a.setInt("output_datatype", 7); });
  EXPECT_FALSE(inferOp("HannWindow", {&four}, toInt).ok());
  const Attributes toDouble = A([](Attributes& a) { a.setInt("output_datatype", 11); });
  EXPECT_EQ(run("BlackmanWindow", {&four}, toDouble).type.dtype, DType::Float64);
}

TEST(DFT, LengthsOnesidedAndInverse) {
  const Tensor x = F({1, 3, 1}, {1, 2, 3});
  // numpy.fft.fft([1, 2, 3]) = [6, -1.5 + 0.866j, -1.5 - 0.866j]
  const double h = std::sqrt(3.0) / 2;
  expectValues(run("DFT", {&x}), {1, 3, 2}, {6, 0, -1.5, h, -1.5, -h});
  const Attributes onesided = A([](Attributes& a) { a.setInt("onesided", 1); });
  expectValues(run("DFT", {&x, nullptr}, onesided), {1, 2, 2}, {6, 0, -1.5, h});
  const Tensor two = i64(2), four = i64(4);
  expectValues(run("DFT", {&x, &two}), {1, 2, 2}, {3, 0, -1, 0});  // cut to [1, 2]
  expectValues(run("DFT", {&x, &four}), {1, 4, 2}, {6, 0, -2, -2, 2, 0, -2, 2});  // zero-padded
  const Tensor spectrum = F({1, 3, 2}, {6, 0, -1.5, h, -1.5, -h});
  const Attributes inverse = A([](Attributes& a) { a.setInt("inverse", 1); });
  expectValues(run("DFT", {&spectrum}, inverse), {1, 3, 2}, {1, 0, 2, 0, 3, 0});
  const Attributes both = A([](Attributes& a) { a.setInt("inverse", 1); a.setInt("onesided", 1); });
  EXPECT_FALSE(inferOp("DFT", {&spectrum}, both).ok());   // irfft: not at opset 17
  EXPECT_FALSE(inferOp("DFT", {&spectrum}, onesided).ok());  // one-sided needs a real signal
  const Attributes lastAxis = A([](Attributes& a) { a.setInt("axis", -1); });
  EXPECT_FALSE(inferOp("DFT", {&x}, lastAxis).ok());
}

TEST(DFT, NearZeroBinsAreUnstable) {
  // A real signal's bin 0 has imaginary part 0; engines give float32 noise there.
  const Tensor real = F({1, 3, 1}, {1, 2, 3});
  EXPECT_TRUE(unstable("DFT", {&real}));
  const Tensor complex = F({1, 2, 2}, {1, 0.5, 0.25, 2});
  EXPECT_FALSE(unstable("DFT", {&complex}));
}

TEST(STFT, FramesWindowAndOnesided) {
  const Tensor x = F({1, 5, 1}, {1, 2, 3, 4, 5});
  const Tensor step = i64(2), frame = i64(2);
  const Attributes twoSided = A([](Attributes& a) { a.setInt("onesided", 0); });
  // frames [1, 2], [3, 4]: DFTs [3, -1], [7, -1]
  expectValues(run("STFT", {&x, &step, nullptr, &frame}, twoSided), {1, 2, 2, 2}, {3, 0, -1, 0, 7, 0, -1, 0});
  const Tensor window = F({2}, {0.5, 1});
  expectValues(run("STFT", {&x, &step, &window}, twoSided), {1, 2, 2, 2}, {2.5, 0, -1.5, 0, 5.5, 0, -2.5, 0});
  EXPECT_FALSE(inferOp("STFT", {&x, &step, nullptr, &frame}).ok());  // onesided left to its default
  const Tensor three = i64(3);
  EXPECT_FALSE(inferOp("STFT", {&x, &step, &window, &three}, twoSided).ok());  // window and frame_length disagree
  // One-sided with frame_length 4: ONNX 1.12 would count (5 - 3) / 2 + 1 = 2 frames, truly 1.
  const Attributes oneSided = A([](Attributes& a) { a.setInt("onesided", 1); });
  const Tensor frameFour = i64(4);
  EXPECT_FALSE(inferOp("STFT", {&x, &step, nullptr, &frameFour}, oneSided).ok());
  EXPECT_EQ(run("STFT", {&x, &step, nullptr, &frame}, oneSided).type.shape, (Shape{1, 2, 2, 2}));
  const Tensor complex = F({1, 2, 2}, {1, 0, 0, 1});
  EXPECT_FALSE(inferOp("STFT", {&complex, &step, nullptr, &frame}, oneSided).ok());  // the schema rules it out
}

TEST(MelWeightMatrix, TrianglesAndEdges) {
  const Tensor mels = i64(2), length = i64(16), rate = i64(8000);
  const Tensor lower = F({}, {0}), upper = F({}, {3000});
  const Tensor m = run("MelWeightMatrix", {&mels, &length, &rate, &lower, &upper});
  ASSERT_EQ(m.type.shape, (Shape{9, 2}));
  // Every filter peaks at 1 and every weight lies in [0, 1].
  for (int col = 0; col < 2; ++col) {
    double peak = 0;
    for (int row = 0; row < 9; ++row) {
      const double w = m.data[static_cast<size_t>(row * 2 + col)];
      EXPECT_GE(w, 0);
      EXPECT_LE(w, 1);
      peak = std::max(peak, w);
    }
    EXPECT_EQ(peak, 1);
  }
  const Tensor beyond = F({}, {9000});  // past the Nyquist frequency
  EXPECT_FALSE(inferOp("MelWeightMatrix", {&mels, &length, &rate, &lower, &beyond}).ok());
}

}  // namespace
}  // namespace nnfuzz
