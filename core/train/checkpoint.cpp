#include "core/train/checkpoint.h"
#include "core/train/start_weights.h"
#include "core/train/torch_archive.h"
#include "core/train/archive_check.h"

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/base/atomic_file.h"
#include "core/config/member_table.h"

namespace stave::train {
namespace {
constexpr int64_t kFormatVersion = 1;
}  // namespace

// writeMeta() and readMeta() are loops over this table, in its order (the archive's record
// order): a new record is one row, optional when older checkpoints lack it.
const config::MemberTable<CheckpointMeta>& checkpointMetaTable() {
  using M = CheckpointMeta;
  static const config::MemberTable<M> fields{
      {"epoch", &M::epoch},
      {"epochs", &M::epochs},
      {"iteration", &M::iteration},
      {"last_opt_step", &M::lastOptStep},
      {"best_fitness", &M::bestFitness},
      {"best_epoch", &M::bestEpoch},
      {"best_map50", &M::bestMap50},
      {"best_map5095", &M::bestMap5095},
      {"best_map_epoch", &M::bestMapEpoch},
      {"last_metrics", &M::lastMetrics},
      {"ema_updates", &M::emaUpdates},
      {"scaler_scale", &M::scalerScale},
      {"scaler_growth", &M::scalerGrowth},
      {"non_finite_total", &M::nonFiniteTotal},
      {"config_yaml", &M::configYaml},
      {"scale", &M::scale},
      {"nc", &M::nc},
      {"imgsz", &M::imgsz},
      {"optimizer_name", &M::optimizer, true},
      {"optimizer_base_lr0", &M::optimizerLr0, true},
      {"epoch_batches", &M::epochBatches, true},
      {"epoch_loss", &M::epochLoss, true},
      {"dataset_hash", &M::datasetHash, true},
      {"world_size", &M::worldSize, true},
  };
  return fields;
}

namespace {
// The member types a checkpoint record holds (TorchScript's int, float, str and float[]).
template <class T>
constexpr bool kRecordType =
    std::is_same_v<T, int64_t> || std::is_same_v<T, double> || std::is_same_v<T, std::string> ||
    std::is_same_v<T, std::vector<double>>;

using MetaField = config::MemberField<CheckpointMeta>;

c10::IValue readRecord(torch::serialize::InputArchive& a, const std::string& key) {
  c10::IValue v;
  a.read(key, v);
  return v;
}

void writeMeta(torch::serialize::OutputArchive& a, const CheckpointMeta& m) {
  a.write("format_version", c10::IValue(kFormatVersion));
  config::forEachMember(checkpointMetaTable(), [&](const MetaField& f, auto member) {
    using T = std::decay_t<decltype(m.*member)>;
    if constexpr (kRecordType<T>)
      a.write(f.key, c10::IValue(m.*member));
    else
      STAVE_CHECK(false, std::string("checkpoint record '") + f.key + "' has no record type");
  });
  std::string names;
  for (const auto& n : m.names) names += n + "\n";
  a.write("names", c10::IValue(names));
  a.write("has_optimizer", c10::IValue(int64_t{m.hasOptimizer ? 1 : 0}));
}

// Sets `m`'s member from `v` when `v` holds its type; false when it does not.
template <class T>
bool assign(CheckpointMeta& m, T CheckpointMeta::*member, const c10::IValue& v) {
  if constexpr (std::is_same_v<T, int64_t>) {
    if (!v.isInt()) return false;
    m.*member = v.toInt();
  } else if constexpr (std::is_same_v<T, double>) {
    if (!v.isDouble()) return false;
    m.*member = v.toDouble();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.isString()) return false;
    m.*member = v.toStringRef();
  } else if constexpr (std::is_same_v<T, std::vector<double>>) {
    if (!v.isDoubleList()) return false;
    m.*member = v.toDoubleVector();
  } else {
    return false;  // not a record type: writeMeta() refuses it
  }
  return true;
}

CheckpointMeta readMeta(torch::serialize::InputArchive& a) {
  CheckpointMeta m;
  const c10::IValue version = readRecord(a, "format_version");
  if (!version.isInt() || version.toInt() != kFormatVersion) {
    throw std::runtime_error("checkpoint format " +
                             (version.isInt() ? std::to_string(version.toInt()) : "?") +
                             " is not supported (expected " + std::to_string(kFormatVersion) +
                             ")");
  }
  config::forEachMember(checkpointMetaTable(), [&](const MetaField& f, auto member) {
    c10::IValue v;
    if (f.optional) {
      if (!a.try_read(f.key, v)) return;
    } else {
      a.read(f.key, v);
    }
    if (!assign(m, member, v) && !f.optional)
      throw std::runtime_error(std::string("checkpoint record '") + f.key +
                               "' has the wrong type (" + v.tagKind() + ")");
  });
  const c10::IValue names = readRecord(a, "names");
  if (!names.isString()) throw std::runtime_error("checkpoint record 'names' is not text");
  std::istringstream lines(names.toStringRef());
  for (std::string line; std::getline(lines, line);) m.names.push_back(line);
  const c10::IValue hasOptimizer = readRecord(a, "has_optimizer");
  m.hasOptimizer = hasOptimizer.isInt() && hasOptimizer.toInt() != 0;
  return m;
}

Result<std::string> readBytes(const std::string& path) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.errors();
  if (bytes->empty()) return textError(path, 0, "", Text("ckpt.empty"));
  return bytes.value();
}
}  // namespace

Status saveCheckpoint(const std::string& path, const CheckpointParts& parts,
                      const CheckpointMeta& meta) {
  std::string bytes;
  try {
    torch::serialize::OutputArchive archive;
    CheckpointMeta m = meta;
    m.hasOptimizer = parts.optimizer != nullptr;
    writeMeta(archive, m);
    if (parts.model) {
      torch::serialize::OutputArchive sub;
      parts.model->save(sub);
      archive.write("model", sub);
    }
    if (parts.ema) {
      torch::serialize::OutputArchive sub;
      parts.ema->save(sub);
      archive.write("ema", sub);
    }
    if (parts.optimizer) {
      torch::serialize::OutputArchive sub;
      parts.optimizer->save(sub);
      archive.write("optimizer", sub);
    }
    if (parts.gradients && parts.model) {
      // Only when a step is pending: right after an optimiser step they are all zero, and a
      // large model's gradients are as big as its weights.
      bool pending = false;
      for (const auto& p : parts.model->parameters())
        pending = pending || (p.grad().defined() && p.grad().ne(0).any().item<bool>());
      if (pending) {
        torch::serialize::OutputArchive sub;
        for (const auto& p : parts.model->named_parameters(true))
          if (p.value().grad().defined()) sub.write(p.key(), p.value().grad());
        archive.write("gradients", sub);
      }
    }
    archive.write("rng_cpu", at::detail::getDefaultCPUGenerator().get_state());
    std::ostringstream os;
    archive.save_to(os);
    bytes = os.str();
  } catch (const std::exception& e) {
    return Error{path, 0, "", std::string("could not serialise the checkpoint: ") + e.what()};
  }
  return writeFileAtomic(path, bytes);
}

namespace {
std::atomic<bool> g_backtraces{std::getenv("STAVE_DEBUG") != nullptr};

/// One line for the user; LibTorch's C++ backtrace only goes to stderr when asked for
/// (setCheckpointBacktraces), for a developer.
Error unreadable(const std::string& path, const std::exception& e) {
  std::string what = e.what();
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) what = c10->what_without_backtrace();
  if (g_backtraces.load()) std::cerr << path << ": " << e.what() << "\n";
  what = what.substr(0, what.find('\n'));
  if (what.find("central directory") != std::string::npos ||
      what.find("zip archive") != std::string::npos)
    return textError(path, 0, "", Text("ckpt.unreadable_archive", {{"detail", what}}));
  return textError(path, 0, "", Text("ckpt.unreadable", {{"detail", what}}));
}
}  // namespace

void setCheckpointBacktraces(bool toStderr) { g_backtraces = toStderr; }

Result<CheckpointReader> CheckpointReader::open(const std::string& path,
                                                const torch::Device& device) {
  auto bytes = readBytes(path);
  if (!bytes) return bytes.errors();
  if (auto s = verifyArchive(path, bytes.value()); !s) return s.errors();
  try {
    CheckpointReader r;
    r.m_path = path;
    r.m_archive = std::make_shared<torch::serialize::InputArchive>();
    std::istringstream is(bytes.value());
    r.m_archive->load_from(is, device);
    r.m_meta = readMeta(*r.m_archive);
    return r;
  } catch (const std::exception& e) {
    return unreadable(path, e);
  }
}

Status CheckpointReader::restore(const CheckpointParts& parts, bool restoreRng) const {
  auto& archive = *m_archive;
  try {
    if (parts.model) {
      torch::serialize::InputArchive sub;
      archive.read("model", sub);
      parts.model->load(sub);
    }
    if (parts.ema) {
      torch::serialize::InputArchive sub;
      archive.read("ema", sub);
      parts.ema->load(sub);
    }
    if (parts.optimizer) {
      if (!m_meta.hasOptimizer)
        return textError(m_path, 0, "", Text("ckpt.no_optimizer"));
      torch::serialize::InputArchive sub;
      archive.read("optimizer", sub);
      parts.optimizer->load(sub);
    }
    if (parts.gradients && parts.model) {
      // Absent from checkpoints written before gradients were kept: they start at zero.
      torch::serialize::InputArchive sub;
      if (archive.try_read("gradients", sub)) {
        for (auto& p : parts.model->named_parameters(true)) {
          torch::Tensor g;
          if (sub.try_read(p.key(), g)) {
            torch::NoGradGuard noGrad;
            p.value().mutable_grad() = g.to(p.value().device()).clone();
          }
        }
      }
    }
    if (restoreRng) {
      torch::Tensor state;
      archive.read("rng_cpu", state);
      at::Generator gen = at::detail::getDefaultCPUGenerator();
      gen.set_state(state.to(torch::kCPU));
    }
    return Ok{};
  } catch (const std::exception& e) {
    return unreadable(m_path, e);
  }
}

namespace {

std::string shapeText(const torch::Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? "x" : "") + std::to_string(t.size(i));
  return s + "]";
}

void countAbsent(torch::nn::Module& m, const std::string& prefix, WeightTransfer& w) {
  for (const auto& p : m.named_parameters(true)) w.skipped.push_back(prefix + p.key() + " (absent)");
  for (const auto& b : m.named_buffers(true)) w.skipped.push_back(prefix + b.key() + " (absent)");
  w.total += static_cast<int64_t>(m.named_parameters(true).size() + m.named_buffers(true).size());
}

// Module::save writes a module's own tensors under their names and each child as a nested
// archive: walk both trees together.
void transferInto(torch::nn::Module& m, torch::serialize::InputArchive& a,
                  const std::string& prefix, WeightTransfer& w) {
  auto one = [&](const std::string& name, torch::Tensor target, bool isBuffer) {
    ++w.total;
    torch::Tensor t;  // undefined: try_read assigns rather than writing into it
    if (!a.try_read(name, t, isBuffer)) {
      w.skipped.push_back(prefix + name + " (absent)");
      return;
    }
    if (t.sizes() != target.sizes()) {
      w.skipped.push_back(prefix + name + " (shape " + shapeText(t) + ", model " +
                          shapeText(target) + ")");
      return;
    }
    torch::NoGradGuard noGrad;
    target.copy_(t);
    ++w.transferred;
  };
  for (const auto& p : m.named_parameters(false)) one(p.key(), p.value(), false);
  for (const auto& b : m.named_buffers(false)) one(b.key(), b.value(), true);
  for (const auto& c : m.named_children()) {
    torch::serialize::InputArchive sub;
    if (a.try_read(c.key(), sub))
      transferInto(*c.value(), sub, prefix + c.key() + ".", w);
    else
      countAbsent(*c.value(), prefix + c.key() + ".", w);
  }
}

}  // namespace

Result<WeightTransfer> CheckpointReader::transferMatching(torch::nn::Module& model) const {
  try {
    torch::serialize::InputArchive sub;
    if (!m_archive->try_read("ema", sub)) m_archive->read("model", sub);
    WeightTransfer w;
    transferInto(model, sub, "", w);
    return w;
  } catch (const std::exception& e) {
    return unreadable(m_path, e);
  }
}

Result<CheckpointMeta> loadCheckpoint(const std::string& path, const CheckpointParts& parts,
                                      bool restoreRng, const torch::Device& device) {
  auto reader = CheckpointReader::open(path, device);
  if (!reader) return reader.errors();
  if (auto s = reader->restore(parts, restoreRng); !s) return s.errors();
  return reader->meta();
}

Result<CheckpointMeta> readCheckpointMeta(const std::string& path) {
  // Ultralytics' files too (val and predict ask the meta of any weights they take).
  if (auto kind = checkpointKind(path); kind && kind.value() == CheckpointKind::TorchSave) {
    auto w = StartWeights::open(path);
    if (!w) return w.errors();
    return w->meta();
  }
  return loadCheckpoint(path, CheckpointParts{}, false);
}

Result<LoadedWeights> loadWeights(const std::string& path, const torch::Device& device) {
  auto kind = checkpointKind(path);
  if (!kind) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return missingWeightsError(path, "");
    return kind.errors();
  }
  if (kind.value() == CheckpointKind::TorchSave) return loadUltralyticsWeights(path, device);
  if (kind.value() == CheckpointKind::LegacyTorchSave) return StartWeights::open(path).errors();
  auto file = CheckpointReader::open(path);
  if (!file) return file.errors();
  LoadedWeights lw;
  lw.meta = file->meta();
  // The head's class outputs are nc; names of another count would label the wrong outputs in
  // every export, prediction and validation (an empty list: the outputs are numbered).
  if (!lw.meta.names.empty() && static_cast<int64_t>(lw.meta.names.size()) != lw.meta.nc)
    return textError(path, 0, "names",
                     Text("ckpt.names_mismatch", {{"names", std::to_string(lw.meta.names.size())},
                                                  {"nc", std::to_string(lw.meta.nc)}}));
  model::ModelOptions mo;
  mo.scale = lw.meta.scale;
  mo.nc = static_cast<int>(lw.meta.nc);
  lw.model = model::Yolo(mo);
  if (auto r = file->restore({nullptr, lw.model.get(), nullptr}, false); !r) return r.errors();
  lw.model->to(device);
  lw.model->eval();
  return lw;
}

Status exportStaveWeights(const std::string& checkpoint, const std::string& out) {
  auto lw = loadWeights(checkpoint);
  if (!lw) return lw.errors();
  CheckpointMeta meta = lw->meta;
  meta.epochBatches = 0;  // no partial epoch to continue: it cannot be resumed
  meta.epochLoss.clear();
  // The EMA weights are the model and the EMA: whatever reads either gets the same tensors.
  return saveCheckpoint(out, {lw->model.get(), lw->model.get(), nullptr}, meta);
}

}  // namespace stave::train
