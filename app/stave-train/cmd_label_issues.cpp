// stave-train label-issues: which labels of a dataset split are probably wrong, from a trained
// model's predictions on it (docs/labels.md). The predictions come from the validator's own
// inference path (what `val --save-preds` writes) or from a CSV made by any tool (--preds).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <random>

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "app/stave-train/command.h"
#include "app/stave-train/split_images.h"
#include "app/stave-train/train_command.h"
#include "core/base/atomic_file.h"
#include "core/base/hash.h"
#include "core/config/output_path.h"
#include "core/config/run_config.h"
#include "core/data/dataset.h"
#include "core/data/label_edits.h"
#include "core/data/label_fix_batch.h"
#include "core/data/label_issues.h"
#include "core/train/checkpoint.h"
#include "core/train/inference.h"
#include "core/train/pred_eval.h"

namespace {

namespace fs = std::filesystem;
constexpr const char* kName = "label-issues";

struct LabelIssuesOptions {
  std::string source;  ///< RUN folder or checkpoint
  std::string preds;   ///< predictions CSV instead of a model
  std::string out;
  int folds = 0;
  std::string foldsDir;  ///< where the fold runs go ("" = beside --out)
  bool force = false;
  stave::train::ValRequest val;  ///< data, split and the inference settings
  std::string confident = "auto";
  stave::data::LabelIssueOptions scoring;
};

/// The checkpoint of RUN (its weights/best.pt, else weights/last.pt) or the checkpoint itself.
stave::Result<std::string> resolveWeights(const std::string& source) {
  std::error_code ec;
  if (fs::is_directory(source, ec)) {
    for (const char* name : {"weights/best.pt", "weights/last.pt"}) {
      const fs::path p = fs::path(source) / name;
      if (fs::is_regular_file(p, ec)) return p.string();
    }
    return stave::Error{source, 0, "",
                        "is a folder but not a run: it has no weights/best.pt or weights/last.pt"};
  }
  if (fs::is_regular_file(source, ec)) return source;
  return stave::Error{source, 0, "", "no such run folder or checkpoint"};
}

/// The dataset the weights were trained on (their run config's `data`), as `val` finds it.
stave::Result<std::string> trainedData(const std::string& weights) {
  auto meta = stave::train::readCheckpointMeta(weights);
  if (!meta) return meta.errors();
  auto cfg = stave::config::parseRunConfigYaml(meta->configYaml, weights + " (its run config)");
  const std::string data = cfg ? cfg->getString("data") : std::string();
  if (data.empty())
    return stave::Error{weights, 0, "data",
                        "does not name the dataset it was trained on; give data=D.yaml"};
  return data;
}

/// The model's predictions on the split, by the validator (a temporary CSV, removed after).
stave::Result<std::string> predictSplit(stave::train::ValRequest request) {
  std::random_device rd;
  const fs::path tmp = fs::temp_directory_path() /
                       ("stave-label-issues-" + std::to_string(rd()) + "-" + std::to_string(rd()));
  std::error_code ec;
  fs::create_directories(tmp, ec);
  if (ec) return stave::Error{tmp.string(), 0, "", "cannot create: " + ec.message()};
  request.savePreds = (tmp / "predictions.csv").string();
  auto j = stave::train::validateWeights(request);
  stave::Result<std::string> text =
      j ? stave::readFile(request.savePreds) : stave::Result<std::string>(j.errors());
  fs::remove_all(tmp, ec);
  if (j)
    std::cerr << kName << ": the model's mAP50 on split '" << request.split << "' (these labels) "
              << j.value()["map50"].get<double>() << ", " << j.value()["predictions"].get<int64_t>()
              << " predictions at conf >= " << request.conf << "\n";
  return text;
}

/// Writes `text` to `path` atomically, or an error naming it.
stave::Status writeText(const fs::path& path, const std::string& text) {
  return stave::writeFileAtomic(path.string(), text);
}

/// Runs `command` in this process with its stdout (the run's events, also in its
/// events.jsonl) going to `logPath`, so that this command's own output stays readable.
int trainQuietly(const stave::cli::TrainCommand& command, const std::string& logPath) {
  std::fflush(stdout);
  std::cout.flush();
  const int saved = dup(STDOUT_FILENO);
  const int fd = open(logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0 && saved >= 0) dup2(fd, STDOUT_FILENO);
  const int rc = stave::cli::runTrainCommand(command);
  std::fflush(stdout);
  std::cout.flush();
  if (fd >= 0 && saved >= 0) dup2(saved, STDOUT_FILENO);
  if (fd >= 0) close(fd);
  if (saved >= 0) close(saved);
  return rc;
}

/// --folds K: the split's images dealt into K folds (a seeded shuffle); for each fold a normal
/// run of the weights' run config trains on the other folds and predicts the fold, so every
/// image gets out-of-sample predictions. Returns all folds' prediction rows as one CSV text.
stave::Result<std::string> predictByFolds(const LabelIssuesOptions& o,
                                          const stave::data::DataSpec& spec,
                                          const stave::data::SplitIndex& index) {
  const int k = o.folds;
  const size_t n = index.images.size();
  if (n < static_cast<size_t>(k))
    return stave::Error{
        o.val.data, 0, o.val.split,
        "has " + std::to_string(n) + " usable images, fewer than --folds " + std::to_string(k)};
  auto meta = stave::train::readCheckpointMeta(o.val.weights);
  if (!meta) return meta.errors();
  const fs::path dir = fs::absolute(o.foldsDir);
  if (auto st =
          stave::checkOutputFolder(dir.string(), {o.val.weights, o.val.data}, false, "--folds-dir");
      !st)
    return st.errors();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return stave::Error{dir.string(), 0, "", "cannot create: " + ec.message()};
  const fs::path config = dir / "config.yaml";
  if (auto st = writeText(config, meta->configYaml); !st) return st.errors();

  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937(0));
  std::vector<int> foldOf(n);
  for (size_t j = 0; j < n; ++j) foldOf[order[j]] = static_cast<int>(j % static_cast<size_t>(k));
  std::string names;
  for (const auto& name : spec.names)
    names += (names.empty() ? "" : ", ") + nlohmann::json(name).dump();

  std::string rows = stave::train::kPredictionsCsvHeader;
  for (int f = 0; f < k; ++f) {
    const std::string tag = "fold" + std::to_string(f + 1);
    std::string trainList, valList;
    for (size_t i = 0; i < n; ++i)
      (foldOf[i] == f ? valList : trainList) += index.images[i].imagePath + "\n";
    const fs::path data = dir / (tag + "_data.yaml");
    if (auto st = writeText(dir / (tag + "_train.txt"), trainList); !st) return st.errors();
    if (auto st = writeText(dir / (tag + "_val.txt"), valList); !st) return st.errors();
    if (auto st = writeText(
            data, "# " + tag + " of " + std::to_string(k) + " (stave-train " + kName +
                      " --folds)\npath: " + nlohmann::json(spec.root).dump() +
                      "\ntrain: " + nlohmann::json((dir / (tag + "_train.txt")).string()).dump() +
                      "\nval: " + nlohmann::json((dir / (tag + "_val.txt")).string()).dump() +
                      "\nnames: [" + names + "]\n");
        !st)
      return st.errors();
    stave::cli::TrainCommand c;
    c.configPath = config.string();
    c.overrides = {"data=" + data.string()};
    c.runDir = (dir / tag).string();
    c.version = STAVE_VERSION;
    c.executable = stave::cli::selfExecutable();
    const std::string log = (dir / (tag + ".log")).string();
    std::cerr << kName << ": " << tag << "/" << k << ": training on "
              << std::count_if(foldOf.begin(), foldOf.end(), [f](int x) { return x != f; })
              << " images (run " << c.runDir << ", events in " << log << ")\n";
    if (const int rc = trainQuietly(c, log); rc != 0)
      return stave::Error{
          c.runDir, 0, "",
          tag + "'s run failed (exit " + std::to_string(rc) + "); its events are in " + log};
    auto weights = resolveWeights(c.runDir);
    if (!weights) return weights.errors();
    stave::train::ValRequest v = o.val;
    v.weights = weights.value();
    v.data = data.string();
    v.split = "val";
    auto text = predictSplit(v);
    if (!text) return text.errors();
    const auto firstLine = text->find('\n');
    if (firstLine != std::string::npos) rows += text->substr(firstLine + 1);
  }
  return rows;
}

/// The name an image has in the issues file: its path relative to the dataset root, else as is.
std::string displayName(const std::string& imagePath, const std::string& root) {
  const fs::path rel =
      fs::path(imagePath).lexically_normal().lexically_relative(fs::path(root).lexically_normal());
  const std::string s = rel.generic_string();
  if (root.empty() || s.empty() || s.rfind("..", 0) == 0)
    return fs::path(imagePath).generic_string();
  return s;
}

/// What `labels fix` needs later (core/data/label_fix_batch.h): the content of each label file
/// scored with an issue, so that one changed since is refused, and each badly located issue's
/// predicted box, which the CSV's columns do not hold (its box is the label's).
stave::data::IssuesCompanion issuesCompanion(const stave::data::LabelIssueReport& report,
                                             const std::vector<stave::data::IssueImage>& images,
                                             const stave::data::SplitIndex& index,
                                             const std::string& csv) {
  stave::data::IssuesCompanion c;
  c.csvHash = stave::hashHex(csv);
  for (size_t k = 0; k < report.issues.size(); ++k) {
    const auto& is = report.issues[k];
    const auto i = static_cast<size_t>(is.image);
    if (!c.labelHashes.count(images[i].name)) {
      auto state = stave::data::readLabelFile(index.images[i].labelPath);
      c.labelHashes[images[i].name] = state ? state->hash : std::string("unreadable");
    }
    if (is.kind == stave::data::IssueKind::BadlyLocated && is.predictionIndex >= 0) {
      const auto& p = images[i].predictions[static_cast<size_t>(is.predictionIndex)];
      c.predictedBoxes[static_cast<int>(k) + 2] = {p.x1, p.y1, p.x2, p.y2};  // line 1: header
    }
  }
  return c;
}

void printSummary(const stave::data::LabelIssueReport& report, size_t images,
                  const std::vector<std::string>& names, const std::string& out) {
  std::map<std::string, int> kinds;
  int withIssues = 0;
  for (double s : report.imageScores) withIssues += s > 0 ? 1 : 0;
  for (const auto& is : report.issues) ++kinds[stave::data::issueKindName(is.kind)];
  std::printf("%zu issues on %d of %zu images:", report.issues.size(), withIssues, images);
  for (const char* k : {"overlooked", "swapped", "badly_located", "spurious"})
    std::printf(" %s %d", k, kinds[k]);
  std::printf("\n%-16s %7s %10s %10s %8s\n", "class", "boxes", "confident", "precision", "recall");
  for (size_t c = 0; c < report.classes.size(); ++c) {
    const auto& k = report.classes[c];
    std::printf("%-16s %7d %10.3f %10.3f %8.3f%s\n", names[c].c_str(), k.labels, k.threshold,
                k.precision, k.recall, k.pooled ? "  (all classes pooled: few boxes)" : "");
  }
  std::printf("written to %s\n", out.c_str());
}

int run(LabelIssuesOptions& o) {
  auto& r = o.val;
  if (o.folds > 0 && o.source.empty())
    return stave::cli::usageError(
        kName, "--folds trains runs of a run's config: give RUN or CHECKPOINT, not --preds");
  if (o.folds > 0 && o.foldsDir.empty())
    o.foldsDir = (fs::path(o.out).parent_path() / fs::path(o.out).stem()).string() + ".folds";
  if (o.source.empty() == o.preds.empty())
    return stave::cli::usageError(kName, "give a RUN folder or CHECKPOINT, or --preds P.csv (one)");
  if (o.confident != "auto") {
    try {
      size_t used = 0;
      o.scoring.confident = std::stod(o.confident, &used);
      if (used != o.confident.size()) throw std::invalid_argument(o.confident);
    } catch (const std::exception&) {
      return stave::cli::usageError(
          kName, "--confident: expected auto or a number in (0, 1], got '" + o.confident + "'");
    }
  }
  if (auto st = stave::data::checkLabelIssueOptions(o.scoring); !st)
    return stave::cli::reportErrors(kName, st.errors());
  if (!o.source.empty()) {
    auto weights = resolveWeights(o.source);
    if (!weights) return stave::cli::reportErrors(kName, weights.errors());
    r.weights = weights.value();
    if (r.data.empty()) {
      auto data = trainedData(r.weights);
      if (!data) return stave::cli::reportErrors(kName, data.errors());
      r.data = data.value();
      std::cerr << kName << ": data " << r.data << " (from " << r.weights << ")\n";
    }
  } else if (r.data.empty()) {
    return stave::cli::usageError(kName, "--preds needs the dataset: data=D.yaml");
  }
  if (r.split == "train" && !o.source.empty() && o.folds == 0)
    std::cerr << kName
              << ": warning: the model was trained on split 'train'; its predictions there "
                 "agree with the labels it learnt, wrong ones included, so few issues "
                 "show (give --folds K, or score the validation split)\n";
  if (auto st = stave::checkOutputFile(o.out, {r.weights, r.data, o.preds}, o.force, "--out"); !st)
    return stave::cli::reportErrors(kName, st.errors());

  auto spec = stave::data::loadDataYaml(r.data);
  if (!spec) return stave::cli::reportErrors(kName, spec.errors());
  const auto* sources = spec->sources(r.split);
  if (!sources || sources->empty())
    return stave::cli::reportErrors(kName,
                                    {{r.data, 0, r.split, "the split is not in the dataset"}});
  auto index = stave::data::scanSplit(spec.value(), r.split);
  if (!index) return stave::cli::reportErrors(kName, index.errors());
  // Rows the scan dropped are not scored: say which, naming file and line.
  for (const auto& p : index->problems)
    std::cerr << kName << ": " << (p.skipsImage ? "image left out: " : "not scored: ")
              << p.toString() << "\n";
  if (index->images.empty())
    return stave::cli::reportErrors(kName,
                                    {{r.data, 0, r.split, "the split has no usable images"}});

  std::string predsName = o.preds;
  stave::Result<std::string> text = !o.preds.empty() ? stave::readFile(o.preds)
                                    : o.folds > 0 ? predictByFolds(o, spec.value(), index.value())
                                                  : predictSplit(r);
  if (o.preds.empty())
    predsName =
        o.folds > 0 ? o.foldsDir + " (the folds' predictions)" : r.weights + " (its predictions)";
  if (!text) return stave::cli::reportErrors(kName, text.errors());
  auto rows = stave::train::parsePredictionsCsv(text.value(), predsName, spec->nc());
  if (!rows) return stave::cli::reportErrors(kName, rows.errors());
  const auto evalImages = stave::cli::splitEvalImages(spec.value(), index.value(), *sources);
  auto matched = stave::train::matchRowsToImages(evalImages, rows.value(), predsName);
  if (!matched) return stave::cli::reportErrors(kName, matched.errors());

  std::vector<stave::data::IssueImage> images(index->images.size());
  for (size_t i = 0; i < images.size(); ++i) {
    images[i].name = displayName(index->images[i].imagePath, spec->root);
    for (const auto& t : evalImages[i].truths)
      images[i].labels.push_back({t.cls, t.x1, t.y1, t.x2, t.y2});
  }
  for (size_t k = 0; k < rows->size(); ++k) {
    const auto& d = rows.value()[k].det;
    images[static_cast<size_t>(matched.value()[k])].predictions.push_back(
        {d.cls, d.score, d.x1, d.y1, d.x2, d.y2});
  }
  const auto report = stave::data::findLabelIssues(images, spec->nc(), o.scoring);
  const std::string csv = stave::data::labelIssuesCsv(report, images);
  // The companion first: a CSV is never left beside another CSV's companion.
  if (auto st = stave::writeFileAtomic(
          stave::data::issuesCompanionPath(o.out),
          stave::data::issuesCompanionJson(issuesCompanion(report, images, index.value(), csv)));
      !st)
    return stave::cli::reportErrors(kName, st.errors());
  if (auto st = stave::writeFileAtomic(o.out, csv); !st)
    return stave::cli::reportErrors(kName, st.errors());
  printSummary(report, images.size(), spec->names, o.out);
  return stave::cli::kOk;
}

stave::cli::RunFunction setup(CLI::App& app) {
  using namespace stave::cli;
  auto o = std::make_shared<LabelIssuesOptions>();
  auto& r = o->val;
  r.batch = schemaDefault<int>("batch");
  r.workers = schemaDefault<int>("workers");
  r.conf = schemaDefault<double>("conf");
  r.iou = schemaDefault<double>("iou");
  r.maxDet = schemaDefault<int>("max_det");
  r.precision = schemaDefaultText("precision");
  r.channelsLast = schemaDefaultText("channels_last");
  app.add_option("RUN|CHECKPOINT", o->source,
                 "a run folder (its weights/best.pt, else weights/last.pt) or a checkpoint")
      ->type_name("");
  app.add_option("--data", r.data, "the dataset (default: the one the weights were trained on)")
      ->type_name("D.yaml");
  app.add_option("--split", r.split,
                 "the split scored; val's predictions are out of sample (the model did not learn "
                 "these labels)")
      ->type_name("val|train|test")
      ->check(CLI::IsMember({"val", "train", "test"}))
      ->capture_default_str();
  app.add_option("--folds", o->folds,
                 "out-of-sample predictions for any split (train): K normal runs of the run's "
                 "config, each trained on the other folds, predict their fold")
      ->type_name("K")
      ->check(atLeast(2));
  app.add_option("--folds-dir", o->foldsDir,
                 "where the fold runs go, new or empty (default: beside --out, FILE.folds)")
      ->type_name("DIR");
  app.add_option("--out", o->out, "the issues, one per row (written atomically)")
      ->type_name("FILE.csv")
      ->required();
  app.add_flag("--force", o->force, "let --out replace an existing file");
  app.add_option("--preds", o->preds,
                 "score these predictions (image,cls,conf,x1,y1,x2,y2 in pixels, as eval-preds "
                 "reads) instead of running a model; include low-confidence ones")
      ->type_name("P.csv");
  // Inference, as `val` runs it (only with a model).
  keyOption(app, "--conf", r.conf, "conf", "keep predictions from this confidence", "C");
  keyOption(app, "--iou", r.iou, "iou", "NMS IoU threshold, above 0", "T")->check(numberAbove(0));
  keyOption(app, "--max-det", r.maxDet, "max_det", "predictions per image", "N");
  keyOption(app, "--batch", r.batch, "batch", "images per batch", "N");
  app.add_option("--imgsz", r.imgsz, "image size (default: the training size)")
      ->type_name("N")
      ->transform(imgszOrZero());
  keyOption(app, "--workers", r.workers, "workers", "data loader threads", "N");
  app.add_option("--device", r.device, "cpu or a CUDA device index (default: CUDA 0 if any)")
      ->type_name("cpu|N");
  // Scoring (core/data/label_issues.h; docs/labels.md).
  auto& s = o->scoring;
  app.add_option("--confident", o->confident,
                 "confidence from which a prediction is the model's claim; auto: per class, where "
                 "its F1 on the split is highest")
      ->type_name("auto|C")
      ->capture_default_str();
  app.add_option("--min-confident", s.minConfident, "lower bound of an auto threshold")
      ->type_name("C")
      ->capture_default_str();
  app.add_option("--max-confident", s.maxConfident, "upper bound of an auto threshold")
      ->type_name("C")
      ->capture_default_str();
  app.add_option("--min-class-boxes", s.minClassBoxes,
                 "a class with fewer label boxes takes the thresholds of all classes pooled")
      ->type_name("N")
      ->capture_default_str();
  app.add_option("--match-iou", s.matchIou, "IoU from which a prediction and a box are one object")
      ->type_name("T")
      ->capture_default_str();
  app.add_option("--cover-iou", s.coverIou,
                 "a prediction overlapping no box this much is overlooked")
      ->type_name("T")
      ->capture_default_str();
  app.add_option("--loc-iou", s.locIou, "a box its best prediction overlaps less is badly located")
      ->type_name("T")
      ->capture_default_str();
  app.add_option("--min-loc-iou", s.minLocIou, "below this the prediction is another object")
      ->type_name("T")
      ->capture_default_str();
  app.add_option("--alpha", s.alpha, "weight of IoU against centre distance when pairing boxes")
      ->type_name("A")
      ->capture_default_str();
  app.add_option("--min-score", s.minScore, "leave out issues scoring below this")
      ->type_name("S")
      ->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "label-issues",
    "find labels that are probably wrong (overlooked, swapped, badly located, spurious) from a "
    "model's predictions",
    "stave-train label-issues RUN|CHECKPOINT [data=D.yaml] [--split val|train|test] [--folds K]\n"
    "                --out FILE.csv [--conf C] [--device cpu|N] [--confident auto|C]\n"
    "                [--force] [options]\n"
    "       stave-train label-issues --preds P.csv data=D.yaml [--split val] --out FILE.csv",
    "The CSV has one row per issue: image,kind,label_class,predicted_class,score,x1,y1,x2,y2\n"
    "(score 0..1, higher = more likely a labelling error; box in pixels; classes as ids, -1\n"
    "where none), the images with the worst issue first. Beside it, FILE.csv.json keeps what\n"
    "`labels fix` needs: each scored label file's content hash and the predicted box of each\n"
    "badly located issue. See docs/labels.md.",
    setup, /*keyValueOptions=*/true});
