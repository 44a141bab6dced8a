#include "core/train/start_weights.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

#include "core/config/schema.h"
#include "core/train/torch_archive.h"
#include "core/train/ultralytics_checkpoint.h"

namespace stave::train {
namespace {

std::string shapeText(const torch::Tensor& t) {
  std::ostringstream os;
  os << "[";
  for (int64_t i = 0; i < t.dim(); ++i) os << (i ? ", " : "") << t.size(i);
  os << "]";
  return os.str();
}

std::string ultralyticsWriter(const UltralyticsCheckpoint& c) {
  return c.version.empty() ? std::string("Ultralytics") : "Ultralytics " + c.version;
}

/// The task an Ultralytics model class trains, for the refusal of the ones Stave does not.
std::string taskOfClass(const std::string& cls) {
  static const std::map<std::string, std::string> tasks = {
      {"SegmentationModel", "segmentation"}, {"PoseModel", "pose estimation"},
      {"ClassificationModel", "classification"}, {"OBBModel", "oriented boxes"},
      {"RTDETRDetectionModel", "RT-DETR detection"}, {"WorldModel", "YOLO-World detection"},
      {"YOLOEModel", "YOLOE detection"}, {"YOLOESegModel", "YOLOE segmentation"}};
  const std::string name = cls.substr(cls.find_last_of('.') + 1);
  const auto it = tasks.find(name);
  return it == tasks.end() ? "" : it->second;
}

/// The architecture of an Ultralytics file, or the refusal naming what Stave does not build
/// and who wrote the file.
Result<model::Architecture> architectureOf(const UltralyticsCheckpoint& c) {
  const std::string by = "written by " + ultralyticsWriter(c) + ": ";
  const std::string writer = ultralyticsWriter(c);
  const std::string task = taskOfClass(c.modelClass);
  if (!task.empty())
    return textError(c.path, 0, "model",
                     Text("ckpt.ultra.task",
                          {{"writer", writer},
                           {"kind", c.modelClass.substr(c.modelClass.find_last_of('.') + 1)},
                           {"task", task}}));
  if (!c.yaml.is_object())
    return textError(c.path, 0, "model", Text("ckpt.ultra.no_yaml", {{"writer", writer}}));
  auto arch = model::architectureFromYaml(c.yaml, 0, c.path);
  if (!arch) {
    Error e = arch.errors().front();
    e.file = c.path;
    e.key = "model";
    e.message = by + e.message;
    e.text.clear();  // the architecture's own words: English only
    return e;
  }
  if (!isPublishedArchitecture(arch.value())) {
    std::string file = c.yaml.contains("yaml_file") && c.yaml["yaml_file"].is_string()
                           ? c.yaml["yaml_file"].get<std::string>()
                           : std::string("a custom layout");
    return textError(c.path, 0, "model", Text("ckpt.ultra.custom", {{"writer", writer}, {"file", file}}));
  }
  return arch;
}

/// An Ultralytics file's meta as Stave keeps it for a checkpoint.
CheckpointMeta metaOf(const UltralyticsCheckpoint& c, const model::Architecture& arch) {
  CheckpointMeta m;
  m.scale = arch.name;
  m.nc = arch.nc;
  m.names = c.names;
  m.imgsz = 640;
  if (c.trainArgs.is_object() && c.trainArgs.contains("imgsz")) {
    const auto& v = c.trainArgs["imgsz"];
    if (v.is_number_integer() && v.get<int64_t>() >= 32) m.imgsz = v.get<int64_t>();
    // A list [h, w]: the larger side, as Ultralytics' val takes max(imgsz).
    if (v.is_array() && !v.empty() && v.back().is_number_integer())
      m.imgsz = std::max<int64_t>(32, v.back().get<int64_t>());
  }
  m.epoch = c.epoch.value_or(-1);
  m.hasOptimizer = false;  // Ultralytics' optimiser state is never taken over
  return m;
}

/// Copies by name and shape from the file's tensors into `model`.
WeightTransfer transferByName(torch::nn::Module& model,
                              const std::vector<std::pair<std::string, torch::Tensor>>& tensors) {
  std::unordered_map<std::string, const torch::Tensor*> byName;
  byName.reserve(tensors.size());
  for (const auto& [name, t] : tensors) byName.emplace(name, &t);
  WeightTransfer w;
  torch::NoGradGuard noGrad;
  auto one = [&](const std::string& name, torch::Tensor target) {
    ++w.total;
    const auto it = byName.find(name);
    if (it == byName.end()) {
      w.skipped.push_back(name + " (absent)");
      return;
    }
    const torch::Tensor& t = *it->second;
    if (t.sizes() != target.sizes()) {
      w.skipped.push_back(name + " (shape " + shapeText(t) + ", model " + shapeText(target) + ")");
      return;
    }
    target.copy_(t);
    ++w.transferred;
  };
  for (const auto& p : model.named_parameters(true)) one(p.key(), p.value());
  for (const auto& b : model.named_buffers(true)) one(b.key(), b.value());
  return w;
}

bool sameLayer(const model::LayerSpec& a, const model::LayerSpec& b) {
  return a.module == b.module && a.from == b.from && a.repeats == b.repeats && a.c1 == b.c1 &&
         a.c2 == b.c2 && a.inChannels == b.inChannels && a.kernel == b.kernel &&
         a.stride == b.stride && a.groups == b.groups && a.act == b.act &&
         a.shortcut == b.shortcut && a.c3k == b.c3k && a.expansion == b.expansion;
}

}  // namespace

bool isPublishedArchitecture(const model::Architecture& arch) {
  auto published = model::architectureFor(arch.name, arch.nc);
  if (!published) return false;
  const auto& p = published.value();
  if (p.legacyHead != arch.legacyHead || p.regMax != arch.regMax ||
      p.layers.size() != arch.layers.size() || p.strides != arch.strides)
    return false;
  for (size_t i = 0; i < p.layers.size(); ++i)
    if (!sameLayer(p.layers[i], arch.layers[i])) return false;
  return true;
}

Error missingWeightsError(const std::string& path, const std::string& key) {
  const std::string base = path.substr(path.find_last_of('/') + 1);
  const std::string stem = base.size() > 3 ? base.substr(0, base.size() - 3) : base;
  if (!config::modelName(stem).empty())
    return textError(path, 0, key, Text("ckpt.no_file_download", {{"file", base}, {"stem", stem}}));
  return textError(path, 0, key, Text("ckpt.no_file"));
}

Result<StartWeights> StartWeights::open(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return missingWeightsError(path, "");
  auto kind = checkpointKind(path);
  if (!kind) return kind.errors();
  StartWeights w;
  w.m_path = path;
  if (kind.value() == CheckpointKind::TorchSave) {
    auto c = readUltralyticsCheckpoint(path);
    if (!c) return c.errors();
    auto arch = architectureOf(c.value());
    if (!arch) return arch.errors();
    w.m_meta = metaOf(c.value(), arch.value());
    w.m_writer = ultralyticsWriter(c.value());
    w.m_source = c->source;
    w.m_ultra = std::make_shared<const UltralyticsCheckpoint>(std::move(c.value()));
    return w;
  }
  if (kind.value() == CheckpointKind::LegacyTorchSave)
    return textError(path, 0, "", Text("ckpt.legacy_start"));
  // Stave's own (an unknown file gets the checkpoint reader's own error).
  auto r = CheckpointReader::open(path);
  if (!r) return r.errors();
  w.m_meta = r->meta();
  w.m_meta.scale = config::modelName(w.m_meta.scale);
  w.m_writer = "Stave";
  w.m_source = "ema";
  w.m_stave = std::make_shared<const CheckpointReader>(std::move(r.value()));
  return w;
}

Result<WeightTransfer> StartWeights::transferInto(torch::nn::Module& model) const {
  if (m_stave) return m_stave->transferMatching(model);
  try {
    return transferByName(model, m_ultra->tensors);
  } catch (const std::exception& e) {
    return textError(m_path, 0, "", Text("ckpt.cannot_copy", {{"detail", e.what()}}));
  }
}

Text keptText(const WeightTransfer& t, int64_t fileNc, int64_t modelNc) {
  if (t.skipped.empty()) return Text("plain", {{"text", ""}});
  // A file trained for another number of classes differs in the head's class branch (cv3):
  // its last convolution has one output per class, and its width is max(channels, min(nc, 100)).
  bool classBranch = fileNc > 0 && fileNc != modelNc;
  for (const auto& s : t.skipped) classBranch = classBranch && s.find(".cv3.") != std::string::npos;
  if (classBranch)
    return Text("train.kept_class_branch",
                {{"from", std::to_string(fileNc)}, {"to", std::to_string(modelNc)}});
  std::string out = t.skipped.front();
  if (t.skipped.size() > 1) out += ", " + t.skipped[1];
  if (t.skipped.size() > 2) out += ", ...";
  return Text("plain", {{"text", out}});
}

std::string keptSummary(const WeightTransfer& t, int64_t fileNc, int64_t modelNc) {
  return english(keptText(t, fileNc, modelNc));
}

std::string transferSummary(const WeightTransfer& t, const StartWeights& from, int64_t modelNc) {
  std::string text = "Transferred " + std::to_string(t.transferred) + "/" +
                     std::to_string(t.total) + " items from pretrained weights (" + from.writer() +
                     ", " + from.source() + ")";
  if (!t.skipped.empty())
    text += "; kept " + std::to_string(t.skipped.size()) + " as initialised: " +
            keptSummary(t, from.meta().nc, modelNc);
  return text;
}

Result<LoadedWeights> loadUltralyticsWeights(const std::string& path,
                                             const torch::Device& device) {
  auto c = readUltralyticsCheckpoint(path);
  if (!c) return c.errors();
  auto arch = architectureOf(c.value());
  if (!arch) return arch.errors();
  LoadedWeights lw;
  lw.meta = metaOf(c.value(), arch.value());
  if (!lw.meta.names.empty() && static_cast<int64_t>(lw.meta.names.size()) != lw.meta.nc)
    return textError(path, 0, "names",
                     Text("ckpt.names_mismatch", {{"names", std::to_string(lw.meta.names.size())},
                                                  {"nc", std::to_string(lw.meta.nc)}}));
  try {
    model::ModelOptions mo;
    mo.architecture = std::make_shared<const model::Architecture>(arch.value());
    lw.model = model::Yolo(mo);
    const WeightTransfer t = transferByName(*lw.model, c->tensors);
    if (!t.skipped.empty())
      return textError(path, 0, "",
                       Text("ckpt.ultra.mismatch", {{"writer", ultralyticsWriter(c.value())},
                                                    {"count", std::to_string(t.skipped.size())},
                                                    {"model", arch->name},
                                                    {"example", t.skipped.front()}}));
    lw.model->to(device);
    lw.model->eval();
  } catch (const std::exception& e) {
    return textError(path, 0, "", Text("ckpt.cannot_build", {{"detail", e.what()}}));
  }
  return lw;
}

}  // namespace stave::train
