// stave-train compare-weights: how far apart two checkpoints of the same model are.
#include <iostream>
#include <memory>

#include "app/stave-train/command.h"
#include "core/train/inference.h"

namespace {
struct CompareOptions {
  std::string a, b;
  bool json = false;
  bool norms = false;
};

int run(const CompareOptions& o) {
  if (!o.norms && o.b.empty())
    return stave::cli::usageError("compare-weights", "B.pt is required (or --norms for A.pt alone)");
  auto j = o.norms ? stave::train::weightNorms(o.a) : stave::train::compareWeights(o.a, o.b);
  if (!j) return stave::cli::usageError("compare-weights", j.errorText());
  std::cout << j->dump(o.json ? -1 : 2) << "\n";
  return stave::cli::kOk;
}

stave::cli::RunFunction setup(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  app.add_option("A.pt", o->a, "a checkpoint")->type_name("")->required();
  app.add_option("B.pt", o->b, "another checkpoint of the same model")->type_name("");
  app.add_flag("--norms", o->norms,
               "instead: the L2 norm of every model and EMA tensor of A.pt and their totals");
  app.add_flag("--json", o->json, "print the JSON on one line");
  return [o] { return run(*o); };
}
}  // namespace

STAVE_COMMAND(stave::cli::Command{"compare-weights",
                                  "largest difference between two checkpoints (JSON)",
                                  "stave-train compare-weights A.pt B.pt [--json] | compare-weights A.pt --norms [--json]", "", setup});
