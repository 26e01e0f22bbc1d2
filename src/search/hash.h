// hash.h - 64-bit hashing for coverage keys (shapes, attribute lists, SPC vectors).
//
// The metrics count distinct shapes, attribute lists and (shape, parameter) vectors. We
// keep 64-bit digests of them instead of the objects: a collision among the at most a few
// million keys of a campaign has odds below 1e-6, and digests keep a 30-op model's update
// in the microseconds. The digests are defined here alone (no std::hash), so a coverage
// run is the same on every standard library.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace nnfuzz::search {

/// A strong 64-bit mixer (splitmix64's finaliser).
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Combines a running digest with one more word; order matters.
constexpr uint64_t combine(uint64_t seed, uint64_t word) { return mix64(seed ^ (word + 0x9e3779b97f4a7c15ULL)); }

/// Incremental digest of a sequence of words and strings.
class Hasher {
 public:
  explicit Hasher(uint64_t seed = 0x243f6a8885a308d3ULL) : h_(seed) {}
  Hasher& add(uint64_t word) {
    h_ = combine(h_, word);
    return *this;
  }
  Hasher& addInt(int64_t v) { return add(static_cast<uint64_t>(v)); }
  Hasher& addFloat(float f) {
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    return add(bits);
  }
  Hasher& addString(std::string_view s) {
    // FNV-1a over the bytes, then the length, so "ab"+"c" differs from "a"+"bc".
    uint64_t f = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) f = (f ^ c) * 0x100000001b3ULL;
    return add(f).add(s.size());
  }
  uint64_t digest() const { return h_; }

 private:
  uint64_t h_;
};

/// The digest of a tensor shape (a list of dims; an unknown dim is 0, as in Isra's script).
inline uint64_t shapeDigest(std::span<const int64_t> dims) {
  Hasher h(0x5348415045ULL);  // "SHAPE"
  h.add(dims.size());
  for (int64_t d : dims) h.addInt(d);
  return h.digest();
}

/// The digest of a shape that nobody declared or inferred (distinct from every real one).
inline constexpr uint64_t kUnknownShape = 0x756e6b6e6f776e21ULL;
/// Marks an omitted optional operand in an operand-shape sequence.
inline constexpr uint64_t kOmittedOperand = 0x6f6d69747465642eULL;

}  // namespace nnfuzz::search
