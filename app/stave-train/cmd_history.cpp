// stave-train history: the project's experiment history (SQLite, <project>/stave.db), brought
// up to date with runs/*/events.jsonl first.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/stave-train/command.h"
#include "core/config/output_path.h"
#include "core/base/atomic_file.h"
#include "core/config/project.h"
#include "core/store/store.h"

namespace fs = std::filesystem;

namespace {

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

int run(const std::vector<std::string>& args) {
  const std::string name = "history";
  stave::cli::Args a(args, {"csv"}, {"json", "rebuild", "compare", "force"});
  if (!a.ok()) return stave::cli::usageError(name, a.error());
  if (a.positional().empty()) return stave::cli::usageError(name, "give a project (.stave or folder)");
  std::string projectDir = a.positional()[0];
  std::error_code ec;
  if (!fs::is_directory(projectDir, ec)) {
    auto project = stave::config::loadProject(projectDir);
    if (!project) {
      for (const auto& e : project.errors()) std::cerr << "stave-train history: " << e.toString() << "\n";
      return 2;
    }
    projectDir = project->folder();
  }
  const std::string db = stave::store::Store::defaultPath(projectDir);
  const std::string runs = (fs::path(projectDir) / "runs").string();
  if (a.has("csv")) {
    if (auto st = stave::checkOutputFile(a.value("csv"), {a.positional()[0], db, runs},
                                         a.has("force"), "--csv");
        !st) {
      std::cerr << "stave-train history: " << st.errorText() << "\n";
      return 2;
    }
  }

  stave::store::IngestReport report;
  std::unique_ptr<stave::store::Store> store;
  if (a.has("rebuild")) {
    auto s = stave::store::rebuildStore(db, runs, &report);
    if (!s) {
      std::cerr << "stave-train history: " << s.errorText() << "\n";
      return 2;
    }
    store = std::move(s.value());
    std::cerr << "rebuilt " << db << " from " << report.runsUpdated << " runs ("
              << report.events << " events)\n";
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
  for (const auto& w : report.warnings) std::cerr << "warning: " << w << "\n";

  if (a.has("compare")) {
    const auto& pos = a.positional();
    if (pos.size() < 3) return stave::cli::usageError(name, "--compare needs two or more runs");
    std::vector<stave::store::RunRecord> picked;
    for (size_t i = 1; i < pos.size(); ++i) {
      auto r = store->findRun(pos[i]);
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
    if (a.has("json")) {
      nlohmann::json out;
      out["runs"] = nlohmann::json::array();
      for (const auto& p : picked) out["runs"].push_back(runJson(p));
      out["config_diff"] = differing;
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
    for (const auto& p : picked) std::printf(" %18s", (std::to_string(p.epochsDone) + "/" + std::to_string(p.epochs)).c_str());
    std::printf("\n%-22s", "samples/s");
    for (const auto& p : picked) std::printf(" %18.1f", p.samplesPerSec);
    std::printf("\n%-22s", "dataset content");
    for (const auto& p : picked)
      std::printf(" %18s", p.datasetHash.empty() ? "?" : p.datasetHash.substr(0, 12).c_str());
    std::printf("\n%-22s", "host");
    for (const auto& p : picked) std::printf(" %18s", p.host.empty() ? "?" : p.host.c_str());
    std::printf("\n");
    if (differing.empty()) std::printf("\nconfigs: identical\n");
    else std::printf("\nconfig keys that differ (equal ones hidden):\n");
    for (const auto& [key, values] : differing) {
      std::printf("%-22s", key.c_str());
      for (const auto& v : values) std::printf(" %18s", v.c_str());
      std::printf("\n");
    }
    return stave::cli::kOk;
  }

  const auto all = store->runs();
  if (a.has("csv")) {
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
    if (auto s = stave::writeFileAtomic(a.value("csv"), os.str()); !s) {
      std::cerr << "stave-train history: " << s.errorText() << "\n";
      return 2;
    }
  }
  if (a.has("json")) {
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

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "history", "the project's runs from its history database (table, JSON, CSV, compare)",
    "stave-train history PROJECT [--json] [--csv FILE [--force]] [--rebuild]\n"
    "       stave-train history PROJECT --compare RUN RUN ... [--json]\n"
    "  PROJECT: a .stave file or its folder. The database is <folder>/stave.db, brought up to\n"
    "  date with <folder>/runs/*/events.jsonl first; --rebuild recreates it from them (the old\n"
    "  file is kept as stave.db.broken-<time>). Runs are named by folder name or a unique prefix.",
    run});
