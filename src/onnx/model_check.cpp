// model_check.cpp - onnx::checker + strict shape inference, and type agreement with GraphIR.
#include "onnx/model_check.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include "onnx/checker.h"  // ONNX's checker (ours is model_check.h: the name would shadow it)
#include "onnx/export.h"
#include "onnx/shape_inference/implementation.h"

namespace nnfuzz {

namespace {

std::string oneLine(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// "f32[1,3]"-style text of an ONNX type, for messages.
std::string describe(const onnx::TypeProto& t) {
  if (!t.has_tensor_type()) return "a non-tensor type";
  const auto& tt = t.tensor_type();
  std::string text = "elem type " + std::to_string(tt.elem_type());
  if (auto d = dtypeFromOnnx(tt.elem_type())) text = std::string(dtypeName(*d));
  if (!tt.has_shape()) return text + "[?]";
  text += '[';
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const auto& dim = tt.shape().dim(i);
    if (i) text += ',';
    text += dim.has_dim_value() ? std::to_string(dim.dim_value()) : (dim.has_dim_param() ? dim.dim_param() : "?");
  }
  return text + ']';
}

// With symbolicDims, a dim ONNX leaves symbolic (no value), or a shape it cannot infer from
// symbolic dims at all, agrees with ours.
bool sameType(const onnx::TypeProto& t, const TensorType& ours, bool symbolicDims = false) {
  if (!t.has_tensor_type()) return false;
  const auto& tt = t.tensor_type();
  if (tt.elem_type() != onnxElemType(ours.dtype)) return false;
  if (!tt.has_shape()) return symbolicDims;
  if (tt.shape().dim_size() != ours.rank()) return false;
  for (int i = 0; i < ours.rank(); ++i) {
    const auto& dim = tt.shape().dim(i);
    if (symbolicDims && !dim.has_dim_value()) continue;
    if (!dim.has_dim_value() || dim.dim_value() != ours.shape[static_cast<size_t>(i)]) return false;
  }
  return true;
}


std::optional<std::string> compareWithOurs(const onnx::ModelProto& model, const onnx::GraphProto& inferred,
                                           const Graph& ours) {
  const onnx::GraphProto& g = model.graph();
  std::unordered_map<std::string, const onnx::TypeProto*> types;
  for (const auto& vi : inferred.value_info()) types[vi.name()] = &vi.type();
  for (const auto& vi : inferred.output()) types[vi.name()] = &vi.type();

  auto mismatch = [](const std::string& what, const onnx::TypeProto* t, const TensorType& mine) {
    return what + " is " + (t ? describe(*t) : std::string("not inferred by ONNX")) + " but nnfuzz has " +
           toString(mine);
  };

  // Declared graph inputs (runtime inputs only) and outputs.
  std::unordered_map<std::string, bool> inits;
  for (const auto& t : g.initializer()) inits[t.name()] = true;
  std::vector<const onnx::ValueInfoProto*> runtime;
  for (const auto& in : g.input())
    if (!inits.count(in.name())) runtime.push_back(&in);
  const auto ourInputs = ours.inputs();
  if (runtime.size() != ourInputs.size())
    return "the model has " + std::to_string(runtime.size()) + " runtime inputs, the graph " +
           std::to_string(ourInputs.size());
  for (size_t k = 0; k < runtime.size(); ++k)
    if (!sameType(runtime[k]->type(), ours.value(ourInputs[k]).type))
      return mismatch("graph input '" + runtime[k]->name() + "'", &runtime[k]->type(),
                      ours.value(ourInputs[k]).type);
  if (static_cast<size_t>(g.output_size()) != ours.outputs().size())
    return "the model has " + std::to_string(g.output_size()) + " outputs, the graph " +
           std::to_string(ours.outputs().size());
  for (int k = 0; k < g.output_size(); ++k) {
    const TensorType& mine = ours.value(ours.outputs()[static_cast<size_t>(k)]).type;
    if (!sameType(g.output(k).type(), mine))
      return mismatch("declared graph output '" + g.output(k).name() + "'", &g.output(k).type(), mine);
  }

  // Node results, pairing nodes in order; symbolic dims are no disagreement once an op
  // that makes them is in the model (they flow on into its consumers).
  const auto ourNodes = ours.nodes();
  bool symbolic = false;
  // libonnx 1.12's inference of the attribute forms of Squeeze (before 13) and Slice
  // (before 10) leaves dims symbolic too, and so does its Resize given a trailing empty
  // sizes name (config "empty_inputs"; python's onnx 1.22 infers the dims).
  int opset = kCanonicalOpset;
  for (const auto& imp : model.opset_import())
    if (imp.domain().empty() || imp.domain() == "ai.onnx") opset = static_cast<int>(imp.version());
  for (const auto& node : g.node())
    symbolic = symbolic || onnxLeavesDimsSymbolic(node.op_type()) || (opset < 13 && node.op_type() == "Squeeze") ||
               (opset < 10 && node.op_type() == "Slice") ||
               (node.op_type() == "Resize" && node.input_size() == 4 && node.input(3).empty());
  size_t next = 0;
  for (const auto& node : g.node()) {
    if (node.op_type() == "Constant") continue;
    if (next >= ourNodes.size()) return "the model has more nodes than the graph";
    const Node& mine = ours.node(ourNodes[next++]);
    if (mine.op != node.op_type() || mine.domain != (node.domain() == "ai.onnx" ? "" : node.domain()))
      return "model node '" + node.name() + "' is " + node.op_type() + ", the graph has " + qualifiedOp(mine);
    if (!mine.domain.empty()) continue;  // ONNX has no schema to infer another domain's results; ours are as given
    for (int k = 0; k < node.output_size(); ++k) {
      const std::string& name = node.output(k);
      if (name.empty()) continue;
      if (static_cast<size_t>(k) >= mine.outputs.size())
        return node.op_type() + " node '" + node.name() + "' has more outputs than the graph's";
      auto it = types.find(name);
      const TensorType& t = ours.value(mine.outputs[static_cast<size_t>(k)]).type;
      if (it == types.end() || !sameType(*it->second, t, symbolic))
        return mismatch(node.op_type() + " result '" + name + "'", it == types.end() ? nullptr : it->second, t);
    }
  }
  if (next != ourNodes.size()) return "the graph has more nodes than the model";
  return std::nullopt;
}

// ONNX's own checks: the checker, then strict inference against the declared types; with
// `inferred`, also what ONNX infers with the output types erased (for compareWithOurs).
std::optional<std::string> onnxChecks(const onnx::ModelProto& model, onnx::GraphProto* inferred) {
  try {
    onnx::checker::check_model(model);
    const onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1);
    onnx::ModelProto declared = model;
    declared.mutable_graph()->clear_value_info();
    onnx::shape_inference::InferShapes(declared, onnx::OpSchemaRegistry::Instance(), options);
    if (!inferred) return std::nullopt;
    // Inference from the inputs alone, but another domain's results keep their declared
    // types: ONNX has no schema to infer them, and nodes reading them need them.
    std::unordered_set<std::string> given;
    for (const auto& node : model.graph().node())
      if (!node.domain().empty() && node.domain() != "ai.onnx") given.insert(node.output().begin(), node.output().end());
    onnx::ModelProto bare = declared;
    bare.mutable_graph()->clear_value_info();
    for (const auto& vi : model.graph().value_info())
      if (given.count(vi.name())) *bare.mutable_graph()->add_value_info() = vi;
    for (auto& out : *bare.mutable_graph()->mutable_output())
      if (!given.count(out.name())) out.clear_type();
    onnx::shape_inference::InferShapes(bare, onnx::OpSchemaRegistry::Instance(), options);
    *inferred = std::move(*bare.mutable_graph());
    return std::nullopt;
  } catch (const std::exception& e) {
    return oneLine(e.what());
  }
}

// The checker child: one long-lived process that checks the models it is sent, so a crash
// or hang inside libonnx kills it, not us. Messages on a socket pair, each a native
// uint64 length and then the bytes. Request: 'I' (infer for comparison) or 'C', then the
// serialized model. Reply: 'P' + problem, 'G' + the inferred graph, or 'O'.
class CheckerChild {
 public:
  ~CheckerChild() { stop(false); }

  /// The child's reply, or a one-line problem (the child is then gone; the next call
  /// starts another).
  std::variant<std::string, std::string> ask(const std::string& request) {
    if (pid_ <= 0 && !start()) return problem("could not be started");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kContainedCheckSeconds);
    std::string reply;
    if (!sendMessage(fd_, request) || !receiveMessage(fd_, reply, deadline)) {
      const bool late = std::chrono::steady_clock::now() >= deadline;
      return problem(stop(late));
    }
    return std::variant<std::string, std::string>(std::in_place_index<0>, std::move(reply));
  }

 private:
  static std::variant<std::string, std::string> problem(const std::string& what) {
    return std::variant<std::string, std::string>(std::in_place_index<1>, "ONNX's checker " + what + " on this model");
  }

  bool start() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return false;
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      return false;
    }
    if (pid == 0) {
      ::close(fds[0]);
      serve(fds[1]);
    }
    ::close(fds[1]);
    pid_ = pid;
    fd_ = fds[0];
    return true;
  }

  [[noreturn]] static void serve(int fd) {
    // A fault dies by its signal: the sanitizers' and libFuzzer's handlers would report a
    // crash the parent contains. _exit: no destructors or stdio flushes of the parent's state.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
    std::string request;
    const auto never = std::chrono::steady_clock::time_point::max();
    while (receiveMessage(fd, request, never)) {
      onnx::ModelProto model;
      std::string reply;
      onnx::GraphProto inferred;
      const bool infer = request[0] == 'I';
      if (!model.ParseFromArray(request.data() + 1, static_cast<int>(request.size() - 1)))
        reply = "Pthe model does not parse";
      else if (auto bad = onnxChecks(model, infer ? &inferred : nullptr))
        reply = "P" + *bad;
      else
        reply = infer ? "G" + inferred.SerializeAsString() : "O";
      if (!sendMessage(fd, reply)) break;
    }
    ::_exit(0);
  }

  // Ends the child; says how it ended (it is killed first when `late`).
  std::string stop(bool late) {
    if (pid_ <= 0) return "";
    if (late) ::kill(pid_, SIGKILL);
    ::close(fd_);  // a live child reads end-of-file and leaves
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    if (late) return "ran over " + std::to_string(kContainedCheckSeconds) + " s";
    if (WIFSIGNALED(status)) return std::string("crashed (") + strsignal(WTERMSIG(status)) + ")";
    return "exited with status " + std::to_string(WEXITSTATUS(status)) + " without a verdict";
  }

  static bool sendMessage(int fd, const std::string& bytes) {
    const uint64_t size = bytes.size();
    std::string frame(reinterpret_cast<const char*>(&size), sizeof size);
    frame += bytes;
    size_t done = 0;
    while (done < frame.size()) {
      const ssize_t n = ::send(fd, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  static bool readExact(int fd, char* out, size_t size, std::chrono::steady_clock::time_point deadline) {
    size_t done = 0;
    while (done < size) {
      int waitMs = 1000;
      if (deadline != std::chrono::steady_clock::time_point::max()) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        waitMs = static_cast<int>(std::min<int64_t>(left.count(), 1000));
      }
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, waitMs);
      if (ready <= 0) continue;  // EINTR or a poll slice without data
      const ssize_t n = ::read(fd, out + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  static bool receiveMessage(int fd, std::string& out, std::chrono::steady_clock::time_point deadline) {
    uint64_t size = 0;
    if (!readExact(fd, reinterpret_cast<char*>(&size), sizeof size, deadline) || size == 0 || size > (uint64_t{1} << 33))
      return false;
    out.resize(size);
    return readExact(fd, out.data(), size, deadline);
  }

  pid_t pid_ = -1;
  int fd_ = -1;
};

}  // namespace

std::optional<std::string> checkModel(const onnx::ModelProto& model, const Graph* ours) {
  onnx::GraphProto inferred;
  if (auto problem = onnxChecks(model, ours ? &inferred : nullptr)) return problem;
  if (!ours) return std::nullopt;
  return compareWithOurs(model, inferred, *ours);
}

std::optional<std::string> checkModelContained(const onnx::ModelProto& model, const Graph* ours) {
  static std::mutex mutex;
  static CheckerChild child;
  std::string request = ours ? "I" : "C";
  if (!model.AppendToString(&request)) return std::string("the model does not serialize");
  std::variant<std::string, std::string> answer;
  {
    std::lock_guard lock(mutex);
    answer = child.ask(request);
  }
  if (answer.index() == 1) return std::get<1>(answer);
  const std::string& reply = std::get<0>(answer);
  if (reply[0] == 'P') return reply.substr(1);
  if (!ours) return std::nullopt;
  onnx::GraphProto inferred;
  if (reply[0] != 'G' || !inferred.ParseFromArray(reply.data() + 1, static_cast<int>(reply.size() - 1)))
    return std::string("ONNX's checker gave an unreadable reply on this model");
  return compareWithOurs(model, inferred, *ours);
}

bool onnxLeavesDimsSymbolic(std::string_view op) {
  return op == "Loop" || op == "Einsum" || op == "OneHot" || op == "Compress" || op == "NonZero" || op == "Unique" ||
         op == "NonMaxSuppression";
}

}  // namespace nnfuzz
