// control_flow.cpp - If (opset 16), Loop (opset 16) and Scan (opset 16): operators whose
// attributes hold body graphs (graph.h explains bodies, captures and outer parameters).
//
// Static typing, the one place nnfuzz is stricter than ONNX:
//  - If: both branches give the same number of outputs of equal types (ONNX merges
//    differing shapes into a dynamic one).
//  - Loop: M (the trip count) is constant when given. Loop-carried values keep their
//    types. A scan output stacks one element per iteration, so its leading dim is the
//    number of iterations, which inference takes to be M (0 when a constant cond input is
//    false); the kernel refuses (Error) a loop with scan outputs whose condition stops it
//    earlier, and a loop without M has no scan outputs. Without scan outputs the condition
//    may stop the loop at any iteration. Without a cond input, the body's condition is
//    ignored (ONNX's "for loop" form): M iterations run.
//  - Scan: every scan input has the same length along its scan axis.
// Bodies' formal inputs are typed as ONNX's inference types them (Loop: iteration number
// i64[] and condition bool[], then the carried values; Scan: states, then one slice of
// each scan input), and inference checks the body's declared types against those.
// The kernels run bodies through KernelArgs::runBody, which the interpreter provides.
#include "ops/control_flow.h"

#include "ir/graph.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace nnfuzz {

using namespace opsupport;
using shapeops::unknownAttribute;

namespace {

/// Loops that run longer than this are refused: an imported model could spin for ever.
constexpr int64_t kMaxIterations = 1 << 20;

std::string checkFormals(const Graph& body, const std::vector<TensorType>& want, const std::string& what) {
  const auto formals = body.inputs();
  if (formals.size() != want.size())
    return what + " takes " + std::to_string(formals.size()) + " inputs, " + std::to_string(want.size()) + " expected";
  for (size_t k = 0; k < want.size(); ++k)
    if (body.value(formals[k]).type != want[k])
      return what + " input " + std::to_string(k) + " is " + toString(body.value(formals[k]).type) + ", " +
             toString(want[k]) + " expected";
  return {};
}

std::vector<TensorType> outputTypes(const Graph& body) {
  std::vector<TensorType> types;
  for (ValueId v : body.outputs()) types.push_back(body.value(v).type);
  return types;
}

TensorType withoutAxis(const TensorType& t, int axis) {
  TensorType out = t;
  out.shape.erase(out.shape.begin() + axis);
  return out;
}

TensorType withAxis(const TensorType& t, int axis, int64_t n) {
  TensorType out = t;
  out.shape.insert(out.shape.begin() + axis, n);
  return out;
}

// Sizes around an axis: outer (dims before), n (the axis), inner (dims after).
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisSplit splitAt(const Shape& shape, int axis) {
  AxisSplit s;
  for (int i = 0; i < axis; ++i) s.outer *= shape[static_cast<size_t>(i)];
  s.n = shape[static_cast<size_t>(axis)];
  for (size_t i = static_cast<size_t>(axis) + 1; i < shape.size(); ++i) s.inner *= shape[i];
  return s;
}

Tensor takeSlice(const Tensor& t, int axis, int64_t index) {
  Tensor out(withoutAxis(t.type, axis));
  const AxisSplit s = splitAt(t.type.shape, axis);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i)
      out.data[static_cast<size_t>(o * s.inner + i)] = t.data[static_cast<size_t>((o * s.n + index) * s.inner + i)];
  return out;
}

void putSlice(Tensor& t, int axis, int64_t index, const Tensor& slice) {
  const AxisSplit s = splitAt(t.type.shape, axis);
  for (int64_t o = 0; o < s.outer; ++o)
    for (int64_t i = 0; i < s.inner; ++i)
      t.data[static_cast<size_t>((o * s.n + index) * s.inner + i)] = slice.data[static_cast<size_t>(o * s.inner + i)];
}

const BodyRunner& runnerOf(const KernelArgs& args) {
  if (!args.runBody) throw Error("an operator with bodies ran without a body runner");
  return *args.runBody;
}

// ---------------------------------------------------------------------------------- If

InferResult inferIf(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"else_branch", "then_branch"}); !e.empty()) return InferResult::fail(e);
  const TensorType& cond = *args.inputs[0];
  if (cond.dtype != DType::Bool || cond.numel() != 1) return InferResult::fail("cond must be one bool");
  const Graph* thenBranch = args.attrs.getGraph("then_branch");
  const Graph* elseBranch = args.attrs.getGraph("else_branch");
  if (!thenBranch || !elseBranch) return InferResult::fail("then_branch and else_branch must be graphs");
  if (auto e = checkFormals(*thenBranch, {}, "then_branch"); !e.empty()) return InferResult::fail(e);
  if (auto e = checkFormals(*elseBranch, {}, "else_branch"); !e.empty()) return InferResult::fail(e);
  auto types = outputTypes(*thenBranch);
  if (types != outputTypes(*elseBranch))
    return InferResult::fail("the branches' outputs differ in number or type (nnfuzz types them statically)");
  return {types, {}};
}

void ifKernel(KernelArgs& args) {
  const bool cond = args.inputs[0]->data[0] != 0;
  const Graph* branch = args.attrs.getGraph(cond ? "then_branch" : "else_branch");
  auto results = runnerOf(args)(*branch, {});
  for (size_t k = 0; k < args.outputs.size(); ++k) args.outputs[k].data = std::move(results[k].data);
}

// -------------------------------------------------------------------------------- Loop

// The samplers below give instantiateOp a node without its bodies; the generators'
// control-flow builder (gen/control_flow.h) draws the operands and bodies itself.
InputPattern anyValue(const OpDraft& d) {
  InputPattern p;
  const Limits limits = *d.limits;
  p.accepts = [](const TensorType&) { return true; };
  p.sample = [limits](Rng& rng) {
    const int rank = static_cast<int>(rng.uniformInt(0, std::min(limits.maxRank, 3)));
    return TensorType{sampleDType(rng, limits, kAllTypes), sampleShape(rng, limits, rank)};
  };
  return p;
}

InputPattern loopInput(const OpDraft& d) {
  if (d.inputTypes.size() == 1) return InputPattern::constantTensor(Tensor(TensorType{DType::Bool, {}}, {1}));
  return anyValue(d);
}

Tensor sampleTripCount(Rng& rng, const Limits&) {
  return Tensor(TensorType{DType::Int64, {}}, {static_cast<double>(rng.uniformInt(1, 3))});
}

InferResult inferLoop(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"body"}); !e.empty()) return InferResult::fail(e);
  int64_t iterations = -1;  // unknown without M: the condition alone ends the loop
  if (const TensorType* m = args.inputs[0]) {
    if (m->dtype != DType::Int64 || m->numel() != 1) return InferResult::fail("M must be one int64");
    iterations = static_cast<int64_t>(args.constants[0]->data[0]);
    if (iterations < 0 || iterations > kMaxIterations) return InferResult::fail("M is out of range");
  }
  const bool hasCond = args.inputs.size() > 1 && args.inputs[1];
  if (hasCond) {
    const TensorType& cond = *args.inputs[1];
    if (cond.dtype != DType::Bool || cond.numel() != 1) return InferResult::fail("cond must be one bool");
    if (args.constants[1] && args.constants[1]->data[0] == 0) iterations = 0;
  }
  const Graph* body = args.attrs.getGraph("body");
  if (!body) return InferResult::fail("body must be a graph");
  std::vector<TensorType> formals{TensorType{DType::Int64, {}}, TensorType{DType::Bool, {}}};
  for (size_t k = 2; k < args.inputs.size(); ++k) {
    if (!args.inputs[k]) return InferResult::fail("a loop-carried value is omitted");
    formals.push_back(*args.inputs[k]);
  }
  if (auto e = checkFormals(*body, formals, "body"); !e.empty()) return InferResult::fail(e);
  const auto outs = outputTypes(*body);
  const size_t carried = formals.size() - 2;
  if (outs.size() < 1 + carried) return InferResult::fail("the body gives fewer outputs than cond and the carried values");
  if (outs[0] != TensorType{DType::Bool, {}}) return InferResult::fail("the body's first output must be bool[]");
  InferResult r;
  for (size_t k = 0; k < carried; ++k) {
    if (outs[1 + k] != formals[2 + k])
      return InferResult::fail("loop-carried value " + std::to_string(k) + " changes type in the body");
    r.types.push_back(formals[2 + k]);
  }
  if (iterations < 0 && outs.size() > 1 + carried)
    return InferResult::fail("without M, a scan output's length (the iteration count) is unknown");
  for (size_t k = 1 + carried; k < outs.size(); ++k) r.types.push_back(withAxis(outs[k], 0, iterations));
  return r;
}

void loopKernel(KernelArgs& args) {
  const BodyRunner& run = runnerOf(args);
  const Graph& body = *args.attrs.getGraph("body");
  const Tensor* m = args.inputs[0];
  const Tensor* condIn = args.inputs.size() > 1 ? args.inputs[1] : nullptr;
  const int64_t tripCount = m ? static_cast<int64_t>(m->data[0]) : kMaxIterations + 1;
  bool cond = condIn ? condIn->data[0] != 0 : true;
  const size_t carried = args.inputs.size() > 2 ? args.inputs.size() - 2 : 0;
  std::vector<Tensor> state;
  for (size_t k = 0; k < carried; ++k) state.push_back(*args.inputs[2 + k]);
  const size_t scans = args.outputs.size() - carried;
  std::vector<std::vector<Tensor>> elements(scans);
  Tensor iter(TensorType{DType::Int64, {}});
  Tensor condTensor(TensorType{DType::Bool, {}});
  int64_t i = 0;
  for (; i < tripCount && cond; ++i) {
    if (i >= kMaxIterations) throw Error("Loop: more than " + std::to_string(kMaxIterations) + " iterations");
    iter.data[0] = static_cast<double>(i);
    condTensor.data[0] = cond ? 1 : 0;
    std::vector<const Tensor*> formals{&iter, &condTensor};
    for (const Tensor& t : state) formals.push_back(&t);
    auto results = run(body, formals);
    // Without a cond input the loop is a for loop: ONNX ignores the body's condition.
    if (condIn) cond = results[0].data[0] != 0;
    for (size_t k = 0; k < carried; ++k) state[k] = std::move(results[1 + k]);
    for (size_t k = 0; k < scans; ++k) elements[k].push_back(std::move(results[1 + carried + k]));
  }
  for (size_t k = 0; k < carried; ++k) args.outputs[k].data = std::move(state[k].data);
  for (size_t k = 0; k < scans; ++k) {
    Tensor& out = args.outputs[carried + k];
    if (out.type.shape[0] != i)
      throw Error("Loop: the condition stopped the loop after " + std::to_string(i) +
                  " iterations, its scan outputs are typed for " + std::to_string(out.type.shape[0]));
    for (int64_t t = 0; t < i; ++t) putSlice(out, 0, t, elements[k][static_cast<size_t>(t)]);
  }
}

double loopWork(const WorkArgs& args) {
  double sizes = 0;
  for (const TensorType& t : args.outputs) sizes += elementCount(t);
  return sizes;  // the interpreter adds the body's work times the trip count
}

// -------------------------------------------------------------------------------- Scan

struct ScanForm {
  size_t states = 0, scanInputs = 0;
  std::vector<int> inputAxes;     // per scan input, normalized
  std::vector<int64_t> inputDirs;  // per scan input
  int64_t length = 0;
  std::string error;
};

ScanForm scanForm(std::span<const TensorType* const> inputs, const Attributes& attrs) {
  ScanForm f;
  const int64_t m = attrs.getInt("num_scan_inputs", -1);
  if (m < 1 || m > static_cast<int64_t>(inputs.size())) return f.error = "num_scan_inputs is out of range", f;
  f.scanInputs = static_cast<size_t>(m);
  f.states = inputs.size() - f.scanInputs;
  const auto axes = attrs.getInts("scan_input_axes", std::vector<int64_t>(f.scanInputs, 0));
  const auto dirs = attrs.getInts("scan_input_directions", std::vector<int64_t>(f.scanInputs, 0));
  if (axes.size() != f.scanInputs || dirs.size() != f.scanInputs)
    return f.error = "scan_input_axes and scan_input_directions need one entry per scan input", f;
  for (size_t j = 0; j < f.scanInputs; ++j) {
    const TensorType* t = inputs[f.states + j];
    if (!t) return f.error = "a scan input is omitted", f;
    auto axis = normalizeAxis(axes[j], t->rank());
    if (!axis) return f.error = "a scan input axis is out of range", f;
    if (dirs[j] != 0 && dirs[j] != 1) return f.error = "a scan direction must be 0 or 1", f;
    const int64_t len = t->shape[static_cast<size_t>(*axis)];
    if (j > 0 && len != f.length) return f.error = "the scan inputs differ in length", f;
    f.length = len;
    f.inputAxes.push_back(*axis);
    f.inputDirs.push_back(dirs[j]);
  }
  return f;
}

InferResult inferScan(const InferArgs& args) {
  if (auto e = unknownAttribute(args.attrs, {"body", "num_scan_inputs", "scan_input_axes", "scan_input_directions",
                                             "scan_output_axes", "scan_output_directions"});
      !e.empty())
    return InferResult::fail(e);
  const ScanForm f = scanForm(args.inputs, args.attrs);
  if (!f.error.empty()) return InferResult::fail(f.error);
  if (f.length > kMaxIterations) return InferResult::fail("the scan is too long");
  const Graph* body = args.attrs.getGraph("body");
  if (!body) return InferResult::fail("body must be a graph");
  std::vector<TensorType> formals;
  for (size_t k = 0; k < f.states; ++k) {
    if (!args.inputs[k]) return InferResult::fail("a state is omitted");
    formals.push_back(*args.inputs[k]);
  }
  for (size_t j = 0; j < f.scanInputs; ++j) formals.push_back(withoutAxis(*args.inputs[f.states + j], f.inputAxes[j]));
  if (auto e = checkFormals(*body, formals, "body"); !e.empty()) return InferResult::fail(e);
  const auto outs = outputTypes(*body);
  if (outs.size() < f.states) return InferResult::fail("the body gives fewer outputs than states");
  const size_t scanOutputs = outs.size() - f.states;
  const auto axes = args.attrs.getInts("scan_output_axes", std::vector<int64_t>(scanOutputs, 0));
  const auto dirs = args.attrs.getInts("scan_output_directions", std::vector<int64_t>(scanOutputs, 0));
  if (axes.size() != scanOutputs || dirs.size() != scanOutputs)
    return InferResult::fail("scan_output_axes and scan_output_directions need one entry per scan output");
  InferResult r;
  for (size_t k = 0; k < f.states; ++k) {
    if (outs[k] != formals[k]) return InferResult::fail("state " + std::to_string(k) + " changes type in the body");
    r.types.push_back(formals[k]);
  }
  for (size_t k = 0; k < scanOutputs; ++k) {
    auto axis = normalizeAxis(axes[k], outs[f.states + k].rank() + 1);
    if (!axis) return InferResult::fail("a scan output axis is out of range");
    if (dirs[k] != 0 && dirs[k] != 1) return InferResult::fail("a scan direction must be 0 or 1");
    r.types.push_back(withAxis(outs[f.states + k], *axis, f.length));
  }
  return r;
}

void scanKernel(KernelArgs& args) {
  const BodyRunner& run = runnerOf(args);
  const Graph& body = *args.attrs.getGraph("body");
  std::vector<const TensorType*> types;
  for (const Tensor* t : args.inputs) types.push_back(t ? &t->type : nullptr);
  const ScanForm f = scanForm(types, args.attrs);
  if (!f.error.empty()) throw Error("Scan: " + f.error);
  std::vector<Tensor> state;
  for (size_t k = 0; k < f.states; ++k) state.push_back(*args.inputs[k]);
  const size_t scanOutputs = args.outputs.size() - f.states;
  const auto outAxes = args.attrs.getInts("scan_output_axes", std::vector<int64_t>(scanOutputs, 0));
  const auto outDirs = args.attrs.getInts("scan_output_directions", std::vector<int64_t>(scanOutputs, 0));
  std::vector<Tensor> slices(f.scanInputs);
  for (int64_t t = 0; t < f.length; ++t) {
    std::vector<const Tensor*> formals;
    for (const Tensor& s : state) formals.push_back(&s);
    for (size_t j = 0; j < f.scanInputs; ++j) {
      const int64_t at = f.inputDirs[j] ? f.length - 1 - t : t;
      slices[j] = takeSlice(*args.inputs[f.states + j], f.inputAxes[j], at);
      formals.push_back(&slices[j]);
    }
    auto results = run(body, formals);
    for (size_t k = 0; k < f.states; ++k) state[k] = std::move(results[k]);
    for (size_t k = 0; k < scanOutputs; ++k) {
      Tensor& out = args.outputs[f.states + k];
      const int axis = *normalizeAxis(outAxes[k], out.type.rank());
      putSlice(out, axis, outDirs[k] ? f.length - 1 - t : t, results[f.states + k]);
    }
  }
  for (size_t k = 0; k < f.states; ++k) args.outputs[k].data = std::move(state[k].data);
}

}  // namespace

BodyFormals bodyFormals(std::string_view op, std::string_view body, const std::vector<const TensorType*>& operands,
                        const Attributes& attrs) {
  BodyFormals r;
  if (op == "If") return r;
  if (op == "Loop" && body == "body") {
    r.types = {TensorType{DType::Int64, {}}, TensorType{DType::Bool, {}}};
    for (size_t k = 2; k < operands.size(); ++k) {
      if (!operands[k]) return r.error = "a loop-carried value is omitted", r;
      r.types.push_back(*operands[k]);
    }
    return r;
  }
  if (op == "Scan" && body == "body") {
    const ScanForm f = scanForm(operands, attrs);
    if (!f.error.empty()) return r.error = f.error, r;
    for (size_t k = 0; k < f.states; ++k) {
      if (!operands[k]) return r.error = "a state is omitted", r;
      r.types.push_back(*operands[k]);
    }
    for (size_t j = 0; j < f.scanInputs; ++j) r.types.push_back(withoutAxis(*operands[f.states + j], f.inputAxes[j]));
    return r;
  }
  r.error = std::string(op) + " has no body '" + std::string(body) + "'";
  return r;
}

const OpSpec& opIf() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "If";
    s.sinceVersion = 16;
    s.dtypes = {DType::Bool};
    s.maxRank = 1;
    s.bodies = {"else_branch", "then_branch"};
    s.infer = inferIf;
    s.reference = ifKernel;
    return s;
  }();
  return s;
}

const OpSpec& opLoop() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Loop";
    s.sinceVersion = 16;
    s.minInputs = 1;
    s.maxInputs = 8;
    s.dtypes = {DType::Int64};
    s.maxRank = 1;
    s.constantInputs = 0b1;
    s.firstOptional = true;
    s.sampleConstantFirst = sampleTripCount;
    s.nextInput = loopInput;
    s.bodies = {"body"};
    s.infer = inferLoop;
    s.reference = loopKernel;
    s.work = loopWork;
    return s;
  }();
  return s;
}

const OpSpec& opScan() {
  static const OpSpec s = [] {
    OpSpec s;
    s.name = "Scan";
    s.sinceVersion = 16;
    s.minInputs = 1;
    s.maxInputs = 8;
    s.dtypes = kAllTypes;
    s.bodies = {"body"};
    s.nextInput = anyValue;
    s.infer = inferScan;
    s.reference = scanKernel;
    return s;
  }();
  return s;
}

}  // namespace nnfuzz
