// stave-train compare-weights: how far apart two checkpoints of the same model are.
#include <iostream>

#include "app/stave-train/command.h"
#include "core/train/inference.h"

namespace {
int run(const std::vector<std::string>& args) {
  stave::cli::Args a(args, {}, {"json"});
  if (!a.ok()) return stave::cli::usageError("compare-weights", a.error());
  if (a.positional().size() != 2)
    return stave::cli::usageError("compare-weights", "give two checkpoints A.pt B.pt");
  auto j = stave::train::compareWeights(a.positional()[0], a.positional()[1]);
  if (!j) return stave::cli::usageError("compare-weights", j.errorText());
  std::cout << j->dump(a.has("json") ? -1 : 2) << "\n";
  return stave::cli::kOk;
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{"compare-weights",
                                  "largest difference between two checkpoints (JSON)",
                                  "stave-train compare-weights A.pt B.pt [--json]", run});
