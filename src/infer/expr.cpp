// expr.cpp - evaluation, printing and parsing of rule expressions.
#include "infer/expr.h"

#include <algorithm>
#include <cctype>

#include "support/error.h"

namespace nnfuzz::infer {

bool isCommutative(BinOp op) {
  return op == BinOp::Add || op == BinOp::Mul || op == BinOp::Min || op == BinOp::Max;
}

const char* binOpName(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::Min: return "min";
    case BinOp::Max: return "max";
    case BinOp::Mod: return "%";
  }
  return "?";
}

void Expr::push(Token t) {
  if (length >= kMaxTokens) throw Error("rule expression longer than " + std::to_string(kMaxTokens) + " tokens");
  tokens[length++] = t;
}

Expr Expr::slot(int index) {
  Expr e;
  e.push({Token::Slot, static_cast<int16_t>(index)});
  return e;
}

Expr Expr::constant(int value) {
  Expr e;
  e.push({Token::Const, static_cast<int16_t>(value)});
  return e;
}

Expr Expr::apply(BinOp op, const Expr& lhs, const Expr& rhs) {
  Expr e = lhs;
  for (Token t : rhs.postfix()) e.push(t);
  e.push({Token::Op, static_cast<int16_t>(op)});
  return e;
}

int Expr::opCount() const {
  auto p = postfix();
  return static_cast<int>(std::count_if(p.begin(), p.end(), [](Token t) { return t.kind == Token::Op; }));
}

int Expr::slotBound() const {
  int bound = 0;
  for (Token t : postfix())
    if (t.kind == Token::Slot) bound = std::max(bound, t.value + 1);
  return bound;
}

std::optional<int64_t> applyOp(BinOp op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
    case BinOp::Add:
      if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinOp::Sub:
      if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinOp::Mul:
      if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinOp::Div: {
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;  // floor, as shape formulas mean
      return q;
    }
    case BinOp::Mod: {
      if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
      int64_t m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return m;
    }
    case BinOp::Min: return std::min(a, b);
    case BinOp::Max: return std::max(a, b);
  }
  return std::nullopt;
}

std::optional<int64_t> evaluate(const Expr& e, std::span<const int64_t> values, std::span<const uint16_t> map) {
  int64_t stack[16];
  int top = 0;
  for (Token t : e.postfix()) {
    if (t.kind == Token::Slot) {
      stack[top++] = values[map.empty() ? t.value : map[t.value]];
    } else if (t.kind == Token::Const) {
      stack[top++] = t.value;
    } else {
      auto r = applyOp(static_cast<BinOp>(t.value), stack[top - 2], stack[top - 1]);
      if (!r) return std::nullopt;
      stack[top - 2] = *r;
      --top;
    }
    if (top >= 16) return std::nullopt;  // deeper than the grammar's bound ever needs
  }
  return top == 1 ? std::optional<int64_t>(stack[0]) : std::nullopt;
}

Expr substitute(const Expr& e, std::span<const uint16_t> map) {
  Expr out = e;
  for (int i = 0; i < out.length; ++i)
    if (out.tokens[i].kind == Token::Slot) out.tokens[i].value = static_cast<int16_t>(map[out.tokens[i].value]);
  return out;
}

namespace {

// Precedence for printing: min/max print as calls (atoms).
int precedence(BinOp op) {
  switch (op) {
    case BinOp::Add:
    case BinOp::Sub: return 1;
    case BinOp::Mul:
    case BinOp::Div:
    case BinOp::Mod: return 2;
    default: return 3;
  }
}

struct Printed {
  std::string text;
  int prec;  // 3 = atom
};

}  // namespace

std::string toText(const Expr& e, std::span<const std::string> names) {
  std::vector<Printed> stack;
  for (Token t : e.postfix()) {
    if (t.kind == Token::Slot) {
      stack.push_back({t.value < static_cast<int>(names.size()) ? names[t.value] : "_" + std::to_string(t.value), 3});
    } else if (t.kind == Token::Const) {
      stack.push_back({std::to_string(t.value), t.value < 0 ? 0 : 3});
    } else {
      Printed rhs = stack.back();
      stack.pop_back();
      Printed lhs = stack.back();
      stack.pop_back();
      auto op = static_cast<BinOp>(t.value);
      if (op == BinOp::Min || op == BinOp::Max) {
        stack.push_back({std::string(binOpName(op)) + "(" + lhs.text + ", " + rhs.text + ")", 3});
        continue;
      }
      int p = precedence(op);
      // Left-associative: the left operand needs parentheses only below p, the right at or below.
      std::string l = lhs.prec < p ? "(" + lhs.text + ")" : lhs.text;
      // a + (b - c) reads as a + b - c: the same value in exact integer arithmetic.
      bool rightNeedsParens = rhs.prec < p || (rhs.prec == p && op != BinOp::Add);
      std::string r = rightNeedsParens ? "(" + rhs.text + ")" : rhs.text;
      stack.push_back({l + " " + binOpName(op) + " " + r, p});
    }
  }
  return stack.empty() ? "" : stack.back().text;
}

namespace {

class Parser {
 public:
  Parser(const std::string& text, std::span<const std::string> names) : text_(text), names_(names) {}

  Expr parse() {
    Expr e = sum();
    skipSpace();
    if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_, 1) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    throw Error("rule expression \"" + text_ + "\": " + what + " at column " + std::to_string(pos_ + 1));
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  Expr sum() {
    Expr e = product();
    for (;;) {
      if (accept('+')) e = Expr::apply(BinOp::Add, e, product());
      else if (accept('-')) e = Expr::apply(BinOp::Sub, e, product());
      else return e;
    }
  }
  Expr product() {
    Expr e = atom();
    for (;;) {
      if (accept('*')) e = Expr::apply(BinOp::Mul, e, atom());
      else if (accept('/')) e = Expr::apply(BinOp::Div, e, atom());
      else if (accept('%')) e = Expr::apply(BinOp::Mod, e, atom());
      else return e;
    }
  }
  Expr atom() {
    skipSpace();
    if (accept('(')) {
      Expr e = sum();
      expect(')');
      return e;
    }
    if (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '-')) {
      size_t end = pos_ + 1;
      while (end < text_.size() && std::isdigit(static_cast<unsigned char>(text_[end]))) ++end;
      std::string digits = text_.substr(pos_, end - pos_);
      if (digits == "-") fail("expected a number");
      pos_ = end;
      if (digits.size() > 4) fail("constant " + digits + " out of range");
      return Expr::constant(std::stoi(digits));
    }
    size_t end = pos_;
    while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) || text_[end] == '_' ||
                                  text_[end] == '.'))
      ++end;
    std::string word = text_.substr(pos_, end - pos_);
    if (word.empty()) fail("expected a symbol, number or '('");
    pos_ = end;
    if (word == "min" || word == "max") {
      expect('(');
      Expr lhs = sum();
      expect(',');
      Expr rhs = sum();
      expect(')');
      return Expr::apply(word == "min" ? BinOp::Min : BinOp::Max, lhs, rhs);
    }
    auto it = std::find(names_.begin(), names_.end(), word);
    if (it == names_.end()) fail("unknown symbol " + word);
    return Expr::slot(static_cast<int>(it - names_.begin()));
  }

  const std::string& text_;
  std::span<const std::string> names_;
  size_t pos_ = 0;
};

}  // namespace

Expr parseExpr(const std::string& text, std::span<const std::string> names) { return Parser(text, names).parse(); }

}  // namespace nnfuzz::infer
