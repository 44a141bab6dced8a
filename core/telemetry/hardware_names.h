#pragma once
// How the hardware of a run is named to a person, in one place for the engine (the doctor's
// findings, the launcher's words) and the studio (the Run page, the Hardware page, the status
// bar): a GPU is "GPU 3" in a run of one node and "node 1 GPU 3" in a run of several. The names
// are catalog messages (core/base/message.h), so the studio says them in the UI language.

#include <string>

#include "core/base/message.h"

namespace stave::telemetry {

/// GPU `index` of node `node`: "GPU 3" when the run has one node (`severalNodes` false), else
/// "node 1 GPU 3".
Text gpuNameText(int node, int index, bool severalNodes);
/// gpuNameText in English.
std::string gpuName(int node, int index, bool severalNodes);

/// Node `node`: "node 1", or "node 1 (gpu-b)" when its host name is known.
Text nodeNameText(int node, const std::string& host = {});

}  // namespace stave::telemetry
