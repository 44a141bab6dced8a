// stave-train loss-batch: one batch of a split through a checkpoint's EMA model and Stave's loss,
// written with its gradients as a torch.save() file, so that another implementation (the
// paired benchmark's Ultralytics side) can compute its loss and gradients on exactly the same
// weights and pixels and compare (tests/bench/ultralytics loss). With --augment the batches are
// the training loader's (the run config's default augmentation, mosaic on or off), and
// --batches N writes N of them, so that both tools' augmented data can be compared
// (tests/bench/ultralytics augment).
#include <torch/torch.h>

#include <iostream>
#include <memory>

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

struct LossBatchOptions {
  std::string weights, data, out;
  std::string split;  ///< "" = val, or train with --augment
  int batch = stave::cli::schemaDefault<int>("batch");
  int imgsz = stave::cli::schemaDefault<int>("imgsz");
  int batches = 1;
  int epoch = 0;
  uint64_t seed = stave::cli::schemaDefault<uint64_t>("seed");
  bool augment = false, noMosaic = false;
};

int run(const LossBatchOptions& o) {
  using namespace stave;
  const std::string name = "loss-batch";
  const int batch = o.batch, imgsz = o.imgsz, batches = o.batches, epoch = o.epoch;
  const bool augment = o.augment;

  // The EMA model in eval mode: BatchNorm on its running statistics, so that both
  // implementations compute the same function.
  auto loaded = train::loadWeights(o.weights);
  if (!loaded) return cli::reportErrors(name, loaded.errors());
  model::Yolo& model = loaded->model;

  auto spec = data::loadDataYaml(o.data);
  if (!spec) return cli::reportErrors(name, spec.errors());
  auto index = data::scanSplit(spec.value(),
                               !o.split.empty() ? o.split
                               : augment        ? "train"
                                                : "val",
                               {});
  if (!index) return cli::reportErrors(name, index.errors());
  // --augment: the training loader as a run with the default config builds it (the same
  // mapping the trainer uses), one worker so the order of work cannot matter.
  data::LoaderOptions lo = augment
                               ? data::loaderOptionsFromConfig(config::RunConfig::defaults(), true)
                               : data::LoaderOptions{};
  lo.imgsz = imgsz;
  lo.batch = batch;
  lo.workers = 0;
  lo.augment = augment;
  lo.shuffle = augment;
  lo.seed = o.seed;
  lo.channelsLast = false;
  lo.rect = false;  // square letterbox: the same tensor shape whatever the images
  data::Loader loader(index.value(), lo);
  loader.startEpoch(epoch, augment && !o.noMosaic);
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
  if (auto s = writeFileAtomic(o.out, w.archive()); !s) return cli::reportErrors(name, s.errors());
  const auto items = out.items.to(torch::kDouble);
  std::cout << "loss box " << items[0].item<double>() << " cls " << items[1].item<double>()
            << " dfl " << items[2].item<double>() << " on " << b->n << " images (" << taken.size()
            << (taken.size() == 1 ? " batch" : " batches") << " written); wrote " << o.out << "\n";
  return cli::kOk;
}

/// --batch, --imgsz and --seed are the run config's keys: checked by their schema rows and
/// starting from their defaults.
stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  auto o = std::make_shared<LossBatchOptions>();
  app.add_option("--weights", o->weights, "the checkpoint (its EMA model is used)")
      ->type_name("W.pt")
      ->required();
  app.add_option("--data", o->data, "the dataset")->type_name("D.yaml")->required();
  app.add_option("--out", o->out, "the torch.save() file to write")
      ->type_name("BATCH.pt")
      ->required();
  app.add_option("--split", o->split, "the split (default: val, or train with --augment)")
      ->type_name("NAME");
  keyOption(app, "--batch", o->batch, "batch", "images per batch", "N");
  keyOption(app, "--imgsz", o->imgsz, "imgsz", "image size (square letterbox)", "N");
  app.add_option("--batches", o->batches,
                 "batches whose pixels and targets are written (the loss and gradients stay the "
                 "first batch's)")
      ->type_name("N")
      ->check(atLeast(1))
      ->capture_default_str();
  auto* augment = app.add_flag("--augment", o->augment,
                               "the training loader's batches (the run config's default "
                               "augmentation)");
  app.add_flag("--no-mosaic", o->noMosaic, "with --augment: mosaic off")->needs(augment);
  app.add_option("--epoch", o->epoch, "with --augment: the epoch of the loader's order")
      ->type_name("E")
      ->check(atLeast(0))
      ->capture_default_str()
      ->needs(augment);
  keyOption(app, "--seed", o->seed, "seed", "the loader's seed", "S");
  return [o] { return run(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "loss-batch",
    "one batch's loss and gradients for a checkpoint, as a torch.save() file (for comparisons)",
    "stave-train loss-batch --weights W.pt --data D.yaml --out BATCH.pt [--split val]\n"
    "                       [--batch N] [--imgsz N] [--batches N]\n"
    "                       [--augment [--no-mosaic] [--epoch E]] [--seed S]",
    "--augment: the training loader's batches (default augmentation; --split defaults to\n"
    "train), epoch --epoch of an order seeded by --seed.",
    setup});
