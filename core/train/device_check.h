#pragma once
// `stave-train check-device`: the engine's numeric pieces run on a device and compared with the
// same inputs on the CPU (loss with its assigner, NMS, gradient clipping and the loss scaler,
// the foreach optimiser step), plus a one-rank process group on that device (NCCL on CUDA,
// Gloo on the CPU). On a GPU machine it is the CUDA variant of the unit tests, which need Qt;
// on the CPU it checks the same plumbing.

#include <nlohmann/json.hpp>

#include <string>

namespace stave::train {

/// Options of runDeviceCheck.
struct DeviceCheckOptions {
  std::string device;    ///< "" = CUDA device 0 when available, else the CPU; "cpu"; "0", "1", ...
  double tolerance = 2e-3;  ///< largest relative difference accepted against the CPU
  int port = 0;          ///< TCPStore port of the one-rank group (0 = derived from the pid)
};

/// Runs every check; JSON {device, checks: [{name, ok, max_rel_diff, detail}], ok}.
nlohmann::json runDeviceCheck(const DeviceCheckOptions& options);

}  // namespace stave::train
