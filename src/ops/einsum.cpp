// einsum.cpp - Einsum (opset 12): sums of products over the letters of `equation`, e.g.
// "bij,bjk->bik". Terms are separated by commas, letters a-z/A-Z name axes, "..." stands
// for the leading axes of a term (the same dims in every term: ONNX's inference rejects
// numpy's broadcasting of them),
// and a letter repeated within a term takes that term's diagonal. Without "->" the output
// is implicit: "..." first, then the letters that occur once, in alphabetical order.
//
// The sampler builds equations of the families deployed models use: transpose, reductions
// (some letters summed away), diagonals (where two dims are equal), and for two operands
// matmul, batched matmul, outer and inner products, elementwise products and general
// contractions over shared letters, explicit or implicit, with "..." now and then. The
// reference walks every combination of letter values in double.
//
// Continuous is not well conditioned: a result that cancels (|sum of terms| tiny next to the
// sum of |terms|) is whatever rounding leaves, in the reference's order of summation or in a
// SUT's (one that contracts a factor out first may find an exact 0 where the reference keeps
// a residue of 1e-9, and a consumer multiplies that into an error). Such results are
// unstable, unless every operand is exact and integer-valued and every partial result stays
// an integer the dtype holds: then any order of evaluation is exact (ops/exactness.h).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <numeric>

#include "ops/exactness.h"
#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

const std::vector<DType> kEinsumTypes{DType::Float32, DType::Float64, DType::Int32, DType::Int64};

// A parsed equation: per term its letters, with '.' standing for the ellipsis' axes.
struct Equation {
  std::vector<std::string> inputs;
  std::string output;
  bool ellipsisOut = false;
};

bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Parses a term ("b...ij"): letters, at most one ellipsis (kept as '.').
bool parseTerm(const std::string& text, std::string& out, std::string& err) {
  out.clear();
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, 3, "...") == 0) {
      if (out.find('.') != std::string::npos) return err = "a term holds two ellipses", false;
      out += '.';
      i += 3;
    } else if (isLetter(text[i])) {
      out += text[i++];
    } else {
      return err = std::string("unexpected character '") + text[i] + "' in the equation", false;
    }
  }
  return true;
}

bool parseEquation(std::string text, Equation& eq, std::string& err) {
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  const size_t arrow = text.find("->");
  const std::string lhs = text.substr(0, arrow);
  std::string term;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    if (!parseTerm(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start), term, err)) return false;
    eq.inputs.push_back(term);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (arrow != std::string::npos) {
    if (!parseTerm(text.substr(arrow + 2), eq.output, err)) return false;
  } else {
    // Implicit: "..." if any term has one, then letters occurring once, sorted.
    std::map<char, int> count;
    bool ellipsis = false;
    for (const std::string& t : eq.inputs)
      for (char c : t) c == '.' ? void(ellipsis = true) : void(++count[c]);
    eq.output = ellipsis ? "." : "";
    for (const auto& [c, n] : count)
      if (n == 1) eq.output += c;
  }
  eq.ellipsisOut = eq.output.find('.') != std::string::npos;
  return true;
}

// Letter dims and the broadcast ellipsis shape, checked against the operand shapes.
struct Dims {
  std::map<char, int64_t> letter;
  Shape ellipsis;
  bool ellipsisSeen = false;
};

bool bindDims(const Equation& eq, std::span<const TensorType* const> inputs, Dims& dims, std::string& err) {
  if (eq.inputs.size() != inputs.size()) return err = "the equation has " + std::to_string(eq.inputs.size()) + " terms for " + std::to_string(inputs.size()) + " inputs", false;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k]) return err = "inputs cannot be omitted", false;
    const std::string& term = eq.inputs[k];
    const Shape& s = inputs[k]->shape;
    const bool hasEllipsis = term.find('.') != std::string::npos;
    const size_t letters = term.size() - (hasEllipsis ? 1 : 0);
    if (hasEllipsis ? s.size() < letters : s.size() != letters) return err = "term " + std::to_string(k) + " does not match the rank of its input", false;
    const size_t ellipsisRank = s.size() - letters;
    size_t axis = 0;
    for (char c : term) {
      if (c == '.') {
        // The same dims in every term: numpy would broadcast dims of 1 and fewer axes, ONNX's
        // shape inference rejects both ("incompatible dimensions").
        const Shape part(s.begin() + static_cast<ptrdiff_t>(axis), s.begin() + static_cast<ptrdiff_t>(axis + ellipsisRank));
        if (dims.ellipsisSeen && part != dims.ellipsis) return err = "the ellipsis stands for different dims in two terms", false;
        dims.ellipsis = part;
        dims.ellipsisSeen = true;
        axis += ellipsisRank;
        continue;
      }
      auto [it, fresh] = dims.letter.emplace(c, s[axis]);
      if (!fresh && it->second != s[axis]) return err = std::string("letter ") + c + " has two different dims", false;
      ++axis;
    }
  }
  return true;
}

constexpr int64_t kMaxSpace = 1 << 14;  // see spaceOf
int64_t spaceOf(const Dims& dims);

InferResult inferEinsum(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"equation"});
  if (!err.empty()) return InferResult::fail(err);
  if (!a.attrs.has("equation") || a.attrs.hasWrongKind<std::string>("equation")) return InferResult::fail("equation (a string) is required");
  Equation eq;
  Dims dims;
  if (!parseEquation(a.attrs.getString("equation", ""), eq, err) || !bindDims(eq, a.inputs, dims, err)) return InferResult::fail(err);
  const DType dtype = a.inputs[0]->dtype;
  for (const TensorType* t : a.inputs)
    if (t->dtype != dtype) return InferResult::fail("all inputs must share a dtype");
  Shape out;
  std::string seen;
  bool anyEllipsis = false;
  for (const std::string& t : eq.inputs) anyEllipsis = anyEllipsis || t.find('.') != std::string::npos;
  for (char c : eq.output) {
    if (c == '.') {
      if (!anyEllipsis) return InferResult::fail("the output has an ellipsis the inputs lack");
      out.insert(out.end(), dims.ellipsis.begin(), dims.ellipsis.end());
      continue;
    }
    if (seen.find(c) != std::string::npos) return InferResult::fail(std::string("letter ") + c + " repeats in the output");
    if (!dims.letter.count(c)) return InferResult::fail(std::string("output letter ") + c + " is in no input");
    seen += c;
    out.push_back(dims.letter[c]);
  }
  if (spaceOf(dims) > kMaxSpace * 256) return InferResult::fail("the index space is too large to evaluate");
  if (anyEllipsis && !eq.ellipsisOut && !dims.ellipsis.empty())
    return InferResult::fail("an explicit output must keep the ellipsis");  // numpy would sum it; ONNX Runtime rejects
  return {{TensorType{dtype, out}}, {}};
}

// Calls f(output offset, term, bound) for every combination of letter values: the term is
// the product of the operands' elements there; with kBound, bound is the product of
// max(|element|, 1), which bounds every partial product an engine may form of them (0 else).
template <bool kBound, typename F>
void forEachTerm(const KernelArgs& a, F f) {
  Equation eq;
  Dims dims;
  std::string err;
  std::vector<const TensorType*> types;
  for (const Tensor* t : a.inputs) types.push_back(&t->type);
  parseEquation(a.attrs.getString("equation", ""), eq, err);
  bindDims(eq, types, dims, err);
  // The index space: ellipsis axes, then every letter (output letters first).
  std::string letters;
  for (char c : eq.output)
    if (c != '.') letters += c;
  for (const auto& [c, d] : dims.letter)
    if (letters.find(c) == std::string::npos) letters += c;
  const size_t e = dims.ellipsis.size();
  Shape space = dims.ellipsis;
  for (char c : letters) space.push_back(dims.letter[c]);
  if (product(space) == 0) return;
  // Position of each term axis / output axis in the index space (ellipsis axes right-aligned).
  auto positions = [&](const std::string& term, size_t rank) {
    std::vector<int64_t> pos;
    const bool hasEllipsis = term.find('.') != std::string::npos;
    const size_t ellipsisRank = rank - (term.size() - (hasEllipsis ? 1 : 0));
    for (char c : term) {
      if (c == '.') {
        for (size_t i = 0; i < ellipsisRank; ++i) pos.push_back(-1 - static_cast<int64_t>(e - ellipsisRank + i));
      } else {
        pos.push_back(static_cast<int64_t>(e + letters.find(c)));
      }
    }
    return pos;
  };
  std::vector<std::vector<int64_t>> inPos;
  for (size_t k = 0; k < a.inputs.size(); ++k) inPos.push_back(positions(eq.inputs[k], types[k]->shape.size()));
  const std::vector<int64_t> outPos = positions(eq.output, a.outputs[0].type.shape.size());
  std::vector<int64_t> index(space.size(), 0), sub;
  auto offset = [&](const std::vector<int64_t>& pos, const Shape& shape) {
    int64_t off = 0;
    for (size_t i = 0; i < pos.size(); ++i) {
      const int64_t v = pos[i] >= 0 ? index[static_cast<size_t>(pos[i])] : index[static_cast<size_t>(-1 - pos[i])];
      off = off * shape[i] + v;
    }
    return off;
  };
  do {
    double p = 1.0, bound = kBound ? 1.0 : 0.0;
    for (size_t k = 0; k < a.inputs.size(); ++k) {
      const double x = a.inputs[k]->data[static_cast<size_t>(offset(inPos[k], types[k]->shape))];
      p *= x;
      if constexpr (kBound) bound *= std::max(std::abs(x), 1.0);
    }
    f(static_cast<size_t>(offset(outPos, a.outputs[0].type.shape)), p, bound);
  } while (nextIndex(index, space));
}

void einsumKernel(KernelArgs& a) {
  std::vector<double>& y = a.outputs[0].data;
  forEachTerm<false>(a, [&](size_t at, double p, double) { y[at] += p; });
}

// A float result is unstable where its terms cancel to below a few float32 ulps of their
// magnitude (the Det rule, det.cpp), unless it is exact in any order (see the file comment).
// A result whose terms are all 0 is an exact 0.
bool einsumUnstable(const KernelArgs& a) {
  const DType dtype = a.outputs[0].type.dtype;
  if (!isFloat(dtype)) return false;
  struct Sums {
    double sum = 0, magnitude = 0, bound = 0;
  };
  std::vector<Sums> sums(a.outputs[0].data.size());
  forEachTerm<true>(a, [&](size_t at, double p, double b) {
    sums[at].sum += p;
    sums[at].magnitude += std::abs(p);
    sums[at].bound += b;
  });
  bool integers = allExact(a.inputs);
  for (const Tensor* t : a.inputs)
    for (size_t i = 0; integers && i < t->data.size(); ++i) integers = t->data[i] == std::trunc(t->data[i]);
  const double limit = dtype == DType::Float64 ? 9007199254740992.0 : 16777216.0;
  const double margin = dtype == DType::Float64 ? 1e-12 : 1e-5;
  for (const Sums& s : sums) {
    if (s.magnitude == 0 || (integers && s.bound < limit)) continue;
    if (std::abs(s.sum) < margin * s.magnitude) return true;
  }
  return false;
}

// ---- sampling ----

std::string letterRun(size_t n, char from) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char>(from + static_cast<char>(i));
  return s;
}

std::string shuffled(Rng& rng, std::string s) {
  for (size_t i = s.size(); i > 1; --i) std::swap(s[i - 1], s[static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(i) - 1))]);
  return s;
}

// A random subset of s, in s's order.
std::string subset(Rng& rng, const std::string& s, double keep) {
  std::string out;
  for (char c : s)
    if (rng.bernoulli(keep)) out += c;
  return out;
}

// The index space walked: every letter's dim and the ellipsis dims. Generated nodes keep it
// below kMaxSpace; inference refuses nodes beyond kMaxSpace * 256.
int64_t spaceOf(const Dims& dims) {
  int64_t n = product(dims.ellipsis);
  for (const auto& [c, d] : dims.letter) n *= d;
  return n;
}

void sampleEinsum(OpDraft& d) {
  Rng& rng = *d.rng;
  const Shape& s = d.first().shape;
  const size_t r = s.size();
  const bool ellipsis = r >= 1 && rng.bernoulli(0.15);
  const size_t lead = ellipsis ? static_cast<size_t>(rng.uniformInt(0, static_cast<int64_t>(std::min<size_t>(r, 2)))) : 0;
  const std::string a = letterRun(r - lead, 'a');  // A's letters after the ellipsis
  const std::string pre = ellipsis ? "..." : "";
  if (d.arity == 1) {
    // A diagonal where two neighbouring dims agree (now and then), else a transpose or a
    // reduction; an implicit identity now and then.
    std::string term = a;
    if (a.size() >= 2 && rng.bernoulli(0.2))
      for (size_t i = 0; i + 1 < a.size(); ++i)
        if (s[lead + i] == s[lead + i + 1]) {
          term[i + 1] = term[i];
          break;
        }
    std::string uniq;
    for (char c : term)
      if (uniq.find(c) == std::string::npos) uniq += c;
    const std::string out = rng.bernoulli(0.5) ? shuffled(rng, uniq) : subset(rng, shuffled(rng, uniq), 0.5);
    const bool implicit = !ellipsis && !term.empty() && term == a && rng.bernoulli(0.15);  // ONNX 1.12 infers no shape for ""
    d.attrs.setString("equation", implicit ? term : pre + term + "->" + pre + out);
    return;
  }
  // Each further term: some letters seen before (shared, with their dims) and some fresh.
  // The output drops some letters that occur in two terms (contracted: matmul, inner
  // products) and now and then a few more (summed).
  std::string lhs = pre + a, all = a;
  std::map<char, int> count;
  for (char c : a) ++count[c];
  char next = static_cast<char>('a' + a.size());
  for (int k = 1; k < d.arity; ++k) {
    std::string shared = subset(rng, all, 0.5);
    const std::string fresh = letterRun(static_cast<size_t>(rng.uniformInt(0, all.empty() ? 2 : 1)), next);
    next = static_cast<char>(next + fresh.size());
    if (shared.empty() && fresh.empty() && !all.empty()) shared = all.substr(0, 1);
    for (char c : shared + fresh) ++count[c];
    lhs += "," + pre + shuffled(rng, shared + fresh);
    all += fresh;
  }
  std::string out;
  for (char c : all)
    if (count[c] == 1 || rng.bernoulli(0.5)) out += c;
  if (rng.bernoulli(0.3)) out = subset(rng, out, 0.7);
  // The result's rank stays within the limits: letters beyond them are summed.
  out = shuffled(rng, out).substr(0, static_cast<size_t>(std::max<int64_t>(0, d.limits->maxRank - static_cast<int64_t>(lead))));
  d.attrs.setString("equation", lhs + "->" + pre + out);
}

// The next operand's type: its term's letters take the dims seen so far, fresh letters new
// dims (shrunk while the index space would pass kMaxSpace); the ellipsis takes A's leading
// dims.
InputPattern einsumOperand(const OpDraft& d) {
  Equation eq;
  std::string err;
  parseEquation(d.attrs.getString("equation", ""), eq, err);
  const size_t k = d.inputTypes.size();
  Equation sofar = eq;
  sofar.inputs.resize(k);
  std::vector<const TensorType*> before;
  for (const TensorType& t : d.inputTypes) before.push_back(&t);
  Dims known;
  bindDims(sofar, before, known, err);
  const std::string term = eq.inputs[k];
  const TensorType x = d.first();
  const Shape leadDims = known.ellipsis;
  const Limits limits = *d.limits;
  std::vector<TensorType> chosen(d.inputTypes);
  InputPattern p;
  p.accepts = [=](const TensorType& t) {
    if (t.dtype != x.dtype) return false;
    Equation upto = eq;
    upto.inputs.resize(k + 1);
    std::vector<const TensorType*> all;
    for (const TensorType& c : chosen) all.push_back(&c);
    all.push_back(&t);
    Dims dims;
    std::string e;
    return bindDims(upto, all, dims, e) && dims.ellipsis == leadDims && spaceOf(dims) <= std::max(kMaxSpace, spaceOf(known));
  };
  p.sample = [=](Rng& rng) {
    Shape s;
    int64_t space = spaceOf(known);
    std::map<char, int64_t> fresh;
    for (char c : term) {
      if (c == '.') {
        s.insert(s.end(), leadDims.begin(), leadDims.end());
        continue;
      }
      if (auto it = known.letter.find(c); it != known.letter.end()) {
        s.push_back(it->second);
        continue;
      }
      if (!fresh.count(c)) {
        int64_t dim = rng.uniformInt(limits.minDim, limits.maxDim);
        while (dim > 1 && space * dim > kMaxSpace) --dim;
        space *= dim;
        fresh[c] = dim;
      }
      s.push_back(fresh[c]);
    }
    return TensorType{x.dtype, s};
  };
  p.range = defaultRange(x.dtype);
  return p;
}

// The kernel visits every combination of labels once: the product of each label's dim
// (the ellipsis counted as its widest broadcast).
double einsumWork(const WorkArgs& a) {
  const std::string equation = a.attrs.getString("equation", "");
  const std::string lhs = equation.substr(0, equation.find("->"));
  std::map<char, int64_t> dims;
  double ellipsis = 1;
  size_t term = 0, start = 0;
  for (size_t end = 0; end <= lhs.size(); ++end) {
    if (end < lhs.size() && lhs[end] != ',') continue;
    if (term < a.inputs.size() && a.inputs[term]) {
      const Shape& shape = a.inputs[term]->shape;
      const std::string t = lhs.substr(start, end - start);
      int letters = 0;
      for (char c : t) letters += std::isalpha(static_cast<unsigned char>(c)) != 0;
      size_t axis = 0;
      for (size_t i = 0; i < t.size() && axis < shape.size(); ++i) {
        if (t[i] == '.') {
          const size_t span = shape.size() >= static_cast<size_t>(letters) ? shape.size() - letters : 0;
          double e = 1;
          for (size_t k = 0; k < span; ++k) e *= static_cast<double>(shape[axis + k]);
          ellipsis = std::max(ellipsis, e);
          axis += span;
          i += 2;
        } else if (std::isalpha(static_cast<unsigned char>(t[i]))) {
          dims[t[i]] = std::max(dims[t[i]], shape[axis++]);
        }
      }
    }
    ++term;
    start = end + 1;
  }
  double n = ellipsis;
  for (const auto& [label, d] : dims) n *= static_cast<double>(d);
  return std::max(n, elementCount(a.outputs[0]));
}

}  // namespace

const OpSpec& opEinsum() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "Einsum";
    t.sinceVersion = 12;
    t.minInputs = 1;
    t.maxInputs = 1 << 16;  // variadic
    t.maxGenInputs = 2;
    t.dtypes = kEinsumTypes;
    t.maxRank = 4;
    AttrSpec equation;
    equation.name = "equation";
    equation.kind = AttrKind::String;
    equation.choices = {"ij->ji", "ij->i", "ij,jk->ik", "bij,bjk->bik", "i,j->ij", "i,i->", "ii->i", "...ij->...ji"};
    t.attrs = {equation};
    t.sampleAttrs = sampleEinsum;
    t.nextInput = einsumOperand;
    t.infer = inferEinsum;
    t.reference = einsumKernel;
    t.unstable = einsumUnstable;
    t.work = einsumWork;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
