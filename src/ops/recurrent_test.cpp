// recurrent_test.cpp - RNN, GRU and LSTM: hand-computed steps (directions, sequence
// lengths, initial states, layout 1), inference rejections and the unstable inputs.
#include <cmath>

#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

Attributes hidden(int64_t h, const std::function<void(Attributes&)>& more = [](Attributes&) {}) {
  return A([&](Attributes& a) {
    a.setInt("hidden_size", h);
    more(a);
  });
}

TEST(RNN, StepsForwardReverseAndStopsAtTheSequenceLength) {
  const Tensor x = F({2, 1, 1}, {1, 2});
  const Tensor w = F({1, 1, 1}, {0.5}), r = F({1, 1, 1}, {0.5});
  const double h1 = std::tanh(0.5), h2 = std::tanh(1.0 + 0.5 * h1);
  auto out = runAll("RNN", {&x, &w, &r}, hidden(1));
  expectValues(out[0], {2, 1, 1, 1}, {h1, h2});
  expectValues(out[1], {1, 1, 1}, {h2});
  // Reverse: step 1 first, Y still indexed by time.
  const double g1 = std::tanh(1.0), g0 = std::tanh(0.5 + 0.5 * g1);
  out = runAll("RNN", {&x, &w, &r}, hidden(1, [](Attributes& a) { a.setString("direction", "reverse"); }));
  expectValues(out[0], {2, 1, 1, 1}, {g0, g1});
  expectValues(out[1], {1, 1, 1}, {g0});
  // Bidirectional stacks both; a length of 1 leaves zeros past it.
  const Tensor w2 = F({2, 1, 1}, {0.5, 0.5}), r2 = F({2, 1, 1}, {0.5, 0.5});
  const Tensor lens = T(DType::Int32, {1}, {1});
  out = runAll("RNN", {&x, &w2, &r2, nullptr, &lens}, hidden(1, [](Attributes& a) { a.setString("direction", "bidirectional"); }));
  expectValues(out[0], {2, 2, 1, 1}, {h1, h1, 0, 0});
  expectValues(out[1], {2, 1, 1}, {h1, h1});
  // Bias and initial state; layout 1 puts the batch first.
  const Tensor b = F({1, 2}, {0.25, 0.25}), h0 = F({1, 1, 1}, {1});
  out = runAll("RNN", {&x, &w, &r, &b, nullptr, &h0}, hidden(1));
  const double k1 = std::tanh(0.5 + 0.5 + 0.5);
  expectValues(out[0], {2, 1, 1, 1}, {k1, std::tanh(1.0 + 0.5 * k1 + 0.5)});
  const Tensor xb = F({1, 2, 1}, {1, 2});
  out = runAll("RNN", {&xb, &w, &r}, hidden(1, [](Attributes& a) { a.setInt("layout", 1); }));
  expectValues(out[0], {1, 2, 1, 1}, {h1, h2});
  expectValues(out[1], {1, 1, 1}, {h2});
}

TEST(GRU, GatesAndInitialState) {
  // W rows z, r, h: only the candidate sees X; R is zero, so z = r = 1/2.
  const Tensor x = F({1, 1, 1}, {1});
  const Tensor w = F({1, 3, 1}, {0, 0, 1}), r = F({1, 3, 1}, {0, 0, 0});
  expectValues(runAll("GRU", {&x, &w, &r}, hidden(1))[0], {1, 1, 1, 1}, {0.5 * std::tanh(1.0)});
  const Tensor h0 = F({1, 1, 1}, {2});
  expectValues(runAll("GRU", {&x, &w, &r, nullptr, nullptr, &h0}, hidden(1))[1], {1, 1, 1}, {0.5 * std::tanh(1.0) + 1.0});
  // linear_before_reset: r scales (H R_h^T + Rb_h); without it Rb_h is added unscaled.
  const Tensor rh = F({1, 3, 1}, {0, 0, 1}), b = F({1, 6}, {0, 0, 0, 0, 0, 1});
  const double before = std::tanh(1.0 + 0.5 * (2.0 + 1.0)), after = std::tanh(1.0 + 0.5 * 2.0 + 1.0);
  expectValues(runAll("GRU", {&x, &w, &rh, &b, nullptr, &h0}, hidden(1, [](Attributes& a) { a.setInt("linear_before_reset", 1); }))[1],
               {1, 1, 1}, {0.5 * before + 1.0});
  expectValues(runAll("GRU", {&x, &w, &rh, &b, nullptr, &h0}, hidden(1))[1], {1, 1, 1}, {0.5 * after + 1.0});
}

TEST(LSTM, CellStatePeepholesAndCoupledGates) {
  // W rows i, o, f, c: only the cell candidate sees X.
  const Tensor x = F({1, 1, 1}, {1});
  const Tensor w = F({1, 4, 1}, {0, 0, 0, 1}), r = F({1, 4, 1}, {0, 0, 0, 0});
  const double c1 = 0.5 * std::tanh(1.0);
  auto out = runAll("LSTM", {&x, &w, &r}, hidden(1));
  expectValues(out[0], {1, 1, 1, 1}, {0.5 * std::tanh(c1)});
  expectValues(out[2], {1, 1, 1}, {c1});
  const Tensor c0 = F({1, 1, 1}, {2});
  out = runAll("LSTM", {&x, &w, &r, nullptr, nullptr, nullptr, &c0}, hidden(1));
  expectValues(out[2], {1, 1, 1}, {1.0 + c1});
  // Peepholes i, o, f: o sees the new cell state.
  const Tensor p = F({1, 3}, {1, 1, 0});
  const double i = 1 / (1 + std::exp(-2.0)), c = 0.5 * 2 + i * std::tanh(1.0), o = 1 / (1 + std::exp(-c));
  out = runAll("LSTM", {&x, &w, &r, nullptr, nullptr, nullptr, &c0, &p}, hidden(1));
  expectValues(out[1], {1, 1, 1}, {o * std::tanh(c)});
  // input_forget: f = 1 - i.
  out = runAll("LSTM", {&x, &w, &r, nullptr, nullptr, nullptr, &c0}, hidden(1, [](Attributes& a) { a.setInt("input_forget", 1); }));
  expectValues(out[2], {1, 1, 1}, {1.0 + c1});
}

TEST(Recurrent, ActivationsAndTheirParameters) {
  const Tensor x = F({1, 1, 1}, {1});
  const Tensor w = F({1, 1, 1}, {-2}), r = F({1, 1, 1}, {0});
  auto with = [](std::vector<std::string> names, std::vector<double> alphas, std::vector<double> betas) {
    return hidden(1, [=](Attributes& a) {
      a.setStrings("activations", names);
      if (!alphas.empty()) a.setFloats("activation_alpha", alphas);
      if (!betas.empty()) a.setFloats("activation_beta", betas);
    });
  };
  expectValues(runAll("RNN", {&x, &w, &r}, with({"LeakyRelu"}, {}, {}))[0], {1, 1, 1, 1}, {-0.02});
  expectValues(runAll("RNN", {&x, &w, &r}, with({"LeakyRelu"}, {0.5}, {}))[0], {1, 1, 1, 1}, {-1});
  expectValues(runAll("RNN", {&x, &w, &r}, with({"Affine"}, {0.5}, {0.25}))[0], {1, 1, 1, 1}, {-0.75});
  expectValues(runAll("RNN", {&x, &w, &r}, with({"HardSigmoid"}, {}, {}))[0], {1, 1, 1, 1}, {0.1});
  expectValues(runAll("RNN", {&x, &w, &r}, with({"Softsign"}, {}, {}))[0], {1, 1, 1, 1}, {-2.0 / 3});
  // clip bounds the pre-activation.
  expectValues(runAll("RNN", {&x, &w, &r}, hidden(1, [](Attributes& a) { a.setFloat("clip", 1); }))[0], {1, 1, 1, 1},
               {std::tanh(-1.0)});
}

TEST(Recurrent, RejectsBadOperandsAndAttributes) {
  const Tensor x = F({2, 1, 1}, {1, 2});
  const Tensor w = F({1, 1, 1}, {0.5}), r = F({1, 1, 1}, {0.5});
  EXPECT_FALSE(inferOp("RNN", {&x, &w, &r}).ok());  // hidden_size is required
  EXPECT_FALSE(inferOp("RNN", {&x, &w, &r}, hidden(2)).ok());
  EXPECT_FALSE(inferOp("GRU", {&x, &w, &r}, hidden(1)).ok());  // W wants 3 gate blocks
  EXPECT_FALSE(inferOp("RNN", {&x, &w, &r}, hidden(1, [](Attributes& a) { a.setString("direction", "both"); })).ok());
  EXPECT_FALSE(inferOp("RNN", {&x, &w, &r}, hidden(1, [](Attributes& a) { a.setStrings("activations", {"Tanh", "Tanh"}); })).ok());
  EXPECT_FALSE(inferOp("RNN", {&x, &w, &r}, hidden(1, [](Attributes& a) { a.setStrings("activations", {"Gelu"}); })).ok());
  // No agreed default alpha for ScaledTanh.
  EXPECT_FALSE(inferOp("RNN", {&x, &w, &r}, hidden(1, [](Attributes& a) { a.setStrings("activations", {"ScaledTanh"}); })).ok());
  const Tensor zero = T(DType::Int32, {1}, {0}), lens64 = T(DType::Int64, {1}, {1});
  EXPECT_FALSE(inferOp("RNN", {&x, &w, &r, nullptr, &zero}, hidden(1)).ok());
  EXPECT_FALSE(inferOp("RNN", {&x, &w, &r, nullptr, &lens64}, hidden(1)).ok());
  EXPECT_FALSE(inferOp("RNN", {&x, &w, &r}, hidden(1, [](Attributes& a) { a.setFloat("clip", 0); })).ok());
  EXPECT_FALSE(inferOp("RNN", {&x, &w, &r}, hidden(1, [](Attributes& a) { a.setInt("linear_before_reset", 1); })).ok());
}

TEST(Recurrent, ThresholdAndClippedCellStateAreUnstable) {
  const Tensor x = F({1, 1, 1}, {1});
  const Tensor w = F({1, 1, 1}, {0.5}), r = F({1, 1, 1}, {0});
  auto thresholded = [](double alpha) {
    return hidden(1, [=](Attributes& a) {
      a.setStrings("activations", {"ThresholdedRelu"});
      a.setFloats("activation_alpha", {alpha});
    });
  };
  EXPECT_TRUE(unstable("RNN", {&x, &w, &r}, thresholded(0.5)));
  EXPECT_FALSE(unstable("RNN", {&x, &w, &r}, thresholded(0.25)));
  // LSTM: a cell state beyond clip (h reads it unclipped here, clipped elsewhere).
  const Tensor wl = F({1, 4, 1}, {0, 0, 0, 1}), rl = F({1, 4, 1}, {0, 0, 0, 0}), c0 = F({1, 1, 1}, {2});
  auto clip = hidden(1, [](Attributes& a) { a.setFloat("clip", 1); });
  EXPECT_TRUE(unstable("LSTM", {&x, &wl, &rl, nullptr, nullptr, nullptr, &c0}, clip));
  EXPECT_FALSE(unstable("LSTM", {&x, &wl, &rl}, clip));
}

TEST(Recurrent, SamplerCoversTheForms) {
  for (const char* op : {"RNN", "GRU", "LSTM"}) {
    int bidirectional = 0, omitted = 0, lens = 0, activations = 0;
    sample(op, 200, [&](const Instantiation& inst) {
      bidirectional += inst.attrs.getString("direction", "") == "bidirectional";
      activations += inst.attrs.has("activations");
      for (const Operand& o : inst.operands) omitted += o.omitted;
      lens += inst.operands.size() > 4 && !inst.operands[4].omitted;
    });
    EXPECT_GT(bidirectional, 20) << op;
    EXPECT_GT(omitted, 15) << op;  // middle ones only: trailing omitted operands are dropped
    EXPECT_GT(lens, 30) << op;
    EXPECT_GT(activations, 40) << op;
  }
}

}  // namespace
}  // namespace nnfuzz
