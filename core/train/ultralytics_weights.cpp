#include "core/train/ultralytics_weights.h"

#include <torch/torch.h>

#include <chrono>
#include <ctime>

#include "core/base/atomic_file.h"
#include "core/config/run_config.h"
#include "core/config/schema.h"
#include "core/model/yolo.h"
#include "core/train/checkpoint.h"
#include "core/train/pickle_writer.h"

namespace stave::train {
namespace {

std::string isoNow() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
  return buf;
}

/// The model's parameters and buffers as a plain dict of tensors (load_state_dict takes any
/// mapping); returns how many.
int64_t writeStateDict(PickleWriter& w, const model::Yolo& model) {
  int64_t tensors = 0;
  w.beginDict();
  for (const auto& p : model->named_parameters(true)) {
    w.string(p.key());
    w.tensor(p.value());
    ++tensors;
  }
  for (const auto& b : model->named_buffers(true)) {
    w.string(b.key());
    w.tensor(b.value());
    ++tensors;
  }
  w.endDict();
  return tensors;
}

/// The checkpoint's "model": a DetectionModel Ultralytics builds from its YAML, with the state
/// dict loaded and the class names set. Counts the tensors into `result`.
void writeDetectionModel(PickleWriter& w, const model::Yolo& model, const CheckpointMeta& meta,
                         UltralyticsExport& result) {
  // DetectionModel(cfg, ch=3, nc=nc, verbose=False): Ultralytics builds the architecture.
  w.global("ultralytics.nn.tasks", "DetectionModel");
  w.mark();
  w.string(result.modelYaml);
  w.integer(3);
  w.integer(result.nc);
  w.boolean(false);
  w.tupleFromMark();
  w.reduce();
  const uint32_t m = w.memoize();
  // getattr(model, "load_state_dict")(state_dict): strict, so a name or shape that does not
  // match fails the load loudly.
  w.global("builtins", "getattr");
  w.mark();
  w.memoGet(m);
  w.string("load_state_dict");
  w.tupleFromMark();
  w.reduce();
  w.mark();  // the argument tuple
  result.tensors += writeStateDict(w, model);
  w.tupleFromMark();
  w.reduce();
  w.pop();
  // setattr(model, "names", {0: name, ...}): Ultralytics indexes names by class id; a
  // checkpoint without names gets "0", "1", ...
  w.global("builtins", "setattr");
  w.mark();
  w.memoGet(m);
  w.string("names");
  w.beginDict();
  for (int i = 0; i < result.nc; ++i) {
    w.integer(i);
    w.string(static_cast<size_t>(i) < meta.names.size() ? meta.names[static_cast<size_t>(i)]
                                                        : std::to_string(i));
  }
  w.endDict();
  w.tupleFromMark();
  w.reduce();
  w.pop();
}

/// The checkpoint's train_args: what Ultralytics' val() without arguments needs.
void writeTrainArgs(PickleWriter& w, const std::string& modelYaml, const std::string& data,
                    int64_t imgsz, bool singleCls) {
  w.beginDict();
  w.string("task");
  w.string("detect");
  w.string("model");
  w.string(modelYaml);
  w.string("data");
  w.string(data);
  w.string("imgsz");
  w.integer(imgsz);
  w.string("single_cls");
  w.boolean(singleCls);
  w.endDict();
}

}  // namespace

Result<UltralyticsExport> exportUltralyticsWeights(const std::string& checkpoint,
                                                   const std::string& out) {
  auto loaded = loadWeights(checkpoint);
  if (!loaded) return loaded.errors();
  const CheckpointMeta& meta = loaded->meta;
  const model::Yolo& model = loaded->model;
  // Ultralytics builds the network from its own yaml of the same name.
  const std::string name = config::modelName(meta.scale);
  if (name.empty())
    return Error{checkpoint, 0, "",
                 "model '" + meta.scale + "' is not one of yolov8n..yolov8x, yolo11n..yolo11x"};

  // The run's data and single_cls, for Ultralytics' val() without arguments.
  std::string data;
  bool singleCls = false;
  if (auto cfg = config::parseRunConfigYaml(meta.configYaml, checkpoint)) {
    data = cfg->getString("data");
    singleCls = cfg->getBool("single_cls");
  }

  UltralyticsExport result;
  result.modelYaml = name + ".yaml";
  result.nc = model->nc();

  torch::NoGradGuard noGrad;
  PickleWriter w;
  w.beginDict();  // the checkpoint
  w.string("model");
  writeDetectionModel(w, model, meta, result);
  w.string("ema");
  w.none();
  w.string("optimizer");
  w.none();
  w.string("epoch");
  w.integer(meta.epoch);
  w.string("best_fitness");
  if (meta.bestFitness >= 0)
    w.real(meta.bestFitness);
  else
    w.none();
  w.string("train_args");
  writeTrainArgs(w, result.modelYaml, data, meta.imgsz, singleCls);
  w.string("date");
  w.string(isoNow());
  w.string("exported_by");
  w.string("stave-train export-weights from " + checkpoint);
  w.endDict();

  if (auto s = writeFileAtomic(out, w.archive()); !s) return s.errors();
  return result;
}

}  // namespace stave::train
