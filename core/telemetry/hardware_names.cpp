#include "core/telemetry/hardware_names.h"

namespace stave::telemetry {

Text gpuNameText(int node, int index, bool severalNodes) {
  if (!severalNodes) return Text("gpu", {{"index", std::to_string(index)}});
  return Text("gpu_on_node", {{"node", std::to_string(node)}, {"index", std::to_string(index)}});
}

std::string gpuName(int node, int index, bool severalNodes) {
  return english(gpuNameText(node, index, severalNodes));
}

Text nodeNameText(int node, const std::string& host) {
  if (host.empty()) return Text("node", {{"node", std::to_string(node)}});
  return Text("node_host", {{"node", std::to_string(node)}, {"host", host}});
}

}  // namespace stave::telemetry
