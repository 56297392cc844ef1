#include "util/sha256.h"

#include <gtest/gtest.h>

namespace memstand {
namespace {

// FIPS 180-2 test vectors.
TEST(Sha256Test, KnownDigests) {
  Sha256 empty;
  EXPECT_EQ(empty.HexDigest(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 abc;
  abc.Update("abc");
  EXPECT_EQ(abc.HexDigest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, PiecesHashLikeTheWhole) {
  Sha256 pieces;
  pieces.Update("abcdbcdecdefdefgefghfghighijhijk");
  pieces.Update("");
  pieces.Update("ijkljklmklmnlmnomnopnopq");
  EXPECT_EQ(pieces.HexDigest(), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

}  // namespace
}  // namespace memstand
