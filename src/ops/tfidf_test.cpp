// tfidf_test.cpp - TfIdfVectorizer: unigrams and bigrams, skips, min_gram_length, the three
// modes, rows, column mapping, and the forms refused.
#include "ops/op_test_util.h"

namespace nnfuzz {
namespace {

using namespace optest;

// Pool: unigrams 1 and 2, bigram (1, 2).
Attributes tfidf(const std::string& mode, int64_t minLen, int64_t skips, std::vector<int64_t> indexes = {0, 1, 2},
                 std::vector<double> weights = {}) {
  return A([=](Attributes& a) {
    a.setString("mode", mode);
    a.setInt("min_gram_length", minLen);
    a.setInt("max_gram_length", 2);
    a.setInt("max_skip_count", skips);
    a.setInts("pool_int64s", {1, 2, 1, 2});
    a.setInts("ngram_counts", {0, 2});
    a.setInts("ngram_indexes", indexes);
    if (!weights.empty()) a.setFloats("weights", weights);
  });
}

TEST(TfIdfVectorizer, CountsGramsWithSkips) {
  const Tensor x = T(DType::Int64, {4}, {1, 2, 1, 2});
  expectValues(run("TfIdfVectorizer", {&x}, tfidf("TF", 1, 0)), {3}, {2, 2, 2});
  // Unigrams are counted once whatever the skips; (1, 1) and (2, 2) are no bigrams here.
  expectValues(run("TfIdfVectorizer", {&x}, tfidf("TF", 1, 1)), {3}, {2, 2, 2});
  expectValues(run("TfIdfVectorizer", {&x}, tfidf("TF", 2, 0)), {3}, {0, 0, 2});
  // A skip of one token finds (1, _, 2).
  const Tensor gap = T(DType::Int32, {3}, {1, 3, 2});
  expectValues(run("TfIdfVectorizer", {&gap}, tfidf("TF", 1, 0)), {3}, {1, 1, 0});
  expectValues(run("TfIdfVectorizer", {&gap}, tfidf("TF", 1, 1)), {3}, {1, 1, 1});
  // Rows, and n-grams sent to other columns (two to one).
  const Tensor rows = T(DType::Int64, {2, 2}, {1, 2, 2, 2});
  expectValues(run("TfIdfVectorizer", {&rows}, tfidf("TF", 1, 0)), {2, 3}, {1, 1, 1, 0, 2, 0});
  expectValues(run("TfIdfVectorizer", {&x}, tfidf("TF", 1, 0, {1, 1, 0})), {2}, {2, 4});
}

TEST(TfIdfVectorizer, Modes) {
  const Tensor x = T(DType::Int64, {4}, {1, 2, 1, 1});
  expectValues(run("TfIdfVectorizer", {&x}, tfidf("IDF", 1, 0)), {3}, {1, 1, 1});
  expectValues(run("TfIdfVectorizer", {&x}, tfidf("IDF", 1, 0, {0, 1, 2}, {0.5, 2, 3})), {3}, {0.5, 2, 3});
  expectValues(run("TfIdfVectorizer", {&x}, tfidf("TFIDF", 1, 0, {0, 1, 2}, {0.5, 2, 3})), {3}, {1.5, 2, 3});
  expectValues(run("TfIdfVectorizer", {&x}, tfidf("TFIDF", 1, 0)), {3}, {3, 1, 1});
}

TEST(TfIdfVectorizer, Refuses) {
  const Tensor x = T(DType::Int64, {4}, {1, 2, 1, 2});
  Attributes strings = tfidf("TF", 1, 0);
  strings.setStrings("pool_strings", {"a"});
  EXPECT_FALSE(inferOp("TfIdfVectorizer", {&x}, strings).ok());
  EXPECT_FALSE(inferOp("TfIdfVectorizer", {&x}, tfidf("TF", 1, 0, {0, 1})).ok());  // three n-grams
  EXPECT_FALSE(inferOp("TfIdfVectorizer", {&x}, tfidf("TF", 1, 0, {0, 1, 3}, {1, 1, 1})).ok());  // weights by column or gram?
  EXPECT_FALSE(inferOp("TfIdfVectorizer", {&x}, tfidf("BM25", 1, 0)).ok());
  Attributes ragged = tfidf("TF", 1, 0);
  ragged.setInts("ngram_counts", {0, 1});  // a 2-gram pool of 3 items
  EXPECT_FALSE(inferOp("TfIdfVectorizer", {&x}, ragged).ok());
  // No start for the 2-grams max_gram_length asks for: ONNX Runtime refuses it
  // (mcf-5609fc32, made by a parameter mutation of max_gram_length 1 -> 2).
  Attributes unigrams = tfidf("TF", 1, 0, {0, 1});
  unigrams.setInts("pool_int64s", {1, 2});
  unigrams.setInts("ngram_counts", {0});
  unigrams.setInt("max_gram_length", 1);
  EXPECT_TRUE(inferOp("TfIdfVectorizer", {&x}, unigrams).ok());
  unigrams.setInt("max_gram_length", 2);
  EXPECT_FALSE(inferOp("TfIdfVectorizer", {&x}, unigrams).ok());
}

}  // namespace
}  // namespace nnfuzz
