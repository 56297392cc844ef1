#include "util/base64.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

TEST(Base64Test, EncodesRfc4648Vectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\xff\xfe\x00", 3)), "//4A");
  EXPECT_EQ(Base64Size(6), 8u);
  EXPECT_EQ(Base64Size(7), 12u);
}

TEST(Base64Test, DecodesAndRejects) {
  std::string out;
  ASSERT_TRUE(Base64Decode("Zm9vYmE=", &out));
  EXPECT_EQ(out, "fooba");
  ASSERT_TRUE(Base64Decode("Zg==", &out));
  EXPECT_EQ(out, "f");
  ASSERT_TRUE(Base64Decode("//4A", &out));
  EXPECT_EQ(out, std::string("\xff\xfe\x00", 3));
  ASSERT_TRUE(Base64Decode("", &out));
  EXPECT_EQ(out, "");
  EXPECT_FALSE(Base64Decode("Zg=", &out));
  EXPECT_FALSE(Base64Decode("Zg=a", &out));
  EXPECT_FALSE(Base64Decode("Z===", &out));
  EXPECT_FALSE(Base64Decode("Zg==Zg==", &out));
  EXPECT_FALSE(Base64Decode("Zm9*", &out));
}

TEST(Base64Test, RoundTripsEveryLength) {
  std::string in;
  for (int n = 0; n < 70; ++n) {
    std::string out;
    ASSERT_TRUE(Base64Decode(Base64Encode(in), &out)) << n;
    EXPECT_EQ(out, in);
    in.push_back(static_cast<char>(n * 37 + 11));
  }
}

}  // namespace
}  // namespace memstand
