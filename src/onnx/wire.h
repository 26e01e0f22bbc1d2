// wire.h - protobuf's wire format, written straight into bytes: the field kinds ONNX's
// messages use. Export writes models this way instead of building protobuf objects and
// serialising them, which cost as much as generating the model's operators. Writers put
// fields in field-number order, so the bytes equal protobuf's deterministic serialisation
// (wire_test.cpp and GeneratedModels.ExportedBytesAreCanonicalAndImportBack hold them
// to it).
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

namespace nnfuzz {

class Wire {
 public:
  std::string bytes;

  void varint(uint64_t v) {
    char buffer[10];
    bytes.append(buffer, static_cast<size_t>(putVarint(buffer, v) - buffer));
  }
  /// Room for `n` more bytes, to be written through the pointer (putVarint, memcpy).
  char* extend(size_t n) {
    bytes.resize(bytes.size() + n);
    return bytes.data() + bytes.size() - n;
  }
  /// Writes v's varint at `out`; returns the end.
  static char* putVarint(char* out, uint64_t v) {
    for (; v >= 0x80; v >>= 7) *out++ = static_cast<char>(v | 0x80);
    *out++ = static_cast<char>(v);
    return out;
  }
  /// A field's tag (wire type 0 or 2) at `out`; returns the end.
  static char* putTag(char* out, int field, bool lengthDelimited) {
    return putVarint(out, static_cast<uint64_t>(field) << 3 | (lengthDelimited ? kLengthDelimited : kVarint));
  }
  /// The bytes varint(v) writes.
  static size_t varintSize(uint64_t v) { return v < 0x80 ? 1 : (static_cast<size_t>(std::bit_width(v)) + 6) / 7; }
  /// The bytes of a length-delimited field of `length` bytes, tag and length included.
  static size_t fieldSize(int field, size_t length) {
    return varintSize(static_cast<uint64_t>(field) << 3) + varintSize(length) + length;
  }
  /// int32, int64 and enum fields alike: negatives take ten bytes, as protobuf writes them.
  void intField(int field, int64_t v) {
    tag(field, kVarint);
    varint(static_cast<uint64_t>(v));
  }
  void floatField(int field, float f) {
    tag(field, kFixed32);
    const auto bits = std::bit_cast<uint32_t>(f);
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));
  }
  void stringField(int field, std::string_view s) {
    lengthOf(field, s.size());
    bytes.append(s);
  }
  /// The head of a length-delimited field whose `length` bytes the caller appends next.
  void lengthOf(int field, size_t length) {
    tag(field, kLengthDelimited);
    varint(length);
  }

  /// A nested message written in place: open() before its fields, close() after them.
  size_t open(int field) {
    tag(field, kLengthDelimited);
    return bytes.size();
  }
  void close(size_t start) {
    char prefix[10];
    // one move of the message's bytes
    bytes.insert(start, prefix, static_cast<size_t>(putVarint(prefix, bytes.size() - start) - prefix));
  }

 private:
  static constexpr int kVarint = 0, kFixed32 = 5, kLengthDelimited = 2;
  void tag(int field, int wireType) { varint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wireType)); }
};

}  // namespace nnfuzz
