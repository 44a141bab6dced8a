// stave-train check-device: the engine's numeric pieces on a device against the CPU (JSON).
#include <iostream>

#include "app/stave-train/command.h"
#include "core/train/device_check.h"

namespace {
int run(const std::vector<std::string>& args) {
  const std::string name = "check-device";
  stave::cli::Args a(args, {"device", "port"}, {});
  if (!a.ok()) return stave::cli::usageError(name, a.error());
  if (!a.positional().empty())
    return stave::cli::usageError(name, "unexpected argument '" + a.positional()[0] + "'");
  stave::train::DeviceCheckOptions o;
  o.device = a.value("device");
  if (!o.device.empty() && o.device != "cpu" &&
      o.device.find_first_not_of("0123456789") != std::string::npos)
    return stave::cli::usageError(name, "--device takes cpu or a CUDA device index");
  if (a.has("port") && (!stave::cli::parseInt(a.value("port"), o.port) || o.port < 1 ||
                        o.port > 65535))
    return stave::cli::usageError(name, "--port must be an integer from 1 to 65535");
  const auto j = stave::train::runDeviceCheck(o);
  std::cout << j.dump(2) << "\n";
  return j["ok"].get<bool>() ? stave::cli::kOk : 1;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "check-device",
    "loss, assigner, NMS, scaler, optimiser step and a 1-rank group on a device vs the CPU",
    "stave-train check-device [--device cpu|N] [--port P]", run});
