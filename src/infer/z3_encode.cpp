// z3_encode.cpp - rule expressions as Z3 terms (see z3_encode.h).
#include "infer/z3_encode.h"

namespace nnfuzz::infer {

z3::expr Z3Encoder::encode(const Expr& e, z3::expr& defined) {
  std::vector<z3::expr> stack;
  for (Token t : e.postfix()) {
    if (t.kind == Token::Slot) {
      stack.push_back(symbols[t.value]);
    } else if (t.kind == Token::Const) {
      stack.push_back(ctx.int_val(t.value));
    } else {
      z3::expr b = stack.back();
      stack.pop_back();
      z3::expr a = stack.back();
      stack.pop_back();
      switch (static_cast<BinOp>(t.value)) {
        case BinOp::Add: stack.push_back(a + b); break;
        case BinOp::Sub: stack.push_back(a - b); break;
        case BinOp::Mul:
          if (opaqueNonlinear && !a.is_numeral() && !b.is_numeral()) stack.push_back(opaque("mul", a, b));
          else stack.push_back(a * b);
          break;
        case BinOp::Min: stack.push_back(z3::ite(a < b, a, b)); break;
        case BinOp::Max: stack.push_back(z3::ite(a > b, a, b)); break;
        case BinOp::Div:
        case BinOp::Mod: {
          defined = defined && b != 0;
          if (opaqueNonlinear && !b.is_numeral()) {
            stack.push_back(opaque(static_cast<BinOp>(t.value) == BinOp::Div ? "div" : "mod", a, b));
            break;
          }
          // Z3's div is Euclidean; floor(a / b) is a div b for b > 0 and (-a) div (-b) else.
          z3::expr q = z3::ite(b > 0, a / b, (-a) / (-b));
          stack.push_back(static_cast<BinOp>(t.value) == BinOp::Div ? q : a - b * q);
          break;
        }
      }
    }
  }
  return stack.back();
}

z3::expr Z3Encoder::opaque(const char* name, const z3::expr& a, const z3::expr& b) {
  z3::sort i = ctx.int_sort();
  z3::expr v = ctx.function(name, i, i, i)(a, b);
  const std::string op = name;
  if (op == "mul") {
    lemmas.push_back((v > 0) == ((a > 0 && b > 0) || (a < 0 && b < 0)));
    lemmas.push_back((v == 0) == (a == 0 || b == 0));
    lemmas.push_back(z3::implies(a >= 1 && b >= 1, v >= a && v >= b));
  } else if (op == "div") {  // floor division
    lemmas.push_back(z3::implies(b > 0, (v >= 1) == (a >= b) && (v <= -1) == (a < 0)));
    lemmas.push_back(z3::implies(b < 0, (v >= 1) == (a <= b) && (v <= -1) == (a > 0)));
    lemmas.push_back(z3::implies(b > 0 && a >= 0, v <= a));
  } else {  // Python-style mod: the divisor's sign
    lemmas.push_back(z3::implies(b > 0, v >= 0 && v < b && z3::implies(a >= 0 && a < b, v == a)));
    lemmas.push_back(z3::implies(b < 0, v <= 0 && v > b && z3::implies(a <= 0 && a > b, v == a)));
    lemmas.push_back(z3::implies(b > 0 && a >= 0, v <= a));
  }
  return v;
}

z3::expr Z3Encoder::predicate(const Predicate& p) {
  z3::expr defined = ctx.bool_val(true);
  z3::expr v = encode(p.expr, defined);
  return defined && (p.equality ? v == 0 : v > 0);
}

}  // namespace nnfuzz::infer
