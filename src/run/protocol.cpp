// protocol.cpp - parsing hello and reply lines (protocol.h).
#include "run/protocol.h"

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "support/error.h"

namespace nnfuzz {

using nlohmann::json;

bool validStage(const std::string& stage) {
  return !stage.empty() && stage.size() <= 32 &&
         std::all_of(stage.begin(), stage.end(), [](char c) { return (c >= 'a' && c <= 'z') || c == '-'; });
}

std::string clip(const std::string& text, size_t n) { return text.size() <= n ? text : text.substr(0, n) + "..."; }

std::variant<Hello, std::string> parseHello(const std::string& line) {
  json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("hello") || !j["hello"].is_string())
    return "first line is not a hello: " + clip(line, 200);
  Hello hello;
  hello.name = j["hello"].get<std::string>();
  if (j.contains("version")) hello.version = j["version"].is_string() ? j["version"].get<std::string>() : j["version"].dump();
  auto strings = [&](const char* key, std::vector<std::string>& into) {
    if (j.contains(key) && j[key].is_array())
      for (const json& s : j[key])
        if (s.is_string()) into.push_back(s.get<std::string>());
  };
  strings("modes", hello.modes);
  strings("passes", hello.passes);
  if (j.contains("protocol") && j["protocol"].is_number_integer()) {
    const int64_t version = j["protocol"].get<int64_t>();
    hello.protocol = version < 1 ? 1 : version > 1000 ? 1000 : static_cast<int>(version);
  }
  hello.forkServer = j.contains("fork_server") && j["fork_server"].is_boolean() && j["fork_server"].get<bool>();
  return hello;
}

namespace {

// {"died": {"signal": 11} or {"exit": 1}, "id": the request the child was serving, or null}
std::variant<Reply, std::string> parseDeath(const json& j, uint64_t id) {
  Reply reply;
  reply.status = "died";
  const json& died = j.at("died");
  const bool bySignal = died.contains("signal");
  if (bySignal == died.contains("exit")) throw Error("'died' needs one of 'signal' and 'exit'");
  const int value = died.at(bySignal ? "signal" : "exit").get<int>();
  if (value < (bySignal ? 1 : 0) || value > 255) throw Error("'died' out of range");
  reply.death.exited = !bySignal;
  (bySignal ? reply.death.signal : reply.death.code) = value;
  const json served = j.value("id", json());
  reply.death.duringRequest = !served.is_null() && served.get<uint64_t>() == id;
  return reply;
}

// {"forked": the pid of a fork server's new serving child, the leader of its own process group}
Reply parseForked(const json& j) {
  Reply reply;
  reply.status = "forked";
  const int64_t pid = j.at("forked").get<int64_t>();
  if (pid < 2 || pid > std::numeric_limits<int>::max()) throw Error("'forked' is no pid");
  reply.forkedPid = static_cast<int>(pid);
  return reply;
}

}  // namespace

std::variant<Reply, std::string> parseReply(const std::string& line, uint64_t id, const std::string& phase,
                                            double elapsedSeconds) {
  json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "not a JSON object: " + clip(line, 200);
  Reply reply;
  try {
    if (j.contains("died")) return parseDeath(j, id);
    if (j.contains("forked")) return parseForked(j);
    if (j.value("id", json()).get<uint64_t>() != id) throw Error("wrong id");
    if (j.value("phase", "") != phase) throw Error("expected phase '" + phase + "', got '" + clip(j.value("phase", ""), 40) + "'");
    reply.status = j.at("status").get<std::string>();
    reply.type = j.value("type", "");
    reply.message = j.value("message", "");
    reply.seconds = j.value("seconds", elapsedSeconds);
    reply.stage = j.value("stage", "");
    if (!reply.stage.empty() && (phase != "prepare" || !validStage(reply.stage)))
      throw Error("bad stage '" + clip(reply.stage, 40) + "' (prepare replies only, a lower-case word)");
    if (reply.status == "ok" && phase == "run") {
      if (j.contains("outputs_file")) reply.outputsFile = j["outputs_file"].get<std::string>();
      else reply.outputs = j.at("outputs").get<std::vector<std::string>>();
    }
  } catch (const std::exception& e) {
    return std::string("malformed reply (") + e.what() + "): " + clip(line, 200);
  }
  return reply;
}

}  // namespace nnfuzz
