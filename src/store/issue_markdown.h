// issue_markdown.h - a bug bundle's README.md, written to read like a good upstream issue:
// a one-line title, the SUT and its version, what goes wrong (the first mismatching elements,
// or the SUT's message), the reduced model as GraphIR text and as an onnx.helper script, the
// exact commands that reproduce it, and what the ONNX specification says about its operators.
//
// It is made from the bundle folder alone (meta.json, model.onnx, model.ir, the test data and
// the actual outputs), so `writeBundle` and `nnfuzz report --bug ID --markdown` print the same
// text, and a bundle written by an older nnfuzz gets the new form too. The text holds no
// absolute paths and no times: the same bundle gives the same bytes anywhere.
#pragma once

#include <filesystem>
#include <string>

namespace nnfuzz {

/// The README of the bundle in `dir`. Throws a one-line Error when meta.json or model.onnx is
/// missing or unreadable; anything else missing is left out of the text.
std::string issueMarkdown(const std::filesystem::path& dir);

}  // namespace nnfuzz
