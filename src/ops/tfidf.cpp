// tfidf.cpp - TfIdfVectorizer (opset 9) on integer tokens: counts, per row of X (C or N x C,
// int32 or int64), how often each n-gram of a pool occurs, then weighs the counts. The
// string form (pool_strings) needs string tensors, which GraphIR does not have.
//
// pool_int64s concatenates the n-grams by size: ngram_counts[i] is where the (i+1)-grams
// start. The k-th n-gram of the pool (all sizes, in order) lands in output column
// ngram_indexes[k]; the output has max(ngram_indexes) + 1 columns of float32. Only sizes in
// [min_gram_length, max_gram_length] are counted; an n-gram may skip up to max_skip_count
// tokens between its items (the same skip throughout), unigrams counted once. mode TF gives
// counts, IDF weights[column] where the count is non-zero (1 without weights), TFIDF count *
// weight. ONNX says weights follow the pool's n-grams, the ONNX reference indexes them by
// column: nnfuzz writes weights only with ngram_indexes 0, 1, 2, ... where both agree, and
// never repeats an n-gram in the pool (which id would win is unspecified).
#include <algorithm>
#include <map>
#include <set>

#include "ops/nn_util.h"
#include "ops/shape_util.h"

namespace nnfuzz {

using namespace opsupport;
using namespace nnsupport;

namespace {

constexpr double kTokenMax = 3;  // tokens and pool items drawn from [0, kTokenMax]

// The counted n-grams (sizes within [min, max]) and their output columns.
std::map<std::vector<int64_t>, int64_t> countedGrams(const Attributes& attrs) {
  const auto pool = attrs.getInts("pool_int64s"), counts = attrs.getInts("ngram_counts"), indexes = attrs.getInts("ngram_indexes");
  const int64_t minLen = attrs.getInt("min_gram_length", 1), maxLen = attrs.getInt("max_gram_length", 1);
  std::map<std::vector<int64_t>, int64_t> grams;
  size_t id = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const auto size = static_cast<int64_t>(i + 1);
    const auto begin = static_cast<size_t>(counts[i]);
    const size_t end = i + 1 < counts.size() ? static_cast<size_t>(counts[i + 1]) : pool.size();
    for (size_t at = begin; at + static_cast<size_t>(size) <= end; at += static_cast<size_t>(size), ++id)
      if (size >= minLen && size <= maxLen && id < indexes.size())
        grams[std::vector<int64_t>(pool.begin() + static_cast<ptrdiff_t>(at), pool.begin() + static_cast<ptrdiff_t>(at) + size)] =
            indexes[id];
  }
  return grams;
}

void sampleTfIdf(OpDraft& d) {
  Rng& rng = *d.rng;
  const int64_t minLen = rng.uniformInt(1, 2), maxLen = rng.uniformInt(minLen, 3);
  std::vector<int64_t> pool, counts;
  std::set<std::vector<int64_t>> seen;
  for (int64_t size = 1; size <= maxLen; ++size) {
    counts.push_back(static_cast<int64_t>(pool.size()));
    const int64_t wanted = rng.uniformInt(size == maxLen && pool.empty() ? 1 : 0, 3);
    for (int64_t g = 0; g < wanted; ++g) {
      std::vector<int64_t> gram(static_cast<size_t>(size));
      for (auto& t : gram) t = rng.uniformInt(0, static_cast<int64_t>(kTokenMax));
      if (seen.insert(gram).second) pool.insert(pool.end(), gram.begin(), gram.end());
    }
  }
  const auto grams = static_cast<int64_t>(seen.size());
  std::vector<int64_t> indexes(static_cast<size_t>(grams));
  for (int64_t k = 0; k < grams; ++k) indexes[static_cast<size_t>(k)] = k;
  const double shape = rng.uniformReal(0, 1);
  const bool weighted = shape < 0.4;
  if (shape >= 0.7) indexes = shapeops::randomPermutation(rng, static_cast<int>(grams));
  else if (shape >= 0.4)
    for (auto& k : indexes) k = rng.uniformInt(0, grams);  // repeats and gaps
  const char* modes[] = {"TF", "IDF", "TFIDF"};
  d.attrs.setString("mode", modes[rng.uniformInt(0, 2)]);
  d.attrs.setInt("min_gram_length", minLen);
  d.attrs.setInt("max_gram_length", maxLen);
  d.attrs.setInt("max_skip_count", rng.uniformInt(0, 2));
  d.attrs.setInts("ngram_counts", counts);
  d.attrs.setInts("ngram_indexes", indexes);
  d.attrs.setInts("pool_int64s", pool);
  if (weighted && rng.bernoulli(0.7)) {
    std::vector<double> w(static_cast<size_t>(grams));
    for (double& x : w) x = rng.uniformReal(0.1, 2.0);
    d.attrs.setFloats("weights", w);
  }
}

InferResult inferTfIdf(const InferArgs& a) {
  std::string err = unknownAttr(a.attrs, {"max_gram_length", "max_skip_count", "min_gram_length", "mode", "ngram_counts",
                                          "ngram_indexes", "pool_int64s", "pool_strings", "weights"});
  if (!err.empty()) return InferResult::fail(err);
  if (a.attrs.has("pool_strings")) return InferResult::fail("pool_strings (string tensors) is not modelled");
  for (const char* name : {"max_gram_length", "max_skip_count", "min_gram_length", "mode", "ngram_counts", "ngram_indexes", "pool_int64s"})
    if (!a.attrs.has(name)) return InferResult::fail(std::string(name) + " is required");
  int64_t minLen = 0, maxLen = 0, skip = 0;
  if (!readInt(a.attrs, "min_gram_length", 1, INT64_MAX, 1, minLen, err) || !readInt(a.attrs, "max_gram_length", minLen, INT64_MAX, 1, maxLen, err) ||
      !readInt(a.attrs, "max_skip_count", 0, INT64_MAX, 0, skip, err))
    return InferResult::fail(err);
  const std::string mode = a.attrs.getString("mode", "");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") return InferResult::fail("mode must be TF, IDF or TFIDF");
  const auto pool = a.attrs.getInts("pool_int64s"), counts = a.attrs.getInts("ngram_counts"), indexes = a.attrs.getInts("ngram_indexes");
  if (indexes.empty()) return InferResult::fail("ngram_indexes is empty");
  // ONNX is silent (ngram_counts lists where the 1-grams, 2-grams, ... start), but ONNX
  // Runtime wants an entry for every size up to max_gram_length ("max_gram_length must be
  // inbounds of ngram_counts").
  if (maxLen > static_cast<int64_t>(counts.size())) return InferResult::fail("ngram_counts needs an entry for every size up to max_gram_length");
  size_t grams = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t end = i + 1 < counts.size() ? counts[i + 1] : static_cast<int64_t>(pool.size());
    if (counts[i] < 0 || counts[i] > end || end > static_cast<int64_t>(pool.size()) || (end - counts[i]) % static_cast<int64_t>(i + 1) != 0)
      return InferResult::fail("ngram_counts must split pool_int64s into whole n-grams");
    grams += static_cast<size_t>((end - counts[i]) / static_cast<int64_t>(i + 1));
  }
  if (grams != indexes.size()) return InferResult::fail("ngram_indexes must give one column per n-gram of the pool");
  if (*std::min_element(indexes.begin(), indexes.end()) < 0) return InferResult::fail("ngram_indexes must be >= 0");
  const int64_t columns = *std::max_element(indexes.begin(), indexes.end()) + 1;
  // One weight per n-gram (ONNX) read per column (the ONNX reference): only where both are
  // the same count is it readable at all.
  if (a.attrs.has("weights") &&
      (a.attrs.getFloats("weights").size() != indexes.size() || static_cast<size_t>(columns) != indexes.size()))
    return InferResult::fail("weights must give one weight per n-gram and per column");
  const TensorType& x = *a.inputs[0];
  const Shape out = x.rank() == 2 ? Shape{x.shape[0], columns} : Shape{columns};
  return {{TensorType{DType::Float32, out}}, {}};
}

void tfIdfKernel(KernelArgs& a) {
  const Tensor& x = *a.inputs[0];
  const auto grams = countedGrams(a.attrs);
  const int64_t minLen = a.attrs.getInt("min_gram_length", 1), maxLen = a.attrs.getInt("max_gram_length", 1);
  const int64_t skips = a.attrs.getInt("max_skip_count", 0);
  const int64_t rows = x.type.rank() == 2 ? x.type.shape[0] : 1, c = x.type.rank() == 0 ? 1 : x.type.shape.back();
  Tensor& y = a.outputs[0];
  const int64_t columns = y.type.shape.back();
  std::vector<int64_t> seq;
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = x.data.data() + r * c;
    double* out = y.data.data() + r * columns;
    int64_t shortest = minLen;
    for (int64_t step = 1; step <= skips + 1 && shortest <= maxLen; ++step) {
      for (int64_t s = 0; s + step * (shortest - 1) < c; ++s)
        for (int64_t len = shortest; len <= maxLen && s + step * (len - 1) < c; ++len) {
          seq.clear();
          for (int64_t k = 0; k < len; ++k) seq.push_back(static_cast<int64_t>(row[s + step * k]));
          if (auto it = grams.find(seq); it != grams.end()) out[it->second] += 1;
        }
      if (shortest == 1) shortest = 2;  // a unigram has no skips: counted on the first pass only
    }
  }
  const std::string mode = a.attrs.getString("mode", "TF");
  const std::vector<double> w = a.attrs.getFloats("weights");
  for (int64_t i = 0; i < y.numel(); ++i) {
    double& v = y.data[static_cast<size_t>(i)];
    const double weight = w.empty() ? 1.0 : w[static_cast<size_t>(i % columns)];
    if (mode == "IDF") v = v > 0 ? weight : 0.0;
    if (mode == "TFIDF") v *= weight;
  }
}

ValueRange tokenRange(DType) { return {0.0, kTokenMax, 0.0}; }

}  // namespace

const OpSpec& opTfIdfVectorizer() {
  static const OpSpec s = [] {
    OpSpec t;
    t.name = "TfIdfVectorizer";
    t.sinceVersion = 9;
    t.dtypes = {DType::Int32, DType::Int64};
    t.minRank = 1;
    t.maxRank = 2;
    t.firstRange = tokenRange;
    t.attrs = {intAttr("max_gram_length", 1, 3),
               intAttr("max_skip_count", 0, 2),
               intAttr("min_gram_length", 1, 2),
               {"mode", AttrKind::String, 0, 0, 0, 0, {"TF", "IDF", "TFIDF"}},
               intsAttr("ngram_counts", 0, 4, 1, 3),
               intsAttr("ngram_indexes", 0, 4, 1, 5),
               intsAttr("pool_int64s", 0, 3, 1, 8),
               {"weights", AttrKind::Floats, 0.1, 2.0, 1, 5, {}}};
    t.sampleAttrs = sampleTfIdf;
    t.infer = inferTfIdf;
    t.reference = tfIdfKernel;
    return t;
  }();
  return s;
}

}  // namespace nnfuzz
