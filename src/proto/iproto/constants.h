// Tarantool IPROTO constants: request types, header and body keys, iterators and the
// keys of the extended error (MP_ERROR) map, as the binary protocol documentation and
// tarantool's src/box/iproto_constants.h define them (Tarantool 2.x).
#pragma once

#include <cstdint>

namespace memstand::iproto {

/// IPROTO_REQUEST_TYPE values of requests; in a response the same key holds the status
/// (kOk, kChunk, or kTypeError | error code).
enum RequestType : uint32_t {
  kOk = 0x00,
  kSelect = 0x01,
  kInsert = 0x02,
  kReplace = 0x03,
  kUpdate = 0x04,
  kDelete = 0x05,
  kCall16 = 0x06,
  kAuth = 0x07,
  kEval = 0x08,
  kUpsert = 0x09,
  kCall = 0x0a,
  kExecute = 0x0b,
  kNop = 0x0c,
  kPing = 0x40,
  kChunk = 0x80,          // an out-of-band push (box.session.push) before the response
  kTypeError = 0x8000,    // set in an error response; the low 15 bits are the error code
};

/// Keys of the header map.
enum HeaderKey : uint8_t {
  kRequestTypeKey = 0x00,
  kSyncKey = 0x01,
  kReplicaIdKey = 0x02,
  kLsnKey = 0x03,
  kTimestampKey = 0x04,
  kSchemaVersionKey = 0x05,
  kServerVersionKey = 0x06,
  kGroupIdKey = 0x07,
  kStreamIdKey = 0x0a,
};

/// Keys of the body map.
enum BodyKey : uint8_t {
  kSpaceIdKey = 0x10,
  kIndexIdKey = 0x11,
  kLimitKey = 0x12,
  kOffsetKey = 0x13,
  kIteratorKey = 0x14,
  kIndexBaseKey = 0x15,
  kKeyKey = 0x20,
  kTupleKey = 0x21,
  kFunctionNameKey = 0x22,
  kUserNameKey = 0x23,
  kExprKey = 0x27,
  kOpsKey = 0x28,
  kDataKey = 0x30,
  kError24Key = 0x31,  // the error message as a string (all versions)
  kMetadataKey = 0x32,
  kSqlInfoKey = 0x42,
  kErrorKey = 0x52,  // the extended error stack (2.4.1+): a map, see MpErrorKey
};

/// Keys of the IPROTO_ERROR value: {kErrorStack: [{kErrorType: ..., ...}, ...]}.
enum MpErrorKey : uint8_t {
  kErrorStack = 0x00,
  kErrorType = 0x00,
  kErrorFile = 0x01,
  kErrorLine = 0x02,
  kErrorMessage = 0x03,
  kErrorErrno = 0x04,
  kErrorCode = 0x05,
  kErrorFields = 0x06,
};

/// SELECT iterators (box.index.EQ ...).
enum class Iterator : uint8_t {
  kEq = 0,
  kReq = 1,
  kAll = 2,
  kLt = 3,
  kLe = 4,
  kGe = 5,
  kGt = 6,
  kBitsAllSet = 7,
  kBitsAnySet = 8,
  kBitsAllNotSet = 9,
  kOverlaps = 10,
  kNeighbor = 11,
};

/// The size prefix of every packet: 0xce and a big-endian uint32 (the length that follows).
constexpr size_t kPrefixSize = 5;
/// The greeting a server sends on connect: two 64-byte lines.
constexpr size_t kGreetingSize = 128;
/// Bytes of the salt that chap-sha1 uses (the greeting carries 32 or more).
constexpr size_t kScrambleSize = 20;

}  // namespace memstand::iproto
