// node_test.cpp - the ONNX backend node tests, run against nnfuzz's reference kernels.
//
// Test suite NodeTests. For every test folder under both data roots
//   debian:   $NNFUZZ_TESTDATA_DIR/node           (libonnx-testdata, onnx 1.12)
//   onnxX_Y:  <python onnx package>/backend/test/data/node  (pip onnx, found with python3)
// whose model is a single node of an operator in our registry, one test
// NodeTests.Run/<folder>__<root> imports model.onnx, runs the reference on every
// test_data_set_*/input_N.pb and compares with output_N.pb: rtol 1e-3, atol 1e-7 for
// floats (for DFT and STFT atol 1e-5 of the largest expected value, see toleranceFor), integers and bools exact, NaN positions equal, dtype and shape equal.
// Graph inputs feeding operands the op wants constant (OpSpec::constantInputs: shapes,
// axes, pads, ...) become initializers holding each data set's values.
//
// A test is SKIPPED, with its reason, when
//  - the model's opset is outside 7..21 (whose forms import reads, ops/version_forms.h)
//    and selects another schema version of the op than the one we implement
//    (OpSpec::sinceVersion; for opset > 17 the version comes from python's onnx.defs, and
//    without python those tests skip saying so);
//  - import fails on something nnfuzz does not model (dtype, attribute form, dynamic shape,
//    more outputs than we model, ...), including our shape inference rejecting the node.
//    NNFUZZ_NODE_STRICT=1 turns inference rejections into failures.
// At the end a summary prints per-op run/passed/failed/skipped counts, every skip with its
// reason and every failure with its max abs/rel error.
//
// Usage:
//   NNFUZZ_NODE_OPS=Conv,MaxPool build/onnx_test --gtest_filter='NodeTests.*'
//   build/onnx_test --gtest_filter='NodeTests.Run/test_abs*'
// NNFUZZ_NODE_OPS restricts the tests (and the summary) to the listed op types.
// NNFUZZ_NODE_DATA=dir1:dir2 adds further roots in the same layout (labelled extra0, ...).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "interp/interpreter.h"
#include "onnx/compare.h"
#include "onnx/import.h"
#include "onnx/tensor_proto.h"
#include "ops/registry.h"
#include "ops/schema_history.h"

namespace nnfuzz {
namespace {

namespace fs = std::filesystem;

struct NodeCase {
  std::string folder;  // test_abs
  std::string root;    // debian, onnx1_22
  fs::path dir;
  std::string op;
  int opset = 0;
};

struct Outcome {
  std::string test, reason;
};
struct OpStats {
  int run = 0, passed = 0, failed = 0, skipped = 0;
};

struct Summary {
  std::vector<std::string> notes;  // data roots, what was not applicable
  std::map<std::string, OpStats> perOp;
  std::vector<Outcome> skips, failures;
  std::set<std::string> requested;  // NNFUZZ_NODE_OPS, empty = all
};

Summary& summary() {
  static Summary s;
  return s;
}

// Runs a shell command and returns its stdout, or nullopt if it failed.
std::optional<std::string> runCommand(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  if (pclose(pipe) != 0) return std::nullopt;
  return out;
}

std::set<std::string> requestedOps() {
  std::set<std::string> ops;
  const char* env = std::getenv("NNFUZZ_NODE_OPS");
  if (!env) return ops;
  std::stringstream ss(env);
  std::string op;
  while (std::getline(ss, op, ','))
    if (!op.empty()) ops.insert(op);
  return ops;
}

void discoverRoot(const fs::path& root, const std::string& label, std::vector<NodeCase>& cases) {
  Summary& s = summary();
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    s.notes.push_back("data root " + label + " (" + root.string() + ") is missing");
    return;
  }
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(root, ec))
    if (entry.is_directory()) dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  int unreadable = 0, multiNode = 0, unknownOp = 0, notRequested = 0, taken = 0;
  for (const fs::path& dir : dirs) {
    onnx::ModelProto model;
    try {
      model = loadModelFile(dir / "model.onnx");
    } catch (const Error&) {
      ++unreadable;
      continue;
    }
    if (model.graph().node_size() != 1) {
      ++multiNode;
      continue;
    }
    const auto& node = model.graph().node(0);
    if (!(node.domain().empty() || node.domain() == "ai.onnx") || !findOp(node.op_type())) {
      ++unknownOp;
      continue;
    }
    if (!s.requested.empty() && !s.requested.count(node.op_type())) {
      ++notRequested;
      continue;
    }
    cases.push_back({dir.filename().string(), label, dir, node.op_type(), defaultOpset(model).value_or(0)});
    ++taken;
  }
  s.notes.push_back("data root " + label + " (" + root.string() + "): " + std::to_string(dirs.size()) +
                    " folders, " + std::to_string(taken) + " taken; not applicable: " + std::to_string(unknownOp) +
                    " ops not in the registry, " + std::to_string(multiNode) + " multi-node models, " +
                    std::to_string(unreadable) + " unreadable" +
                    (s.requested.empty() ? "" : ", " + std::to_string(notRequested) + " not in NNFUZZ_NODE_OPS"));
}

// Python's onnx: version label and node data root.
std::optional<std::pair<std::string, fs::path>> pythonOnnx() {
  auto out = runCommand(
      "python3 -c \"import onnx,os;print(onnx.__version__);"
      "print(os.path.join(os.path.dirname(onnx.__file__),'backend','test','data','node'))\" 2>/dev/null");
  if (!out) return std::nullopt;
  std::stringstream ss(*out);
  std::string version, path;
  if (!std::getline(ss, version) || !std::getline(ss, path)) return std::nullopt;
  std::string label = "onnx" + version.substr(0, version.rfind('.'));
  std::replace(label.begin(), label.end(), '.', '_');
  return std::make_pair(label, fs::path(path));
}

// since_version of (op, opset) pairs above what the C++ library knows, asked of python once.
class PythonSchemas {
 public:
  explicit PythonSchemas(const std::vector<NodeCase>& cases) {
    std::set<std::string> pairs;
    for (const auto& c : cases)
      if (c.opset > knownOpset()) pairs.insert(c.op + ":" + std::to_string(c.opset));
    if (pairs.empty()) return;
    std::string cmd =
        "python3 -c \"import sys,onnx.defs as d\nfor a in sys.argv[1:]:\n op,v=a.split(':')\n"
        " try: print(op,v,d.get_schema(op,int(v),'').since_version)\n except Exception: print(op,v,-1)\"";
    for (const auto& p : pairs) cmd += " " + p;
    auto out = runCommand(cmd + " 2>/dev/null");
    if (!out) {
      problem_ = "python3 with onnx is not available to look up schema versions above opset " +
                 std::to_string(knownOpset());
      return;
    }
    std::stringstream ss(*out);
    std::string op;
    int opset, since;
    while (ss >> op >> opset >> since) table_[{op, opset}] = since;
  }
  // since_version, or an error text.
  std::variant<int, std::string> lookup(const std::string& op, int opset) const {
    if (!problem_.empty()) return problem_;
    auto it = table_.find({op, opset});
    if (it == table_.end() || it->second < 0)
      return "python's onnx knows no schema of " + op + " at opset " + std::to_string(opset);
    return it->second;
  }

 private:
  std::map<std::pair<std::string, int>, int> table_;
  std::string problem_;
};

// Built on first use, so runs that skip every node test never start python.
const PythonSchemas& pythonSchemas(const std::vector<NodeCase>* cases = nullptr) {
  static const std::vector<NodeCase>* all = nullptr;
  if (cases) {
    all = cases;
    static const PythonSchemas unused{{}};
    return unused;
  }
  static const PythonSchemas schemas(*all);
  return schemas;
}

void PrintTo(const NodeCase& c, std::ostream* os) { *os << c.folder << " [" << c.root << "]"; }

// Discovery runs inside gtest's test registration (not at static initialisation, when op
// specs may not be constructible yet).
std::vector<NodeCase> discoverCases() {
  Summary& s = summary();
  s.requested = requestedOps();
  std::vector<NodeCase> cases;
  discoverRoot(fs::path(NNFUZZ_TESTDATA_DIR) / "node", "debian", cases);
  if (auto py = pythonOnnx()) {
    discoverRoot(py->second, py->first, cases);
  } else {
    s.notes.push_back("python3 with onnx not found: its node tests are not run");
  }
  if (const char* extra = std::getenv("NNFUZZ_NODE_DATA")) {
    std::stringstream ss(extra);
    std::string root;
    for (int k = 0; std::getline(ss, root, ':');)
      if (!root.empty()) discoverRoot(root, "extra" + std::to_string(k++), cases);
  }
  static std::vector<NodeCase> all;
  all = cases;
  pythonSchemas(&all);
  return cases;
}

std::string caseName(const ::testing::TestParamInfo<NodeCase>& info) {
  std::string name = info.param.folder + "__" + info.param.root;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// Node tests feed shape-like operands (Reshape's shape, Slice's starts, Resize's scales,
// ...) as graph inputs, while nnfuzz wants them as weights (OpSpec::constantInputs). This
// turns the graph inputs feeding such operands into initializers holding the data set's
// values, and gives the indices (among the graph's runtime inputs) of those left.
std::vector<size_t> foldConstantOperands(onnx::ModelProto& model, const OpSpec& spec, const fs::path& set) {
  onnx::GraphProto* g = model.mutable_graph();
  std::set<std::string> initializers, constant;
  for (const auto& t : g->initializer()) initializers.insert(t.name());
  if (g->node_size() == 1)
    for (int i = 0; i < g->node(0).input_size(); ++i)
      if (spec.isConstantInput(i) && !g->node(0).input(i).empty()) constant.insert(g->node(0).input(i));
  std::vector<size_t> kept;
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  size_t k = 0;
  for (const auto& in : g->input()) {
    if (initializers.count(in.name())) {
      *inputs.Add() = in;
      continue;
    }
    if (constant.count(in.name())) {
      onnx::TensorProto value;
      if (!value.ParseFromString(readFileBytes(set / ("input_" + std::to_string(k) + ".pb"))))
        throw Error("cannot parse input_" + std::to_string(k) + ".pb");
      value.set_name(in.name());
      *g->add_initializer() = std::move(value);
    } else {
      *inputs.Add() = in;
      kept.push_back(k);
    }
    ++k;
  }
  g->mutable_input()->Swap(&inputs);
  return kept;
}

// Schema versions after the one we implement that change nothing a test of ours can see:
// they only add dtypes (bfloat16, float8, int4, ...) or add attributes, inputs or attribute
// values that our shape inference rejects (so a test using them is skipped on import).
// A test at such a version runs; if one fails, the entry here is wrong. Each list holds
// every later version of the op up to the newest one that qualifies.
bool sameSemantics(const std::string& op, int ours, int selected) {
  static const std::map<std::string, std::vector<int>> kTypeOnlyVersions = {
      {"Acos", {22}},
      {"Acosh", {22}},
      {"Asin", {22}},
      {"Asinh", {22}},
      {"Atan", {22}},
      {"Atanh", {22}},
      {"AveragePool", {19, 22}},  // 19 adds dilations (which our inference rejects)
      {"Cast", {19, 21, 23, 24, 25}},  // 19 adds saturate, which only float8 targets read
      {"CastLike", {19, 21, 23, 24, 25}},  // as Cast: saturate only matters for float8 targets
      {"Conv", {22}},
      {"ConvTranspose", {22}},
      {"Cos", {22}},
      {"Cosh", {22}},
      {"DequantizeLinear", {19, 21, 23, 24, 25}},  // as QuantizeLinear
      {"Det", {22}},
      {"Dropout", {22}},  // 22 adds bfloat16
      {"Elu", {22}},
      {"Equal", {19}},
      {"EyeLike", {22}},
      {"Flatten", {21, 23, 24, 25}},
      {"GRU", {22}},
      {"GlobalAveragePool", {22}},
      {"GlobalMaxPool", {22}},
      {"HardSigmoid", {22}},
      {"HardSwish", {22}},
      {"Identity", {19, 21, 23, 24, 25}},
      {"InstanceNormalization", {22}},
      {"IsInf", {20}},
      {"IsNaN", {20}},
      {"LSTM", {22}},
      {"LpNormalization", {22}},
      {"LpPool", {18, 22}},  // 18 adds ceil_mode and dilations (which our inference rejects)
      {"MaxPool", {22}},
      {"MaxRoiPool", {22}},
      {"MaxUnpool", {22}},
      {"Mish", {22}},
      {"NegativeLogLikelihoodLoss", {22}},  // 22 adds bfloat16
      {"QLinearMatMul", {21}},  // 21 adds float16/bfloat16 scales
      {"QuantizeLinear", {19, 21, 23, 24, 25}},  // later: saturate, block_size, output_dtype, new types (all rejected)
      {"RNN", {22}},
      {"Reshape", {19, 21, 23, 24, 25}},
      {"RoiAlign", {22}},
      {"Round", {22}},
      {"ScatterElements", {18}},  // 18 adds reductions max and min (which our inference rejects)
      {"ScatterND", {18}},  // as ScatterElements
      {"Selu", {22}},
      {"Shape", {19, 21, 23, 24, 25}},
      {"Sin", {22}},
      {"Sinh", {22}},
      {"Size", {19, 21, 23, 24, 25}},
      {"Softplus", {22}},
      {"Softsign", {22}},
      {"Squeeze", {21, 23, 24, 25}},
      {"Tan", {22}},
      {"ThresholdedRelu", {22}},
      {"TopK", {24}},
      {"Transpose", {21, 23, 24, 25}},
      {"Unsqueeze", {21, 23, 24, 25}},
  };
  // Earlier versions whose tensor semantics are ours: the later ones only added sequence
  // and optional types (If, Loop) or bfloat16 and negative axes (Scan-11 and -16 over 9).
  static const std::map<std::string, std::vector<int>> kEarlierSameVersions = {
      {"If", {11, 13}},
      {"Loop", {11, 13}},
      {"Scan", {9, 11}},
  };
  if (selected < ours) {
    auto earlier = kEarlierSameVersions.find(op);
    return earlier != kEarlierSameVersions.end() &&
           std::find(earlier->second.begin(), earlier->second.end(), selected) != earlier->second.end();
  }
  auto it = kTypeOnlyVersions.find(op);
  if (it == kTypeOnlyVersions.end()) return false;
  const auto& versions = it->second;
  return std::find(versions.begin(), versions.end(), selected) != versions.end();
}

// rtol 1e-3, atol 1e-7; Fourier transforms get an atol relative to the largest expected
// value: bins that cancel to 0 hold float32 rounding noise of that order in the expected
// data (numpy's float32 FFT), where our double sums give ~1e-15.
Tolerance toleranceFor(const std::string& op, const Tensor& expected) {
  Tolerance t{1e-3, 1e-7};
  if (op == "DFT" || op == "STFT")
    for (double v : expected.data) t.atol = std::max(t.atol, 1e-5 * std::abs(v));
  return t;
}

class NodeTests : public ::testing::TestWithParam<NodeCase> {
 public:
  void run() {
    const NodeCase& case_ = GetParam();
    Summary& s = summary();
    const std::string test = case_.folder + " [" + case_.root + "]";
    OpStats& stats = s.perOp[case_.op];
    auto skip = [&](const std::string& reason) {
      ++stats.skipped;
      s.skips.push_back({test, reason});
      GTEST_SKIP() << reason;
    };
    const OpSpec& spec = *findOp(case_.op);

    // The schema version the model's opset selects must be the one we implement.
    std::variant<int, std::string> since = std::string("the model imports no default-domain opset");
    if (case_.opset > knownOpset()) {
      since = pythonSchemas().lookup(case_.op, case_.opset);
    } else if (case_.opset > 0) {
      if (auto v = schemaSinceVersion(case_.op, case_.opset)) since = *v;
      else since = "onnx knows no schema of " + case_.op + " at opset " + std::to_string(case_.opset);
    }
    if (auto* why = std::get_if<std::string>(&since)) return skip(*why);
    // Import reads the forms of opsets 7..21 into ours (ops/version_forms.h), so those run.
    const bool formsModelled = case_.opset >= kMinOpset && case_.opset <= kMaxOpset;
    if (std::get<int>(since) != spec.sinceVersion && !formsModelled &&
        !sameSemantics(case_.op, spec.sinceVersion, std::get<int>(since)))
      return skip("opset " + std::to_string(case_.opset) + " selects " + case_.op + "-" +
                  std::to_string(std::get<int>(since)) + ", nnfuzz implements " + case_.op + "-" +
                  std::to_string(spec.sinceVersion));

    std::vector<fs::path> sets;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(case_.dir, ec))
      if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
        sets.push_back(entry.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) return skip("no test_data_set_* folders");

    // Imports the model with the constant operands of data set `set` folded in.
    const onnx::ModelProto original = loadModelFile(case_.dir / "model.onnx");
    std::vector<size_t> kept;
    auto importFor = [&](const fs::path& set) {
      onnx::ModelProto model = original;
      kept = foldConstantOperands(model, spec, set);
      return importModel(model);
    };
    Graph graph;
    try {
      graph = importFor(sets.front());
    } catch (const InferenceRejected& e) {
      const char* strict = std::getenv("NNFUZZ_NODE_STRICT");
      if (strict && std::string(strict) == "1") return fail(test, stats, std::string("import: ") + e.what(), 0, 0);
      return skip(std::string("our shape inference rejects it: ") + e.what());
    } catch (const Error& e) {
      return skip(std::string("import: ") + e.what());
    }

    ++stats.run;
    double maxAbs = 0, maxRel = 0;
    std::string firstProblem;
    for (const fs::path& set : sets) {
      const std::string where = set.filename().string() + ": ";
      try {
        if (set != sets.front()) graph = importFor(set);
        std::vector<Tensor> inputs, expected;
        for (size_t k : kept) inputs.push_back(readTensorFile(set / ("input_" + std::to_string(k) + ".pb")));
        for (size_t k = 0; fs::exists(set / ("output_" + std::to_string(k) + ".pb")); ++k)
          expected.push_back(readTensorFile(set / ("output_" + std::to_string(k) + ".pb")));
        if (expected.size() != graph.outputs().size()) {
          if (firstProblem.empty())
            firstProblem = where + std::to_string(expected.size()) + " expected outputs, the model has " +
                           std::to_string(graph.outputs().size());
          continue;
        }
        const auto actual = runGraph(graph, inputs);
        for (size_t k = 0; k < expected.size(); ++k) {
          const CompareResult r = compareTensors(actual[k], expected[k], toleranceFor(case_.op, expected[k]));
          maxAbs = std::max(maxAbs, r.maxAbsError);
          maxRel = std::max(maxRel, r.maxRelError);
          if (!r.ok && firstProblem.empty()) firstProblem = where + "output " + std::to_string(k) + ": " + r.problem;
        }
      } catch (const std::exception& e) {
        if (firstProblem.empty()) firstProblem = where + e.what();
      }
    }
    if (!firstProblem.empty()) return fail(test, stats, firstProblem, maxAbs, maxRel);
    ++stats.passed;
  }

 protected:
  static void fail(const std::string& test, OpStats& stats, const std::string& problem, double maxAbs, double maxRel) {
    ++stats.failed;
    std::ostringstream line;
    line << problem;
    if (problem.find("max abs error") == std::string::npos)
      line << " [max abs error " << maxAbs << ", max rel error " << maxRel << "]";
    summary().failures.push_back({test, line.str()});
    ADD_FAILURE() << test << ": " << line.str();
  }
};

TEST_P(NodeTests, Run) { run(); }
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(NodeTests);
INSTANTIATE_TEST_SUITE_P(, NodeTests, ::testing::ValuesIn(discoverCases()), caseName);

class SummaryPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    const Summary& s = summary();
    int run = 0, passed = 0, failed = 0, skipped = 0;
    for (const auto& [op, st] : s.perOp) {
      run += st.run, passed += st.passed, failed += st.failed, skipped += st.skipped;
    }
    if (s.perOp.empty() && s.requested.empty()) return;  // NodeTests filtered out
    std::ostringstream out;
    out << "\n==== ONNX node tests against the nnfuzz reference ====\n";
    for (const auto& note : s.notes) out << "  " << note << "\n";
    for (const auto& op : s.requested)
      if (!findOp(op)) out << "  NNFUZZ_NODE_OPS names " << op << ", which is not in the registry\n";
      else if (!s.perOp.count(op)) out << "  no node tests ran for " << op << "\n";
    out << "  op                     run  passed  failed  skipped\n";
    for (const auto& [op, st] : s.perOp) {
      char line[128];
      std::snprintf(line, sizeof line, "  %-20s %5d %7d %7d %8d\n", op.c_str(), st.run, st.passed, st.failed,
                    st.skipped);
      out << line;
    }
    char total[128];
    std::snprintf(total, sizeof total, "  %-20s %5d %7d %7d %8d\n", "TOTAL", run, passed, failed, skipped);
    out << total;
    if (!s.skips.empty()) out << "  skipped:\n";
    for (const auto& sk : s.skips) out << "    " << sk.test << ": " << sk.reason << "\n";
    if (!s.failures.empty()) out << "  FAILED:\n";
    for (const auto& f : s.failures) out << "    " << f.test << ": " << f.reason << "\n";
    std::fputs(out.str().c_str(), stdout);
    std::fflush(stdout);
  }
};

[[maybe_unused]] ::testing::Environment* const kSummaryPrinter =
    ::testing::AddGlobalTestEnvironment(new SummaryPrinter);

}  // namespace
}  // namespace nnfuzz
