// name_table.h - a fixed table from short names (operator names) to values, filled once and
// then only read. Generation, inference and export look an operator's spec, schema and
// conversions up by name several times per node; std::unordered_map spent most of that in
// hashing the whole name and a division by a prime. Here the hash reads the name's first
// and last eight bytes in one multiplication, and the table is a power of two, probed linearly.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace nnfuzz {

template <typename T>
class NameTable {
 public:
  /// The entries' names must outlive the table (names of static specs).
  explicit NameTable(const std::vector<std::pair<std::string_view, T>>& entries) {
    const size_t size = std::bit_ceil(std::max<size_t>(16, entries.size() * 4));
    mask_ = size - 1;
    shift_ = 64 - std::countr_zero(size);
    slots_.resize(size);
    for (const auto& [key, value] : entries) {
      size_t i = slotOf(key);
      while (slots_[i].used && slots_[i].key != key) i = (i + 1) & mask_;
      if (!slots_[i].used) slots_[i] = {key, value, true};  // the first entry of a name wins
    }
  }

  /// The value of `key`, or nullptr.
  const T* find(std::string_view key) const {
    for (size_t i = slotOf(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }

 private:
  struct Slot {
    std::string_view key;
    T value{};
    bool used = false;
  };

  // The top bits of one multiplication, which depend on every bit of the name's ends (its
  // first and last eight bytes; of a shorter name, its first and last four).
  size_t slotOf(std::string_view s) const {
    uint64_t head = 0, tail = 0;
    const size_t n = s.size();
    if (n >= 8) {  // fixed-size loads, which compile to moves rather than calls to memcpy
      std::memcpy(&head, s.data(), 8);
      std::memcpy(&tail, s.data() + n - 8, 8);
    } else if (n >= 4) {
      uint32_t low = 0, high = 0;
      std::memcpy(&low, s.data(), 4);
      std::memcpy(&high, s.data() + n - 4, 4);
      head = low | uint64_t{high} << 32;
    } else {
      for (size_t i = 0; i < n; ++i) head |= uint64_t{static_cast<unsigned char>(s[i])} << (8 * i);
    }
    return static_cast<size_t>(((head ^ std::rotl(tail, 29) ^ n) * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace nnfuzz
