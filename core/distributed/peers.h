#pragma once
// Where each rank runs, as the others reach it, and what a broken connection to one of them
// means in words: a rank whose peer went away reads "node 1 (10.213.7.2, host b) was lost ..."
// instead of the transport's "Connection closed by peer [10.213.7.2]:7841". No torch here.

#include <string>
#include <vector>

#include "core/base/message.h"
#include "core/distributed/dist_env.h"

namespace stave::dist {

/// One rank's place.
struct RankPlace {
  int rank = 0;
  int node = 0;          ///< node index (node_rank): rank / local world size
  std::string address;   ///< the IPv4 address its collectives use
  std::string host;      ///< its host name
};

/// The local IPv4 address the kernel would use to reach `host` (a UDP connect sends nothing);
/// "" when there is no route.
std::string localAddressFor(const std::string& host, int port);
/// The IPv4 address of network interface `name`; "" when it has none.
std::string interfaceAddress(const std::string& name);

/// This rank's place: its node from the rank and local world size; its address that of
/// `interfaceName` (the first of a comma list, as Gloo takes it) or else the one that routes to
/// the master; this machine's host name.
RankPlace thisRankPlace(const DistEnv& env, const std::string& interfaceName);

/// One line of text for a place ("rank node address host") and back (nullopt-like: rank -1
/// when the text is not one).
std::string encodePlace(const RankPlace& place);
RankPlace decodePlace(const std::string& text);

/// A message for a collective's error `what` seen by rank `myRank` when it is a broken or
/// timed-out connection to a peer whose address `places` knows: which node (address, host) and
/// which of its ranks were lost, and what to do. "" when `what` is no such error (the caller
/// keeps its own message) — the raw text belongs in the rank's log either way.
std::string describePeerLoss(const std::string& what, const std::vector<RankPlace>& places,
                             int myRank);
/// describePeerLoss as a catalog message (the studio shows it in its language); an empty id
/// when `what` is no such error.
Text peerLossText(const std::string& what, const std::vector<RankPlace>& places, int myRank);

}  // namespace stave::dist
