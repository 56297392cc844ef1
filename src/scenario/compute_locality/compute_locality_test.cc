#include "scenario/compute_locality/compute_locality.h"

#include <gtest/gtest.h>

#include "scenario/compute_locality/paths.h"
#include "workload/products.h"

namespace memstand {
namespace {

// Ties on views resolved by id ascending, whatever order the rows came in.
TEST(ComputeLocalityTest, TopIdsBreaksTiesByIdAscending) {
  std::vector<ViewsRow> rows = {{5, 10}, {3, 30}, {9, 30}, {1, 30}, {7, 20}, {2, 10}};
  EXPECT_EQ(TopIds(rows, 4), (std::vector<uint32_t>{1, 3, 9, 7}));
  EXPECT_EQ(TopIds(rows, 100).size(), rows.size());
}

bool WrongTieBreak(const ViewsRow& a, const ViewsRow& b) {
  return a.views != b.views ? a.views > b.views : a.id > b.id;
}

// A path that breaks ties by id descending returns other ids in other places: the
// invariant against the reference fails. On the dataset itself, the top 1000 of
// 'tools' holds ties (views are skewed to small values).
TEST(ComputeLocalityTest, AWrongTieBreakOnOnePathBreaksTheInvariant) {
  std::vector<ViewsRow> rows;
  for (uint32_t id = 1; id <= kProductCount; ++id) {
    const Product p = MakeProduct(kProductDefaultSeed, id);
    if (p.category == "tools") rows.push_back({p.id, p.views});
  }
  ASSERT_EQ(rows.size(), 33276u);
  const std::vector<uint32_t> right = TopIds(rows, 1000);
  const std::vector<uint32_t> wrong = TopIds(rows, 1000, WrongTieBreak);
  EXPECT_TRUE(SameIdsInvariant("naive", right, "reference", right).ok());
  const Invariant broken = SameIdsInvariant("local", wrong, "reference", right);
  EXPECT_FALSE(broken.ok()) << broken.Describe();
  EXPECT_EQ(broken.rhs_value, 1000);
  EXPECT_LT(broken.lhs_value, 1000);
  // The same rows in another order: the positions count, not only the set.
  std::vector<uint32_t> swapped = right;
  std::swap(swapped[0], swapped[1]);
  EXPECT_EQ(SameIdsInvariant("x", swapped, "reference", right).lhs_value, 998);
  // A shorter list never passes.
  EXPECT_FALSE(SameIdsInvariant("x", {right.begin(), right.begin() + 999}, "reference", right).ok());
}

TEST(ComputeLocalityTest, TheDatasetsTopTenOfTools) {
  const std::vector<uint32_t> top = DatasetTopIds(kProductDefaultSeed, "tools", 10);
  ASSERT_EQ(top.size(), 10u);
  int64_t last = INT64_MAX;
  for (uint32_t id : top) {
    const Product p = MakeProduct(kProductDefaultSeed, id);
    EXPECT_EQ(p.category, "tools");
    EXPECT_LE(p.views, last);
    last = p.views;
  }
}

TEST(ComputeLocalityTest, BadOptionsNameTheFlag) {
  ComputeLocalityOptions o;
  EXPECT_TRUE(ValidateComputeLocality(o).ok());
  o.reps = 0;
  EXPECT_NE(ValidateComputeLocality(o).message().find("--reps"), std::string::npos);
  o = {};
  o.category = "nope";
  EXPECT_NE(ValidateComputeLocality(o).message().find("--category"), std::string::npos);
  o = {};
  o.systems = {"postgres"};
  EXPECT_NE(ValidateComputeLocality(o).message().find("--only"), std::string::npos);
}

}  // namespace
}  // namespace memstand
