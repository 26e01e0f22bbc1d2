// export.h - GraphIR to a Caffe model: deploy.prototxt (text) + weights.caffemodel (binary).
//
// Names follow the ONNX exporter's: runtime inputs are Input layers input_0, input_1, ...
// (graph.inputs() order), a node result is blob output_K when it is graph output K (first
// mention), else t0, t1, ...; a layer is named after its first top blob (consumers such as
// OpenCV ask for outputs by layer name; the layer's type says what it is). The
// caffemodel holds every layer with its learned blobs; the prototxt the same layers
// without them. Weights are never blobs: they become layer parameters.
//
// A case folder in Caffe form (writeCaffeCase):
//   DIR/deploy.prototxt, DIR/weights.caffemodel
//   DIR/caffe_data/input_N.npy, output_N.npy   (float32 .npy; graph input/output order)
//   DIR/caffe.json   {"inputs": [blob names], "outputs": [blob names],
//                     "output_layers": [[layer name, top index], ...]}  (per output)
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "caffe/caffe.pb.h"
#include "ir/graph.h"

namespace nnfuzz {

struct CaffeModel {
  nnfuzz::caffe::NetParameter deploy;   ///< layers without blobs (deploy.prototxt)
  nnfuzz::caffe::NetParameter weights;  ///< the same layers with their blobs (weights.caffemodel)
  std::vector<std::string> inputNames, outputNames;
  /// Per graph output: the layer that writes its blob and which of the layer's tops it is
  /// (OpenCV's Net::forward and others ask for outputs by layer name).
  std::vector<std::pair<std::string, int>> outputLayers;
};

/// The Caffe form of a graph. Throws a one-line Error naming the first node Caffe cannot
/// express (and why).
CaffeModel exportCaffe(const Graph& graph, const std::string& netName = "nnfuzz");
/// Why a graph has no Caffe form, or an empty string.
std::string caffeProblem(const Graph& graph);

/// deploy.prototxt's text (protobuf text format, deterministic).
std::string deployText(const CaffeModel& model);
/// weights.caffemodel's bytes (deterministic).
std::string weightsBytes(const CaffeModel& model);
/// A tensor as .npy bytes (float32 for float tensors, int64 otherwise).
std::string npyBytes(const Tensor& tensor);

/// Writes the Caffe files of a case into DIR (which must exist); `inputs` follow
/// graph.inputs(), `expected` graph.outputs(). Throws a one-line Error.
void writeCaffeCase(const std::filesystem::path& dir, const Graph& graph, const std::vector<Tensor>& inputs,
                    const std::vector<Tensor>& expected);
/// writeCaffeCase when the graph has a Caffe form; false (nothing written) when it has
/// none (a reducer's candidate may lose it: the Caffe worker then finds no deploy.prototxt).
bool tryWriteCaffeCase(const std::filesystem::path& dir, const Graph& graph, const std::vector<Tensor>& inputs,
                       const std::vector<Tensor>& expected);

}  // namespace nnfuzz
