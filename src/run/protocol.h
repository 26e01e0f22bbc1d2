// protocol.h - the worker protocol's lines, parsed (docs/worker-protocol.md).
//
// A worker's stdout is untrusted text: these parsers accept exactly the documented JSON
// objects and turn anything else into a one-line problem, never an exception or a crash
// (a libFuzzer target, fuzz/worker_reply.cpp, holds them to that).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace nnfuzz {

/// The worker's first line.
struct Hello {
  std::string name, version;
  std::vector<std::string> modes;
  /// Optimisation passes this mode can switch off by name ("disable" in a request), most
  /// specific first; empty when the SUT has no such knob.
  std::vector<std::string> passes;
  /// The protocol version the worker speaks; 2 and up take "packed" requests (a packed case,
  /// the outputs in one file).
  int protocol = 1;
  /// The worker keeps the SUT loaded in a keeper process and serves cases from a forked child;
  /// a child's death is reported on a "died" line and costs a fork, not a restart
  /// (docs/worker-protocol.md, "Fork server").
  bool forkServer = false;
};

/// A prepare or run reply.
struct Reply {
  std::string status, type, message;
  std::string stage;  ///< prepare errors: the step of prepare that failed ("convert", "optimize")
  double seconds = 0;
  std::vector<std::string> outputs;
  /// run/ok of a packed request: one SequenceProto file holding every output, instead of `outputs`
  std::string outputsFile;
  /// A fork server's "forked" line (status "forked"): the pid of its new serving child, which is
  /// also the child's process group.
  int forkedPid = 0;
  /// A fork server's "died" line (status "died"): how its serving child ended, and whether it
  /// was serving the request asked about (else it died between cases).
  struct Death {
    bool duringRequest = false;
    bool exited = false;  ///< exited with `code`; else killed by `signal`
    int code = 0, signal = 0;
  };
  Death death;
};

/// The hello, or what is wrong with the line.
std::variant<Hello, std::string> parseHello(const std::string& line);
/// The reply to request `id` in `phase` ("prepare" or "run"), or what is wrong with it;
/// `elapsedSeconds` stands in for a reply that gives no "seconds". A fork server's "forked" and
/// "died" lines come back as a Reply with status "forked" or "died" whatever the id and phase.
std::variant<Reply, std::string> parseReply(const std::string& line, uint64_t id, const std::string& phase,
                                            double elapsedSeconds);

/// A stage name a worker may give for a step of prepare: a short lower-case word.
bool validStage(const std::string& stage);
/// `text` cut to n characters, with "..." when cut.
std::string clip(const std::string& text, size_t n);

}  // namespace nnfuzz
