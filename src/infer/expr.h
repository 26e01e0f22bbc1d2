// expr.h - the arithmetic grammar NeuRI synthesises rules in (seed 002, §3.2).
//
//   expr ::= op expr expr | symbol | constant      op ::= + - * / min max mod
//
// An Expr is a postfix program over symbol slots (0..n-1) and integer constants. The same
// type holds hole expressions (slots are holes, filled later) and instantiated ones
// (slots index a partial operator's symbols). Division and mod are floor division and
// Python-style mod with a positive divisor; a zero divisor or an int64 overflow makes the
// value undefined (std::nullopt), which matches no record.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace nnfuzz::infer {

enum class BinOp : uint8_t { Add, Sub, Mul, Div, Min, Max, Mod };
inline constexpr BinOp kAllOps[] = {BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div,
                                    BinOp::Min, BinOp::Max, BinOp::Mod};
bool isCommutative(BinOp op);
const char* binOpName(BinOp op);

struct Token {
  enum Kind : uint8_t { Slot, Const, Op } kind;
  int16_t value;  // slot index, constant, or BinOp
  bool operator==(const Token&) const = default;
};

/// Postfix tokens held inline (no allocation): the hole bank holds millions of these.
struct Expr {
  static constexpr int kMaxTokens = 23;  // 11 operators
  std::array<Token, kMaxTokens> tokens{};
  uint8_t length = 0;

  std::span<const Token> postfix() const { return {tokens.data(), length}; }
  void push(Token t);  // Error past kMaxTokens

  static Expr slot(int index);
  static Expr constant(int value);
  static Expr apply(BinOp op, const Expr& lhs, const Expr& rhs);

  int opCount() const;
  /// Highest slot index used + 1 (0 for constant expressions).
  int slotBound() const;
  bool operator==(const Expr&) const = default;
};

std::optional<int64_t> applyOp(BinOp op, int64_t a, int64_t b);
/// Evaluates with slot i bound to values[map[i]] (map empty: values[i]).
std::optional<int64_t> evaluate(const Expr& e, std::span<const int64_t> values,
                                std::span<const uint16_t> map = {});
/// Replaces slot i by slot map[i].
Expr substitute(const Expr& e, std::span<const uint16_t> map);

/// Readable infix text, e.g. "(i0_2 - a.kernel_shape_0) / a.strides_0 + 1", "min(i0_1, 2)".
std::string toText(const Expr& e, std::span<const std::string> names);
/// Parses toText's output back; slot names must be in `names`. Error on bad text.
Expr parseExpr(const std::string& text, std::span<const std::string> names);

}  // namespace nnfuzz::infer
