#include "core/train/run_folder.h"

#include <ctime>
#include <filesystem>

#include "core/config/schema.h"
#include "core/data/dataset.h"
#include "core/train/checkpoint.h"

namespace stave::train {
namespace fs = std::filesystem;

namespace {

/// Renames a folder that holds a run to <folder>-replaced-<UTC time> beside it, so a new run
/// starts empty and nothing of the old one is overwritten or mixed in.
Result<std::string> moveRunAside(const fs::path& dir) {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  fs::path target = dir.string() + "-replaced-" + stamp;
  for (int i = 2; fs::exists(target); ++i)
    target = dir.string() + "-replaced-" + stamp + "-" + std::to_string(i);
  std::error_code ec;
  fs::rename(dir, target, ec);
  if (ec) return Error{dir.string(), 0, "exist_ok", "cannot move the old run aside: " + ec.message()};
  return target.string();
}

/// The refusal of a resume whose last.pt is unreadable, naming the run's intact checkpoints.
std::vector<Error> unreadableLast(std::vector<Error> errors, const fs::path& runDir,
                                  const std::string& ckpt) {
  std::string intact;
  std::error_code ec;
  for (fs::directory_iterator it(runDir / "weights", ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path p = it->path();
    if (p.extension() != ".pt" || p.filename() == "last.pt") continue;
    if (auto m = readCheckpointMeta(p.string()))
      intact += (intact.empty() ? "" : ", ") + p.filename().string() + " (epoch " +
                std::to_string(m->epoch + 1) + ")";
  }
  errors.push_back(Error{
      ckpt, 0, "resume",
      intact.empty()
          ? "cannot resume: no other checkpoint of this run is intact"
          : "cannot resume from it; intact in " + (runDir / "weights").string() + ": " + intact +
                ". To continue from one, move last.pt aside, copy that file to last.pt and "
                "resume again (training since that epoch is lost)"});
  return errors;
}

/// The keys a resume may not change that `requested` changes, "key (old -> new)" each.
std::vector<std::string> changedKeys(const config::RunConfig& saved,
                                     const config::RunConfig& requested,
                                     const std::string& checkpointScale) {
  std::vector<std::string> changed;
  for (const auto& p : config::runConfigSchema()) {
    if (config::resumeMayChange(p.name)) continue;
    const auto& a = saved.get(p.name);
    const auto& b = requested.get(p.name);
    if (p.name == std::string("model") && !config::modelName(std::get<std::string>(a)).empty() &&
        config::modelName(std::get<std::string>(a)) == config::modelName(std::get<std::string>(b)))
      continue;
    if (a != b)
      changed.push_back(std::string(p.name) + " (" + config::formatValue(a) + " -> " +
                        config::formatValue(b) + ")");
  }
  // A model=FILE.pt run records the architecture it read from the file; the requested value is
  // the same file (compared above).
  const std::string requestedModel = requested.getString("model");
  if (!checkpointScale.empty() && !config::isCheckpointModel(requestedModel) &&
      config::modelName(checkpointScale) != config::modelName(requestedModel))
    changed.push_back("model architecture (checkpoint: " + config::modelName(checkpointScale) + ")");
  return changed;
}

/// Takes `runDir`'s lock. When it cannot be taken (a file system without locks, a folder that
/// cannot be opened) and `created` says this process made the folder moments ago, the folder
/// is removed again when nothing but what this attempt made is in it (weights/, an unheld
/// run.lock): a refused start leaves no empty run folder behind. A folder that a live process
/// holds, or that holds anything else, stays as it is.
Result<RunFolderLock> lockFolder(const std::string& runDir, const std::string& command,
                                 bool created) {
  auto lock = RunFolderLock::acquire(runDir, command);
  if (lock || !created || RunFolderLock::holder(runDir)) return lock;
  std::error_code ec;
  fs::remove(fs::path(runDir) / "weights", ec);  // only when empty
  if (fs::is_regular_file(fs::symlink_status(RunFolderLock::lockPath(runDir), ec)))
    fs::remove(RunFolderLock::lockPath(runDir), ec);
  fs::remove(runDir, ec);  // only when empty
  return lock;
}

/// Creates `runDir` (its parents and, with `weights`, its weights/) and says whether the
/// folder was not there before.
Result<bool> createRunFolder(const std::string& runDir, bool weights) {
  std::error_code ec;
  const bool existed = fs::exists(fs::symlink_status(runDir, ec));
  fs::create_directories(weights ? fs::path(runDir) / "weights" : fs::path(runDir), ec);
  if (ec) {
    if (!existed) {
      std::error_code ignored;
      fs::remove(runDir, ignored);  // made before the failure and empty: not left behind
    }
    return Error{runDir, 0, "", "cannot create the run folder: " + ec.message()};
  }
  return !existed;
}

}  // namespace

Result<RunFolderLock> createAndLockRunFolder(const std::string& runDir,
                                             const std::string& command) {
  auto created = createRunFolder(runDir, false);
  if (!created) return created.errors();
  return lockFolder(runDir, command, created.value());
}

std::string chooseRunDir(const config::RunConfig& config, const std::string& besideFolder) {
  std::string project = config.getString("project");
  fs::path base = project.empty() ? fs::path(besideFolder) / "runs" : fs::path(project);
  std::string name = config.getString("name");
  if (name.empty()) name = "train";
  fs::path dir = base / name;
  // Ultralytics' rule: a taken name gets the next free number (train, train2, ...), unless
  // exist_ok asks for that very folder (the caller then moves an old run aside).
  if (config.getBool("exist_ok")) return dir.lexically_normal().string();
  for (int i = 2; fs::exists(dir); ++i) dir = base / (name + std::to_string(i));
  return dir.lexically_normal().string();
}

bool holdsRun(const std::string& dir) {
  std::error_code ec;
  for (const char* f : {"events.jsonl", "config.yaml", "results.csv", "weights/last.pt",
                        "weights/best.pt"})
    if (fs::exists(fs::path(dir) / f, ec)) return true;
  return false;
}

Status checkResume(const config::RunConfig& requested, const std::string& runDir, int worldSize) {
  const std::string ckpt = (fs::path(runDir) / "weights" / "last.pt").string();
  auto meta = readCheckpointMeta(ckpt);
  // Never fall back silently: say which other checkpoint of the run is intact, if any.
  if (!meta) return unreadableLast(meta.errors(), runDir, ckpt);
  auto saved = config::parseRunConfigYaml(meta->configYaml, ckpt + " (its run config)");
  if (!saved) return saved.errors();
  if (const auto changed = changedKeys(saved.value(), requested, meta->scale); !changed.empty()) {
    std::string list;
    for (const auto& c : changed) list += (list.empty() ? "" : ", ") + c;
    return Error{(fs::path(runDir) / "config.yaml").string(), 0, "resume",
                 "a resumed run cannot change " + list + "; it may change only " +
                     config::resumableKeys("") + " (start a new run for the rest)"};
  }
  // The dataset's class count is the model's head: a changed one cannot be resumed (LibTorch
  // refused it with a backtrace when the weights were loaded).
  if (auto spec = data::loadDataYaml(requested.getString("data")); spec && meta->nc > 0) {
    const int64_t nc = requested.getBool("single_cls") ? 1 : spec->nc();
    if (nc != meta->nc)
      return Error{requested.getString("data"), 0, "names",
                   "the dataset now has " + std::to_string(nc) + " classes, the run was trained "
                   "with " + std::to_string(meta->nc) + " (" + ckpt +
                       "); a resumed run keeps its classes: start a new run (pretrained=" +
                       ckpt + " transfers the matching weights)"};
  }
  // Another shape (a node fewer or more) continues a stop inside an epoch only after the
  // images already trained, when they are a whole number of the new global batches. Refused
  // here, before the resume writes config.yaml or any event, not by the ranks.
  const int world = worldSize > 0
                        ? worldSize
                        : static_cast<int>(requested.getInt("nproc") * requested.getInt("nnodes"));
  if (meta->worldSize > 0 && meta->worldSize != world && meta->epochBatches > 0 && world > 0) {
    const int before = static_cast<int>(meta->worldSize);
    const int64_t images = meta->epochBatches * config::derive(requested, before).globalBatch;
    if (images % config::derive(requested, world).globalBatch != 0)
      return Error{ckpt, 0, "resume",
                   "the run stopped inside epoch " + std::to_string(meta->epoch + 2) + " after " +
                       std::to_string(meta->epochBatches) + " batches of " +
                       std::to_string(before) + " ranks (" + std::to_string(images) +
                       " images), which is no whole number of batches of " + std::to_string(world) +
                       " ranks; resume with " + std::to_string(before) +
                       " ranks to finish that epoch, then with " + std::to_string(world)};
  }
  if (meta->epoch + 1 >= requested.getInt("epochs"))
    return Error{(fs::path(runDir) / "config.yaml").string(), 0, "epochs",
                 "the run already trained " + std::to_string(meta->epoch + 1) + " of " +
                     std::to_string(requested.getInt("epochs")) +
                     " epochs; resume with a larger epochs=N to extend it"};
  return Ok{};
}

Result<TakenRunFolder> takeRunFolder(const config::RunConfig& config, const std::string& runDir,
                                     bool resume, const std::string& command) {
  // The run folder belongs to this process for the run's life (released by the kernel when
  // the process ends, however it ends); a folder that a live run holds is refused whatever
  // was asked (resume, exist_ok, a fresh run into the same --run-dir).
  TakenRunFolder taken;
  if (resume) {
    auto l = RunFolderLock::acquire(runDir, command);
    if (!l) return l.errors();
    taken.lock = std::move(l.value());
    if (auto s = checkResume(config, runDir); !s) return s.errors();
  } else if (holdsRun(runDir)) {
    if (auto live = RunFolderLock::holder(runDir))
      return Error{runDir, 0, "run-dir",
                   "is in use by a live run: " + live->describe() +
                       "; neither exist_ok nor a new run may take a live run's folder. Stop "
                       "that run first, or choose another folder" +
                       (live->remote ? ". " + live->remoteHint(runDir) : std::string())};
    // Never mix a second run into a folder that holds one (its last.pt, best.pt, events).
    if (!config.getBool("exist_ok"))
      return Error{runDir, 0, "run-dir",
                   "already holds a run; resume it with resume=true, choose another folder, or "
                   "pass exist_ok=true to move the old run aside and start afresh"};
    auto moved = moveRunAside(runDir);
    if (!moved) return moved.errors();
    taken.movedAside = moved.value();
  }
  auto created = createRunFolder(runDir, true);
  if (!created) return created.errors();
  if (!taken.lock.held()) {
    // Two fresh runs into one empty --run-dir: the second one to get here is refused.
    auto l = lockFolder(runDir, command, created.value());
    if (!l) return l.errors();
    taken.lock = std::move(l.value());
  }
  return taken;
}

}  // namespace stave::train
