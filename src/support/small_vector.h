// small_vector.h - a vector of trivially copyable elements that keeps up to N of them inline.
//
// Shape is one: generation copies tensor types (operand types, drafts, inferred results,
// graph values) hundreds of times a model, and a std::vector makes each copy a heap
// allocation. Ranks rarely pass N, so most copies are a memcpy. The API is the subset of
// std::vector's the code uses, with conversions to and from std::vector<T> for the places
// that hold dims as one (attributes, tensors of int64).
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <iterator>
#include <type_traits>
#include <vector>

namespace nnfuzz {

template <typename T, size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "elements are moved with memcpy");

 public:
  using value_type = T;
  using size_type = size_t;
  using difference_type = ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  SmallVector() = default;
  explicit SmallVector(size_t n) { resize(n); }
  SmallVector(size_t n, const T& value) { resize(n, value); }
  SmallVector(std::initializer_list<T> values) { assign(values.begin(), values.end()); }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  SmallVector(It first, It last) {
    assign(first, last);
  }
  SmallVector(const std::vector<T>& values) { assign(values.begin(), values.end()); }  // NOLINT: implicit
  SmallVector(const SmallVector& other) { assign(other.begin(), other.end()); }
  SmallVector(SmallVector&& other) noexcept { take(other); }
  ~SmallVector() { release(); }

  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  SmallVector& operator=(std::initializer_list<T> values) {
    assign(values.begin(), values.end());
    return *this;
  }
  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }  // NOLINT: implicit

  template <typename It>
  void assign(It first, It last) {
    const auto n = static_cast<size_t>(std::distance(first, last));
    clear();
    reserve(n);
    std::copy(first, last, data_);
    size_ = static_cast<uint32_t>(n);
  }
  void assign(size_t n, const T& value) {
    clear();
    resize(n, value);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }
  T* data() { return data_; }
  const T* data() const { return data_; }

  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& at(size_t i) {
    checkIndex(i);
    return data_[i];
  }
  const T& at(size_t i) const {
    checkIndex(i);
    return data_[i];
  }
  T& front() { return data_[0]; }
  const T& front() const { return data_[0]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  const_iterator cbegin() const { return data_; }
  const_iterator cend() const { return data_ + size_; }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

  void reserve(size_t n) {
    if (n <= capacity_) return;
    T* grown = new T[n];
    if (size_ > 0) std::memcpy(grown, data_, size_ * sizeof(T));
    release();
    data_ = grown;
    capacity_ = static_cast<uint32_t>(n);
  }
  void clear() { size_ = 0; }
  void resize(size_t n) { resize(n, T{}); }
  void resize(size_t n, const T& value) {
    if (n > size_) {
      grow(n);
      std::fill(data_ + size_, data_ + n, value);
    }
    size_ = static_cast<uint32_t>(n);
  }
  void push_back(const T& value) {
    const T copy = value;  // `value` may be an element, which growing moves
    grow(size_ + 1);
    data_[size_++] = copy;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    push_back(T(std::forward<Args>(args)...));
    return back();
  }
  void pop_back() { --size_; }

  iterator insert(const_iterator pos, const T& value) { return insert(pos, size_t{1}, value); }
  iterator insert(const_iterator pos, size_t n, const T& value) {
    const T copy = value;
    T* at = openGap(pos, n);
    std::fill(at, at + n, copy);
    return at;
  }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  iterator insert(const_iterator pos, It first, It last) {
    const SmallVector values(first, last);  // the range may lie in this vector
    T* at = openGap(pos, values.size());
    std::copy(values.begin(), values.end(), at);
    return at;
  }
  iterator insert(const_iterator pos, std::initializer_list<T> values) {
    return insert(pos, values.begin(), values.end());
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    T* from = data_ + (first - data_);
    const auto n = static_cast<size_t>(last - first);
    std::copy(from + n, data_ + size_, from);
    size_ -= static_cast<uint32_t>(n);
    return from;
  }
  void swap(SmallVector& other) noexcept {
    SmallVector tmp(std::move(other));
    other = std::move(*this);
    *this = std::move(tmp);
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend auto operator<=>(const SmallVector& a, const SmallVector& b) {
    return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool isInline() const { return data_ == inline_; }
  void release() {
    if (!isInline()) delete[] data_;
    data_ = inline_;
    capacity_ = N;
  }
  // Leaves `other` empty and inline.
  void take(SmallVector& other) {
    if (other.isInline()) {
      std::memcpy(inline_, other.inline_, other.size_ * sizeof(T));
    } else {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_;
      other.capacity_ = N;
    }
    size_ = other.size_;
    other.size_ = 0;
  }
  void grow(size_t n) {
    if (n > capacity_) reserve(std::max<size_t>(n, 2 * size_t{capacity_}));
  }
  T* openGap(const_iterator pos, size_t n) {
    const auto index = static_cast<size_t>(pos - data_);
    grow(size_ + n);
    std::copy_backward(data_ + index, data_ + size_, data_ + size_ + n);
    size_ += static_cast<uint32_t>(n);
    return data_ + index;
  }
  void checkIndex(size_t i) const {
    if (i >= size_) throw std::out_of_range("SmallVector::at: index " + std::to_string(i) + " >= size " + std::to_string(size_));
  }

  T* data_ = inline_;
  uint32_t size_ = 0;
  uint32_t capacity_ = N;
  T inline_[N];
};

}  // namespace nnfuzz
