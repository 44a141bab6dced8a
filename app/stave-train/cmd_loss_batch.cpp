// stave-train loss-batch: one batch of a split through a checkpoint's EMA model and Stave's loss,
// written with its gradients as a torch.save() file, so that another implementation (the
// paired benchmark's Ultralytics side) can compute its loss and gradients on exactly the same
// weights and pixels and compare (tests/bench/ultralytics loss). With --augment the batches are
// the training loader's (the run config's default augmentation, mosaic on or off), and
// --batches N writes N of them, so that both tools' augmented data can be compared
// (tests/bench/ultralytics augment).
#include <torch/torch.h>

#include <iostream>

#include "app/stave-train/command.h"
#include "core/base/atomic_file.h"
#include "core/data/dataset.h"
#include "core/data/loader.h"
#include "core/data/loader_config.h"
#include "core/model/yolo.h"
#include "core/train/checkpoint.h"
#include "core/train/loss.h"
#include "core/train/pickle_writer.h"
#include "core/train/validator.h"

namespace {

int run(const std::vector<std::string>& args) {
  using namespace stave;
  const std::string name = "loss-batch";
  cli::Args a(args, {"weights", "data", "split", "batch", "imgsz", "out", "batches", "epoch", "seed"},
              {"augment", "no-mosaic"});
  if (!a.ok()) return cli::usageError(name, a.error());
  if (!a.positional().empty())
    return cli::usageError(name, "unexpected argument '" + a.positional()[0] + "'");
  if (!a.has("weights") || !a.has("data") || !a.has("out"))
    return cli::usageError(name, "--weights, --data and --out are required");
  int batch = 0, imgsz = 0, batches = 0, epoch = 0, seed = 0;
  if (!cli::parseInt(a.value("batch", "16"), batch) || batch < 1 ||
      !cli::parseInt(a.value("imgsz", "640"), imgsz) || imgsz < 32 || imgsz % 32 != 0)
    return cli::usageError(name, "--batch >= 1 and --imgsz a multiple of 32 are required");
  if (!cli::parseInt(a.value("batches", "1"), batches) || batches < 1)
    return cli::usageError(name, "--batches takes a whole number >= 1");
  if (!cli::parseInt(a.value("epoch", "0"), epoch) || epoch < 0)
    return cli::usageError(name, "--epoch takes a whole number >= 0");
  if (!cli::parseInt(a.value("seed", "0"), seed) || seed < 0)
    return cli::usageError(name, "--seed takes a whole number >= 0");
  const bool augment = a.has("augment");
  if (!augment && (a.has("no-mosaic") || a.has("epoch")))
    return cli::usageError(name, "--no-mosaic and --epoch go with --augment");

  // The EMA model in eval mode: BatchNorm on its running statistics, so that both
  // implementations compute the same function.
  auto loaded = train::loadWeights(a.value("weights"));
  if (!loaded) return cli::reportErrors(name, loaded.errors());
  model::Yolo& model = loaded->model;

  auto spec = data::loadDataYaml(a.value("data"));
  if (!spec) return cli::reportErrors(name, spec.errors());
  auto index = data::scanSplit(spec.value(), a.value("split", augment ? "train" : "val"), {});
  if (!index) return cli::reportErrors(name, index.errors());
  // --augment: the training loader as a run with the default config builds it (the same
  // mapping the trainer uses), one worker so the order of work cannot matter.
  data::LoaderOptions lo =
      augment ? data::loaderOptionsFromConfig(config::RunConfig::defaults(), true)
              : data::LoaderOptions{};
  lo.imgsz = imgsz;
  lo.batch = batch;
  lo.workers = 0;
  lo.augment = augment;
  lo.shuffle = augment;
  lo.seed = static_cast<uint64_t>(seed);
  lo.channelsLast = false;
  lo.rect = false;  // square letterbox: the same tensor shape whatever the images
  data::Loader loader(index.value(), lo);
  loader.startEpoch(epoch, augment && !a.has("no-mosaic"));
  std::vector<data::Batch> taken;
  for (int i = 0; i < batches; ++i) {
    auto next = loader.next();
    if (!next) break;
    taken.push_back(std::move(*next));
  }
  if (taken.empty()) return cli::usageError(name, "the split gives no batch");
  if (static_cast<int>(taken.size()) < batches)
    std::cerr << "loss-batch: the epoch has " << taken.size() << " batches, not " << batches
              << "\n";
  const data::Batch* b = &taken.front();

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
  // Every batch taken (the first included) as the loader made it: uint8 pixels and targets.
  w.string("batches");
  w.beginList();
  for (const auto& t : taken) {
    w.beginDict();
    w.string("pixels");
    w.tensor(train::batchPixels(t).contiguous());
    w.string("targets");
    w.tensor(train::batchTargets(t, torch::kCPU));
    w.endDict();
  }
  w.endList();
  w.endDict();
  if (auto s = writeFileAtomic(a.value("out"), w.archive()); !s)
    return cli::reportErrors(name, s.errors());
  const auto items = out.items.to(torch::kDouble);
  std::cout << "loss box " << items[0].item<double>() << " cls " << items[1].item<double>()
            << " dfl " << items[2].item<double>() << " on " << b->n << " images ("
            << taken.size() << (taken.size() == 1 ? " batch" : " batches") << " written); wrote "
            << a.value("out") << "\n";
  return cli::kOk;
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "loss-batch",
    "one batch's loss and gradients for a checkpoint, as a torch.save() file (for comparisons)",
    "stave-train loss-batch --weights W.pt --data D.yaml --out BATCH.pt [--split val]\n"
    "                       [--batch 16] [--imgsz 640] [--batches 1]\n"
    "                       [--augment [--no-mosaic] [--epoch 0] [--seed 0]]\n"
    "  --augment: the training loader's batches (default augmentation; --split defaults to\n"
    "  train), epoch --epoch of an order seeded by --seed; --batches N writes N batches'\n"
    "  pixels and targets (the loss and gradients stay the first batch's)",
    run});
