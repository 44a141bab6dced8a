// stave-train loss-batch: one batch of a split through a checkpoint's EMA model and Stave's loss,
// written with its gradients as a torch.save() file, so that another implementation (the
// paired benchmark's Ultralytics side) can compute its loss and gradients on exactly the same
// weights and pixels and compare (tests/bench/ultralytics loss).
#include <torch/torch.h>

#include <iostream>

#include "app/stave-train/command.h"
#include "core/config/atomic_file.h"
#include "core/data/dataset.h"
#include "core/data/loader.h"
#include "core/model/yolo.h"
#include "core/train/checkpoint.h"
#include "core/train/loss.h"
#include "core/train/pickle_writer.h"
#include "core/train/validator.h"

namespace {

int run(const std::vector<std::string>& args) {
  using namespace stave;
  const std::string name = "loss-batch";
  cli::Args a(args, {"weights", "data", "split", "batch", "imgsz", "out"}, {});
  if (!a.ok()) return cli::usageError(name, a.error());
  if (!a.positional().empty())
    return cli::usageError(name, "unexpected argument '" + a.positional()[0] + "'");
  if (!a.has("weights") || !a.has("data") || !a.has("out"))
    return cli::usageError(name, "--weights, --data and --out are required");
  int batch = 0, imgsz = 0;
  if (!cli::parseInt(a.value("batch", "16"), batch) || batch < 1 ||
      !cli::parseInt(a.value("imgsz", "640"), imgsz) || imgsz < 32 || imgsz % 32 != 0)
    return cli::usageError(name, "--batch >= 1 and --imgsz a multiple of 32 are required");

  // The EMA model in eval mode: BatchNorm on its running statistics, so that both
  // implementations compute the same function.
  auto loaded = train::loadWeights(a.value("weights"));
  if (!loaded) return cli::reportErrors(name, loaded.errors());
  model::Yolo& model = loaded->model;

  auto spec = data::loadDataYaml(a.value("data"));
  if (!spec) return cli::reportErrors(name, spec.errors());
  auto index = data::scanSplit(spec.value(), a.value("split", "val"), {});
  if (!index) return cli::reportErrors(name, index.errors());
  data::LoaderOptions lo;
  lo.imgsz = imgsz;
  lo.batch = batch;
  lo.workers = 0;
  lo.augment = false;
  lo.shuffle = false;
  lo.rect = false;  // square letterbox: the same tensor shape whatever the images
  data::Loader loader(index.value(), lo);
  loader.startEpoch(0, false);
  auto b = loader.next();
  if (!b) return cli::usageError(name, "the split gives no batch");

  const auto images = train::batchImages(*b, torch::kCPU, false);
  const auto targets = train::batchTargets(*b, torch::kCPU);
  train::DetectionLoss loss(*model);
  const auto feats = model->forward(images);
  const auto out = loss(feats, targets, images.size(0));
  out.total.backward();

  train::PickleWriter w;
  w.beginDict();
  w.string("images");
  w.tensor(images);
  w.string("targets");
  w.tensor(targets);
  w.string("loss_items");
  w.tensor(out.items);
  w.string("loss_total");
  w.tensor(out.total.detach());
  w.string("foreground");
  w.tensor(out.foreground.to(torch::kBool));
  w.string("target_scores");
  w.tensor(out.targetScores.to(torch::kFloat));
  w.string("target_scores_sum");
  w.tensor(out.targetScoresSum.to(torch::kFloat));
  w.string("gains");
  w.beginList();
  for (double g : {loss.options().box, loss.options().cls, loss.options().dfl}) w.real(g);
  w.endList();
  w.string("grads");
  w.beginDict();
  for (const auto& p : model->named_parameters(true)) {
    if (!p.value().grad().defined()) continue;
    w.string(p.key());
    w.tensor(p.value().grad());
  }
  w.endDict();
  w.endDict();
  if (auto s = writeFileAtomic(a.value("out"), w.archive()); !s)
    return cli::reportErrors(name, s.errors());
  const auto items = out.items.to(torch::kDouble);
  std::cout << "loss box " << items[0].item<double>() << " cls " << items[1].item<double>()
            << " dfl " << items[2].item<double>() << " on " << b->n << " images; wrote "
            << a.value("out") << "\n";
  return cli::kOk;
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "loss-batch",
    "one batch's loss and gradients for a checkpoint, as a torch.save() file (for comparisons)",
    "stave-train loss-batch --weights W.pt --data D.yaml --out BATCH.pt [--split val]\n"
    "                       [--batch 16] [--imgsz 640]",
    run});
