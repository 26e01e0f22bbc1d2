// repro.cpp - assembling repro.py from the compiled-in templates (see repro.h).
#include "store/repro.h"

namespace nnfuzz {

namespace {

const char* const kCommon =
#include "repro_common.inc"
    ;
const char* const kOnnxRuntime =
#include "repro_onnxruntime.inc"
    ;
const char* const kOpenVino =
#include "repro_openvino.inc"
    ;
const char* const kTvm =
#include "repro_tvm.inc"
    ;
const char* const kOpenCv =
#include "repro_opencv.inc"
    ;
const char* const kOpenCvCaffe =
#include "repro_opencv_caffe.inc"
    ;
const char* const kMnn =
#include "repro_mnn.inc"
    ;
const char* const kOrtNoopt =
#include "repro_ort_noopt.inc"
    ;
const char* const kOnnxOptimizer =
#include "repro_onnxoptimizer.inc"
    ;
const char* const kOnnxSim =
#include "repro_onnxsim.inc"
    ;
const char* const kPyTorch =
#include "repro_pytorch.inc"
    ;
const char* const kNcnn =
#include "repro_ncnn.inc"
    ;
const char* const kIree =
#include "repro_iree.inc"
    ;
const char* const kLiteRt =
#include "repro_litert.inc"
    ;
const char* const kGeneric =
#include "repro_generic.inc"
    ;

// The backend's part: its own template, or for a graph optimizer the shared ONNX Runtime
// runner plus the optimizer's optimize(). Empty for a backend without one.
std::string backendTemplate(const std::string& backend) {
  if (backend == "onnxruntime") return kOnnxRuntime;
  if (backend == "openvino") return kOpenVino;
  if (backend == "tvm") return kTvm;
  if (backend == "opencv") return kOpenCv;
  if (backend == "opencv-caffe") return kOpenCvCaffe;
  if (backend == "mnn") return kMnn;
  if (backend == "pytorch") return kPyTorch;
  if (backend == "ncnn") return kNcnn;
  if (backend == "iree") return kIree;
  if (backend == "litert") return kLiteRt;
  if (backend == "onnxoptimizer") return std::string(kOrtNoopt) + "\n\n" + kOnnxOptimizer;
  if (backend == "onnxsim") return std::string(kOrtNoopt) + "\n\n" + kOnnxSim;
  return "";
}

}  // namespace

bool hasReproTemplate(const std::string& backend) { return !backendTemplate(backend).empty(); }

std::string pipPackageOf(const std::string& backend) {
  if (backend == "tvm") return "apache-tvm";
  if (backend == "opencv") return "opencv-python-headless";
  if (backend == "opencv-caffe") return "opencv-python-headless";  // 4.x: OpenCV 5 has no Caffe importer
  if (backend == "mnn") return "MNN";
  if (backend == "pytorch") return "torch";
  if (backend == "iree") return "iree-base-compiler[onnx] iree-base-runtime";
  if (backend == "litert") return "ai-edge-litert";
  return backend;
}

std::string reproExtraPackages(const std::string& backend) {
  if (backend == "pytorch") return "onnx2torch ";
  if (backend == "ncnn") return "pnnx ";  // its converter binary; pip's --no-deps spares torch, which it does not need
  if (backend == "litert") return "onnx2tf ";  // pins its TensorFlow
  return backend == "onnxoptimizer" || backend == "onnxsim" ? "onnxruntime " : "";
}

std::string renderRepro(const nlohmann::json& bug) {
  const std::string backend = bug.at("backend").get<std::string>();
  const std::string part = backendTemplate(backend);
  // The facts go in as JSON inside a raw string: JSON escapes every quote inside its strings
  // (\" keeps its backslash in a raw string, so it cannot close it) and ends with '}', so no
  // recorded text can break out of the literal. ensure_ascii keeps the file plain ASCII.
  const std::string facts = bug.dump(2, ' ', true, nlohmann::json::error_handler_t::replace);
  std::string text = "#!/usr/bin/env python3\n\"\"\"Reproduces nnfuzz bug " + bug.at("bundle").get<std::string>() +
                     ".\n\nNeeds only: pip install " + pipPackageOf(backend) + " " + reproExtraPackages(backend) +
                     "numpy onnx\nRun:   python3 repro.py   (from anywhere; it finds its bundle beside it)\n"
                     "Exit:  1 while the bug is present, 0 once it is gone, 2 when something else happens.\n\"\"\"\n"
                     "import json\n\nBUG = json.loads(r\"\"\"" +
                     facts + "\"\"\")\n\n";
  text += kCommon;
  text += "\n\n";
  text += part.empty() ? kGeneric : part;
  text += "\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n";
  return text;
}

}  // namespace nnfuzz
