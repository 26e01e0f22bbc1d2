// rng.h - the one random number generator every generator uses.
//
// xoshiro256** seeded through splitmix64: fast, small state, and its output is defined
// by this file alone, so a seed replays identically on every compiler and standard
// library (std::uniform_*_distribution is implementation-defined and is never used).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace nnfuzz {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& word : state_) word = splitMix(seed);
  }

  uint64_t next() {
    const uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform integer in [lo, hi] (inclusive); lo <= hi.
  int64_t uniformInt(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    if (span == 0) return static_cast<int64_t>(next());  // the full 64-bit range
    // Multiply-shift (Lemire) without the rejection step: the bias is < span / 2^64.
    const unsigned __int128 product = static_cast<unsigned __int128>(next()) * span;
    return lo + static_cast<int64_t>(product >> 64);
  }

  /// Uniform double in [lo, hi).
  double uniformReal(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }

  bool bernoulli(double p) { return uniformReal(0.0, 1.0) < p; }

  template <typename T>
  const T& pick(std::span<const T> items) {
    return items[static_cast<size_t>(uniformInt(0, static_cast<int64_t>(items.size()) - 1))];
  }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return pick(std::span<const T>(items));
  }

  /// Index drawn with probability proportional to weights[i]; the weights' sum must be > 0.
  size_t weighted(std::span<const double> weights) {
    double total = 0;
    for (double w : weights) total += w;
    double point = uniformReal(0.0, total);
    for (size_t i = 0; i < weights.size(); ++i) {
      if (point < weights[i]) return i;
      point -= weights[i];
    }
    for (size_t i = weights.size(); i-- > 0;)
      if (weights[i] > 0) return i;
    return 0;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitMix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_[4];
};

/// Rng::weighted over fixed weights, with their running sums kept: one draw and a binary
/// search instead of two passes over the weights. It takes the same uniform draw and finds
/// the index the sequential scan finds, but for a point within rounding of a boundary.
class WeightedTable {
 public:
  WeightedTable() = default;
  explicit WeightedTable(std::span<const double> weights) {
    double total = 0;
    for (double w : weights) {
      total += w;
      sums_.push_back(total);
    }
    for (size_t i = weights.size(); i-- > 0;)
      if (weights[i] > 0) {
        lastPositive_ = i;
        break;
      }
  }
  /// Index drawn with probability proportional to its weight (the sum must be > 0).
  size_t draw(Rng& rng) const {
    const double point = rng.uniformReal(0.0, sums_.empty() ? 0.0 : sums_.back());
    const size_t i = static_cast<size_t>(std::upper_bound(sums_.begin(), sums_.end(), point) - sums_.begin());
    return i < sums_.size() ? i : lastPositive_;
  }

 private:
  std::vector<double> sums_;  // sums_[i]: weights 0..i
  size_t lastPositive_ = 0;
};

}  // namespace nnfuzz
