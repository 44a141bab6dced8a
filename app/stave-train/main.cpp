// stave-train: Stave's headless trainer, launcher, worker and tools, in one Qt-free binary.
#include <iostream>
#include <string>
#include <vector>

#include "app/stave-train/command.h"
#include "core/cuda/runtime.h"

namespace {
void printHelp() {
  std::cout << "stave-train " STAVE_VERSION " - train YOLO detectors on one to many GPUs\n\n"
            << "usage: stave-train <command> [options]\n\ncommands:\n";
  for (const auto* c : stave::cli::commands()) {
    std::string name = c->name;
    name.resize(std::max<size_t>(name.size() + 2, 20), ' ');
    std::cout << "  " << name << c->summary << "\n";
  }
  std::cout << "\n'stave-train <command> --help' shows a command's options.\n";
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    printHelp();
    return args.empty() ? stave::cli::kUsage : stave::cli::kOk;
  }
  if (args[0] == "--version") {
    std::cout << "stave-train " STAVE_VERSION "\n";
    return stave::cli::kOk;
  }
  // Two-word commands ("bench loader") are looked up first.
  const stave::cli::Command* cmd = nullptr;
  size_t consumed = 1;
  if (args.size() >= 2) cmd = stave::cli::findCommand(args[0] + " " + args[1]);
  if (cmd) {
    consumed = 2;
  } else {
    cmd = stave::cli::findCommand(args[0]);
  }
  if (!cmd) {
    std::cerr << "stave-train: unknown command '" << args[0] << "' (see stave-train --help)\n";
    return stave::cli::kUsage;
  }
  std::vector<std::string> rest(args.begin() + consumed, args.end());
  for (const auto& a : rest) {
    if (a == "--help" || a == "-h") {
      std::cout << "usage: " << cmd->usage << "\n";
      return stave::cli::kOk;
    }
  }
  // LibTorch's CUDA part, where a GPU driver is, before any command touches torch (LibTorch
  // answers "is there CUDA" once per process).
  const auto& gpu = stave::cuda::load();
  if (gpu.failed && gpu.mode == "auto") {
    std::cerr << "stave-train: warning: " << gpu.reason << "; running without CUDA\n";
  } else if (gpu.failed) {  // STAVE_CUDA=1, or a value that is not one of auto, 1, 0
    std::cerr << "stave-train: error: " << gpu.reason << "\n";
    return stave::cli::kUsage;
  }
  try {
    return cmd->run(rest);
  } catch (const std::exception& e) {
    std::cerr << "stave-train " << cmd->name << ": error: " << e.what() << "\n";
    return stave::cli::kProblems;
  }
}
