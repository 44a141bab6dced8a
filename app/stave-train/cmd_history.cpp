// stave-train history: the project's experiment history (SQLite, <project>/stave.db), brought
// up to date with runs/*/events.jsonl first.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/stave-train/command.h"
#include "core/base/atomic_file.h"
#include "core/config/output_path.h"
#include "core/config/project.h"
#include "core/data/label_history.h"
#include "core/store/run_dataset.h"
#include "core/store/store.h"
#include "core/train/run_lock.h"

namespace fs = std::filesystem;

namespace {

/// How the label diff was found, or why it could not be ("" when it was).
std::string labelDiffBasis(const stave::data::LabelFilesDiff& d) {
  using B = stave::data::LabelFilesDiff::Basis;
  using W = stave::data::LabelFilesDiff::Why;
  switch (d.basis) {
    case B::SameContent:
      return "same content";
    case B::LogPositions:
      return "edit log positions";
    case B::EditTimes:
      return "edit times between the runs' starts";
    case B::Unknown:
      break;
  }
  switch (d.why) {
    case W::OtherDatasets:
      return "cannot tell: different datasets";
    case W::NoDataset:
      return "cannot tell: " + d.error;
    case W::NoTimes:
      return "cannot tell: no log position or start time recorded";
    case W::BadLog:
      return "cannot tell: the edit log holds fewer edits than a run recorded";
    case W::None:
      break;
  }
  return "cannot tell";
}

std::string duration(const stave::store::RunRecord& r) {
  const double end = r.finished > 0 ? r.finished : r.lastEvent;
  if (r.started <= 0 || end < r.started) return "-";
  const int s = static_cast<int>(end - r.started);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%dh%02dm", s / 3600, (s / 60) % 60);
  else
    std::snprintf(buf, sizeof buf, "%dm%02ds", s / 60, s % 60);
  return buf;
}

nlohmann::json runJson(const stave::store::RunRecord& r) {
  const double end = r.finished > 0 ? r.finished : r.lastEvent;
  return {{"name", r.name},
          {"dir", r.dir},
          {"status", r.status},
          {"message", r.message},
          {"model", r.model},
          {"imgsz", r.imgsz},
          {"batch", r.batch},
          {"world_size", r.worldSize},
          {"started", r.started},
          {"duration_s", r.started > 0 && end >= r.started ? end - r.started : 0.0},
          {"epochs", r.epochs},
          {"epochs_done", r.epochsDone},
          {"best_epoch", r.bestEpoch},
          {"best_map50", r.bestMap50},
          {"best_map50_95", r.bestMap5095},
          {"samples_per_s", r.samplesPerSec},
          {"title", r.title},
          {"host", r.host},
          {"dataset", r.dataset},
          {"dataset_hash", r.datasetHash},
          {"tags", r.tags},
          {"notes", r.notes},
          {"skipped_lines", r.badLines}};
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

struct HistoryOptions {
  std::string project;
  std::vector<std::string> runs;  ///< with --compare
  std::string csv;
  bool json = false, rebuild = false, compare = false, force = false;
};

int run(const HistoryOptions& o) {
  const std::string name = "history";
  std::string projectDir = o.project;
  std::error_code ec;
  if (!fs::is_directory(projectDir, ec)) {
    auto project = stave::config::loadProject(projectDir);
    if (!project) {
      for (const auto& e : project.errors())
        std::cerr << "stave-train history: " << e.toString() << "\n";
      return 2;
    }
    projectDir = project->folder();
  }
  const std::string db = stave::store::Store::defaultPath(projectDir);
  const std::string runs = (fs::path(projectDir) / "runs").string();
  if (!o.csv.empty()) {
    if (auto st = stave::checkOutputFile(o.csv, {o.project, db, runs}, o.force, "--csv"); !st) {
      std::cerr << "stave-train history: " << st.errorText() << "\n";
      return 2;
    }
  }

  stave::store::IngestReport report;
  std::unique_ptr<stave::store::Store> store;
  if (o.rebuild) {
    auto s = stave::store::rebuildStore(db, runs, &report);
    if (!s) {
      std::cerr << "stave-train history: " << s.errorText() << "\n";
      return 2;
    }
    store = std::move(s.value());
    std::cerr << "rebuilt " << db << " from " << report.runsUpdated << " runs (" << report.events
              << " events)\n";
  } else {
    auto s = stave::store::Store::open(db);
    if (!s) {
      std::cerr << "stave-train history: " << s.errorText() << "\n";
      return 2;
    }
    store = std::move(s.value());
    auto r = store->ingestRuns(runs);
    if (!r) {
      std::cerr << "stave-train history: " << r.errorText() << "\n";
      return 2;
    }
    report = r.value();
  }
  // A run still `running` in its events whose folder no live process holds was killed.
  if (auto settled = store->settleEndedRuns(
          [](const std::string& dir) { return stave::RunFolderLock::holder(dir).has_value(); });
      !settled)
    std::cerr << "warning: " << settled.errorText() << "\n";
  for (const auto& w : report.warnings) std::cerr << "warning: " << w << "\n";

  if (o.compare) {
    if (o.runs.size() < 2) return stave::cli::usageError(name, "--compare needs two or more runs");
    std::vector<stave::store::RunRecord> picked;
    for (const auto& id : o.runs) {
      auto r = store->findRun(id);
      if (!r) {
        std::cerr << "stave-train history: " << r.errorText() << "\n";
        return 2;
      }
      picked.push_back(r.value());
    }
    // Keys that differ between any two of the runs, with every run's value.
    std::map<std::string, std::vector<std::string>> differing;
    for (size_t i = 1; i < picked.size(); ++i)
      for (const auto& d : stave::store::configDiff(picked[0].configJson, picked[i].configJson))
        differing[d[0]];
    for (auto& [key, values] : differing) {
      for (const auto& p : picked) {
        const auto j = nlohmann::json::parse(p.configJson, nullptr, false);
        values.push_back(j.is_object() && j.contains(key) ? j[key].dump() : "");
      }
    }
    // Which label files each run's dataset differs in from the first's (the edit log).
    std::vector<stave::data::LabelFilesDiff> labelDiffs;
    for (size_t i = 1; i < picked.size(); ++i)
      labelDiffs.push_back(stave::data::labelFilesDiffBetweenRuns(
          stave::store::runDatasetOf(picked[0]), stave::store::runDatasetOf(picked[i])));
    if (o.json) {
      nlohmann::json out;
      out["runs"] = nlohmann::json::array();
      for (const auto& p : picked) out["runs"].push_back(runJson(p));
      out["config_diff"] = differing;
      out["label_files_diff"] = nlohmann::json::array();
      for (size_t i = 0; i < labelDiffs.size(); ++i) {
        const auto& d = labelDiffs[i];
        const bool known = d.basis != stave::data::LabelFilesDiff::Basis::Unknown;
        out["label_files_diff"].push_back(
            {{"runs", {picked[0].name, picked[i + 1].name}},
             {"count", known ? nlohmann::json(d.files.size()) : nlohmann::json()},
             {"files", d.files},
             {"basis", labelDiffBasis(d)},
             {"outside_log", d.outsideLog}});
      }
      std::cout << out.dump(2) << "\n";
      return stave::cli::kOk;
    }
    std::printf("%-22s", "");
    for (const auto& p : picked) std::printf(" %18s", p.name.c_str());
    std::printf("\n%-22s", "best mAP50");
    for (const auto& p : picked) std::printf(" %18.4f", p.bestMap50);
    std::printf("\n%-22s", "best mAP50-95");
    for (const auto& p : picked) std::printf(" %18.4f", p.bestMap5095);
    std::printf("\n%-22s", "epochs");
    for (const auto& p : picked)
      std::printf(" %18s", (std::to_string(p.epochsDone) + "/" + std::to_string(p.epochs)).c_str());
    std::printf("\n%-22s", "samples/s");
    for (const auto& p : picked) std::printf(" %18.1f", p.samplesPerSec);
    std::printf("\n%-22s", "dataset content");
    for (const auto& p : picked)
      std::printf(" %18s", p.datasetHash.empty() ? "?" : p.datasetHash.substr(0, 12).c_str());
    std::printf("\n%-22s", "host");
    for (const auto& p : picked) std::printf(" %18s", p.host.empty() ? "?" : p.host.c_str());
    std::printf("\n");
    for (size_t i = 0; i < labelDiffs.size(); ++i) {
      const auto& d = labelDiffs[i];
      std::printf("\nlabel files: %s against %s: ", picked[i + 1].name.c_str(),
                  picked[0].name.c_str());
      if (d.basis == stave::data::LabelFilesDiff::Basis::Unknown) {
        std::printf("%s\n", labelDiffBasis(d).c_str());
        continue;
      }
      std::printf("%zu differ (%s)%s\n", d.files.size(), labelDiffBasis(d).c_str(),
                  d.outsideLog ? "; the datasets differ outside the edit log" : "");
      for (size_t k = 0; k < d.files.size() && k < 50; ++k)
        std::printf("  %s\n", d.files[k].c_str());
      if (d.files.size() > 50) std::printf("  ... and %zu more\n", d.files.size() - 50);
    }
    if (differing.empty())
      std::printf("\nconfigs: identical\n");
    else
      std::printf("\nconfig keys that differ (equal ones hidden):\n");
    for (const auto& [key, values] : differing) {
      std::printf("%-22s", key.c_str());
      for (const auto& v : values) std::printf(" %18s", v.c_str());
      std::printf("\n");
    }
    return stave::cli::kOk;
  }

  const auto all = store->runs();
  if (!o.csv.empty()) {
    std::ostringstream os;
    os << "name,status,started,duration_s,model,imgsz,batch,world_size,epochs_done,epochs,"
          "best_map50,best_map50_95,samples_per_s,tags\n";
    for (const auto& r : all) {
      const auto j = runJson(r);
      std::string tags;
      for (const auto& t : r.tags) tags += (tags.empty() ? "" : ";") + t;
      os << csvField(r.name) << ',' << r.status << ',' << r.started << ','
         << j["duration_s"].get<double>() << ',' << csvField(r.model) << ',' << r.imgsz << ','
         << r.batch << ',' << r.worldSize << ',' << r.epochsDone << ',' << r.epochs << ','
         << r.bestMap50 << ',' << r.bestMap5095 << ',' << r.samplesPerSec << ',' << csvField(tags)
         << "\n";
    }
    if (auto s = stave::writeFileAtomic(o.csv, os.str()); !s) {
      std::cerr << "stave-train history: " << s.errorText() << "\n";
      return 2;
    }
  }
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : all) out.push_back(runJson(r));
    std::cout << out.dump(2) << "\n";
    return stave::cli::kOk;
  }
  std::printf("%-24s %-13s %9s %9s %10s %10s %10s  %s\n", "run", "status", "duration", "epochs",
              "mAP50", "mAP50-95", "samples/s", "tags");
  for (const auto& r : all) {
    std::string tags;
    for (const auto& t : r.tags) tags += (tags.empty() ? "" : ",") + t;
    std::printf("%-24s %-13s %9s %9s %10.4f %10.4f %10.1f  %s\n", r.name.c_str(), r.status.c_str(),
                duration(r).c_str(),
                (std::to_string(r.epochsDone) + "/" + std::to_string(r.epochs)).c_str(),
                r.bestMap50, r.bestMap5095, r.samplesPerSec, tags.c_str());
  }
  if (all.empty()) std::printf("(no runs yet in %s)\n", runs.c_str());
  return stave::cli::kOk;
}

stave::cli::RunFunction setup(CLI::App& app) {
  auto o = std::make_shared<HistoryOptions>();
  app.add_option("PROJECT", o->project, "a .stave file or its folder")->type_name("")->required();
  app.add_option("RUN", o->runs, "runs to compare: folder names or unique prefixes")->type_name("");
  app.add_flag("--compare", o->compare,
               "compare two or more runs: best mAP, epochs, samples/s, dataset, host, the "
               "label files their datasets differ in (the edit log) and the config keys that "
               "differ");
  app.add_flag("--json", o->json, "print as JSON");
  app.add_option("--csv", o->csv, "also write the run table as CSV")->type_name("FILE");
  app.add_flag("--force", o->force, "let --csv replace an existing file");
  app.add_flag("--rebuild", o->rebuild,
               "recreate the database from the runs' event logs (the old file is kept as "
               "stave.db.broken-<time>)");
  return [o] { return run(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "history", "the project's runs from its history database (table, JSON, CSV, compare)",
    "stave-train history PROJECT [--json] [--csv FILE [--force]] [--rebuild]\n"
    "       stave-train history PROJECT --compare RUN RUN ... [--json]",
    "The database is <folder>/stave.db, brought up to date with <folder>/runs/*/events.jsonl\n"
    "first. Runs are named by folder name or a unique prefix.",
    setup});
