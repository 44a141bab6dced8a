// stave-train check-device: the engine's numeric pieces on a device against the CPU (JSON).
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/train/device_check.h"

namespace {
int run(const stave::train::DeviceCheckOptions& o) {
  const auto j = stave::train::runDeviceCheck(o);
  std::cout << j.dump(2) << "\n";
  return j["ok"].get<bool>() ? stave::cli::kOk : stave::cli::kProblems;
}

stave::cli::RunFunction setup(CLI::App& app) {
  auto o = std::make_shared<stave::train::DeviceCheckOptions>();
  app.add_option("--device", o->device,
                 "cpu or a CUDA device index (default: CUDA device 0 when there is one)")
      ->type_name("cpu|N")
      ->check(CLI::Validator(
          [](std::string& d) -> std::string {
            return d == "cpu" || d.find_first_not_of("0123456789") == std::string::npos
                       ? ""
                       : "takes cpu or a CUDA device index";
          },
          ""));
  app.add_option("--port", o->port, "TCPStore port of the one-rank group (default: from the pid)")
      ->type_name("P")
      ->check(stave::cli::wholeNumber(1, 65535));
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "check-device",
    "loss, assigner, NMS, scaler, optimiser step and a 1-rank group on a device vs the CPU",
    "stave-train check-device [--device cpu|N] [--port P]", "", setup});
