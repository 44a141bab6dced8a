#include "core/telemetry/host_info.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "core/telemetry/gpu_inventory.h"

namespace stave::telemetry {

namespace {

std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

// "MemTotal:  123 kB" -> bytes; -1 when the line is not a number of kB.
int64_t kbValue(const std::string& rest) {
  std::istringstream in(rest);
  long long kb = -1;
  std::string unit;
  if (!(in >> kb) || kb < 0) return -1;
  in >> unit;
  return unit == "kB" || unit.empty() ? static_cast<int64_t>(kb) * 1024 : -1;
}

namespace fs = std::filesystem;

// /proc/cpuinfo: the first model name, the processors, and the distinct cores and sockets.
void readCpuInfo(const std::string& procRoot, HostInfo& host) {
  std::ifstream in(procRoot + "/cpuinfo");
  std::string line;
  std::set<std::pair<std::string, std::string>> cores;
  std::set<std::string> sockets;
  std::string physical;
  bool haveCoreIds = true;
  int processors = 0;
  bool inProcessor = false;
  auto endProcessor = [&](const std::string& coreId, bool sawCore) {
    if (!inProcessor) return;
    if (sawCore) {
      cores.insert({physical, coreId});
    } else {
      haveCoreIds = false;
    }
  };
  std::string coreId;
  bool sawCore = false;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "processor") {
      endProcessor(coreId, sawCore);
      inProcessor = true;
      ++processors;
      physical.clear();
      coreId.clear();
      sawCore = false;
    } else if (key == "model name" && host.cpuModel.empty()) {
      host.cpuModel = value;
    } else if (key == "physical id") {
      physical = value;
      sockets.insert(value);
    } else if (key == "core id") {
      coreId = value;
      sawCore = true;
    }
  }
  endProcessor(coreId, sawCore);
  host.logicalCores = processors;
  if (processors > 0 && haveCoreIds && !cores.empty())
    host.physicalCores = static_cast<int>(cores.size());
  if (!sockets.empty()) host.sockets = static_cast<int>(sockets.size());
}

// /proc/meminfo: total, available and free memory.
void readMemInfo(const std::string& procRoot, HostInfo& host) {
  std::ifstream in(procRoot + "/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    if (key == "MemTotal") host.memTotal = kbValue(line.substr(colon + 1));
    if (key == "MemAvailable") host.memAvailable = kbValue(line.substr(colon + 1));
    if (key == "MemFree") host.memFree = kbValue(line.substr(colon + 1));
  }
}

// The id of a folder named nodeN; nullopt for any other name.
std::optional<int> numaNodeId(const std::string& name) {
  if (name.size() < 5 || name.compare(0, 4, "node") != 0 ||
      !std::all_of(name.begin() + 4, name.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  try {
    return std::stoi(name.substr(4));
  } catch (...) {
    return std::nullopt;
  }
}

// One NUMA node's folder: its CPUs (cpulist) and memory (meminfo).
NumaNodeInfo readNumaNode(const fs::path& dir, int id) {
  NumaNodeInfo node;
  node.id = id;
  {
    std::ifstream in(dir / "cpulist");
    std::string list;
    std::getline(in, list);
    node.cpus = parseCpuList(list);
  }
  std::ifstream in(dir / "meminfo");
  std::string line;
  while (std::getline(in, line)) {
    // "Node 0 MemTotal:       10446568 kB"
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    if (key.size() >= 8 && key.compare(key.size() - 8, 8, "MemTotal") == 0)
      node.memTotal = kbValue(line.substr(colon + 1));
    else if (key.size() >= 7 && key.compare(key.size() - 7, 7, "MemFree") == 0)
      node.memFree = kbValue(line.substr(colon + 1));
  }
  return node;
}

}  // namespace

HostInfo readHostInfo(const std::string& procRoot, const std::string& sysRoot) {
  HostInfo host;
  readCpuInfo(procRoot, host);
  readMemInfo(procRoot, host);
  std::error_code ec;
  const fs::path nodes = fs::path(sysRoot) / "devices/system/node";
  for (fs::directory_iterator it(nodes, ec), end; !ec && it != end; it.increment(ec)) {
    const std::optional<int> id = numaNodeId(it->path().filename().string());
    if (!id) continue;
    host.numa.push_back(readNumaNode(it->path(), *id));
  }
  std::sort(host.numa.begin(), host.numa.end(),
            [](const NumaNodeInfo& a, const NumaNodeInfo& b) { return a.id < b.id; });
  return host;
}

}  // namespace stave::telemetry
