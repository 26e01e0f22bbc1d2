// graph_drawing.h - a drawing of a (reduced) ONNX model: Graphviz DOT text, laid out by
// Graphviz's `dot -Tsvg` in a child process.
//
// Why the `dot` program and not libgvc linked in: the drawing is a nicety of the report, so
// Graphviz stays an optional run-time tool (no build dependency, a report without it just
// has no drawings), a layout that crashes or hangs on some graph cannot take nnfuzz down
// with it, and libgvc's plugin loading and global state would sit badly in sanitizer builds.
#pragma once

#include <optional>
#include <string>

#include "onnx/onnx_pb.h"

namespace nnfuzz::report {

/// The model as DOT: operators as boxes (with their attributes), runtime inputs and outputs
/// as ellipses with their types, initializers as small notes with their types.
std::string modelDot(const onnx::ModelProto& model);

/// Whether Graphviz's `dot` program can be run.
bool graphvizAvailable();

/// `dot` laid out as SVG by Graphviz (the <svg> element only, ready to inline in HTML);
/// nullopt when Graphviz is missing or fails.
std::optional<std::string> layoutSvg(const std::string& dot);

}  // namespace nnfuzz::report
