#include "core/distributed/peers.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "core/base/host_name.h"

namespace stave::dist {
namespace {

// "ranks 2-3", "rank 2", "ranks 1, 4, 5".
Text rankList(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  if (ranks.size() == 1) return Text("rank", {{"rank", std::to_string(ranks[0])}});
  bool contiguous = true;
  for (size_t i = 1; i < ranks.size(); ++i) contiguous &= ranks[i] == ranks[i - 1] + 1;
  if (contiguous && ranks.size() > 1)
    return Text("dist.ranks_span", {{"first", std::to_string(ranks.front())},
                                    {"last", std::to_string(ranks.back())}});
  std::string out;
  for (size_t i = 0; i < ranks.size(); ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  return Text("dist.ranks_list", {{"ranks", out}});
}

// The phrases of a broken or silent connection in Gloo's and c10d's messages.
bool isConnectionFailure(const std::string& what) {
  static const char* const kPhrases[] = {"closed by peer", "reset by peer", "Broken pipe",
                                         "Connection refused", "Read error", "Write error",
                                         "Timed out", "timed out", "Socket Timeout"};
  for (const char* p : kPhrases)
    if (what.find(p) != std::string::npos) return true;
  return false;
}

}  // namespace

std::string localAddressFor(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || !res) return "";
  std::string out;
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd >= 0) {
    if (connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
      sockaddr_in local{};
      socklen_t len = sizeof(local);
      if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
        char buf[INET_ADDRSTRLEN] = {0};
        if (inet_ntop(AF_INET, &local.sin_addr, buf, sizeof(buf))) out = buf;
      }
    }
    close(fd);
  }
  freeaddrinfo(res);
  return out;
}

std::string interfaceAddress(const std::string& name) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string out;
  for (ifaddrs* a = list; a != nullptr && out.empty(); a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || name != a->ifa_name) continue;
    char buf[INET_ADDRSTRLEN] = {0};
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (inet_ntop(AF_INET, &in->sin_addr, buf, sizeof(buf))) out = buf;
  }
  freeifaddrs(list);
  return out;
}

RankPlace thisRankPlace(const DistEnv& env, const std::string& interfaceName) {
  RankPlace p;
  p.rank = env.rank;
  p.node = env.localWorldSize > 0 ? env.rank / env.localWorldSize : 0;
  const std::string iface = interfaceName.substr(0, interfaceName.find(','));
  if (!iface.empty()) p.address = interfaceAddress(iface);
  if (p.address.empty()) p.address = localAddressFor(env.masterAddr, env.masterPort);
  p.host = hostName();
  return p;
}

std::string encodePlace(const RankPlace& place) {
  return std::to_string(place.rank) + " " + std::to_string(place.node) + " " +
         (place.address.empty() ? "-" : place.address) + " " +
         (place.host.empty() ? "-" : place.host);
}

RankPlace decodePlace(const std::string& text) {
  RankPlace p;
  std::istringstream in(text);
  if (!(in >> p.rank >> p.node >> p.address >> p.host)) return RankPlace{-1, 0, "", ""};
  if (p.address == "-") p.address.clear();
  if (p.host == "-") p.host.clear();
  return p;
}

std::string describePeerLoss(const std::string& what, const std::vector<RankPlace>& places,
                             int myRank) {
  const Text t = peerLossText(what, places, myRank);
  return t.id.empty() ? std::string() : english(t);
}

Text peerLossText(const std::string& what, const std::vector<RankPlace>& places, int myRank) {
  if (!isConnectionFailure(what)) return {};
  static const std::regex kPeer(R"(\[([0-9]{1,3}(?:\.[0-9]{1,3}){3})\]:([0-9]+))");
  std::smatch m;
  if (!std::regex_search(what, m, kPeer)) return {};
  const std::string address = m[1];
  std::vector<int> ranks, nodes;
  std::string host;
  int myNode = -1;
  for (const auto& p : places) {
    if (p.rank == myRank) myNode = p.node;
    if (p.address != address || p.rank == myRank) continue;
    ranks.push_back(p.rank);
    if (std::find(nodes.begin(), nodes.end(), p.node) == nodes.end()) nodes.push_back(p.node);
    host = p.host;
  }
  if (ranks.empty()) return {};
  const bool timedOut = what.find("imed out") != std::string::npos ||
                        what.find("Timeout") != std::string::npos;
  if (nodes.size() == 1 && nodes[0] != myNode) {
    return Text("dist.node_lost",
                {{"node", std::to_string(nodes[0])},
                 {"address", address},
                 {"host", host.empty() ? Text("plain", {{"text", ""}}) : Text("dist.host", {{"host", host}})},
                 {"ranks", rankList(ranks)},
                 {"how", Text(timedOut ? "dist.how.stopped_answering" : "dist.how.closed_connections")}});
  }
  return Text("dist.peer_lost",
              {{"address", address},
               {"ranks", rankList(ranks)},
               {"how", Text(timedOut ? "dist.how.stopped_answering" : "dist.how.closed_connection")}});
}

}  // namespace stave::dist
