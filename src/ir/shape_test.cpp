// shape_test.cpp - Shape (a SmallVector) behaves as the std::vector it replaced, inline
// and past its inline capacity.
#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "ir/tensor.h"

namespace nnfuzz {
namespace {

TEST(ShapeTest, GrowsPastItsInlineCapacityAndKeepsItsElements) {
  Shape s{1, 2, 3};
  for (int64_t d = 4; d <= 20; ++d) s.push_back(d);
  ASSERT_EQ(s.size(), 20u);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s[i], static_cast<int64_t>(i + 1));
  s.resize(2);
  EXPECT_EQ(s, (Shape{1, 2}));
  s.resize(4, 7);
  EXPECT_EQ(s, (Shape{1, 2, 7, 7}));
}

TEST(ShapeTest, InsertsAndErasesAsAVectorDoes) {
  Shape s{1, 2, 3};
  std::vector<int64_t> v{1, 2, 3};
  s.insert(s.begin() + 1, 9);
  v.insert(v.begin() + 1, 9);
  s.insert(s.end(), s.begin(), s.end());  // a range of its own: copied before the gap opens
  v.insert(v.end(), v.begin(), v.end());
  s.insert(s.begin(), size_t{2}, 5);
  v.insert(v.begin(), size_t{2}, 5);
  EXPECT_EQ(std::vector<int64_t>(s), v);
  s.erase(s.begin() + 2, s.begin() + 4);
  v.erase(v.begin() + 2, v.begin() + 4);
  s.erase(s.begin());
  v.erase(v.begin());
  EXPECT_EQ(std::vector<int64_t>(s), v);
}

TEST(ShapeTest, CopiesMovesAndComparesInlineOrNot) {
  const Shape small{2, 3};
  const Shape large{1, 2, 3, 4, 5, 6, 7, 8};
  for (const Shape& original : {small, large}) {
    Shape copy = original;
    EXPECT_EQ(copy, original);
    Shape moved = std::move(copy);
    EXPECT_EQ(moved, original);
    EXPECT_TRUE(copy.empty());  // NOLINT: a moved-from Shape is empty
    copy = moved;
    EXPECT_EQ(copy, original);
  }
  EXPECT_LT(large, small);  // lexicographic, as std::vector
  EXPECT_LT((Shape{1, 2}), (Shape{1, 2, 0}));
  EXPECT_EQ(Shape(std::vector<int64_t>{4, 5}), (Shape{4, 5}));
  EXPECT_THROW((void)small.at(2), std::out_of_range);
}

}  // namespace
}  // namespace nnfuzz
