#pragma once
// The message catalog's chapters, joined by message.cpp into messageCatalog(). Internal to
// core/base.

#include <vector>

#include "core/base/message.h"

namespace stave {

/// The cluster's, the dataset scan's, the labels', NVML's and the straggler's messages.
const std::vector<MessageDef>& clusterDataAndLabelMessages();

/// The dataset report's lines, the studio's dataset work that stopped on an exception, and why
/// an event cannot be read.
const std::vector<MessageDef>& datasetReportMessages();

}  // namespace stave
