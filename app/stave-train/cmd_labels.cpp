// stave-train labels log / revert / fix: the history of a dataset's label edits (the edit log
// beside the dataset, core/data/label_edits.h), listed and undone, and the ranked issues of
// `label-issues` fixed in one session (core/data/label_fix_batch.h).
#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "app/stave-train/command.h"
#include "core/data/dataset.h"
#include "core/data/label_edits.h"
#include "core/data/label_fix_batch.h"
#include "core/data/label_issues.h"

namespace fs = std::filesystem;

namespace {

struct LabelsOptions {
  std::string dataset;
  std::string session;
  std::string edit;
  std::string file;
  bool json = false;
  bool diff = false;
};

// DATASET is a data.yaml (its `path` is the root) or the dataset's folder itself.
stave::Result<std::string> datasetRoot(const std::string& dataset) {
  std::error_code ec;
  if (fs::is_directory(dataset, ec)) return dataset;
  if (!fs::exists(dataset, ec))
    return stave::Error{dataset, 0, "", "no such dataset folder or data.yaml"};
  auto spec = stave::data::loadDataYaml(dataset);
  if (!spec) return spec.errors();
  return spec->root;
}

std::string utc(double t) {
  const std::time_t s = std::time_t(t);
  std::tm tm{};
  gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%SZ", &tm);
  return buf;
}

void printEdit(const stave::data::LabelEdit& e, bool diff) {
  std::cout << e.id << "  " << utc(e.time) << "  " << e.host << "  " << e.process << "  " << e.file
            << "  -" << e.oldLines.size() << " +" << e.newLines.size();
  if (!e.oldExisted) std::cout << " (created)";
  if (!e.newExists) std::cout << " (removed)";
  if (!e.revertOf.empty()) std::cout << "  reverts " << e.revertOf;
  std::cout << "\n";
  if (!diff) return;
  for (const auto& l : e.oldLines) std::cout << "    - " << l << "\n";
  for (const auto& l : e.newLines) std::cout << "    + " << l << "\n";
}

int runLog(const LabelsOptions& o) {
  const std::string name = "labels log";
  auto root = datasetRoot(o.dataset);
  if (!root) return stave::cli::reportErrors(name, root.errors());
  stave::data::LabelStore store(root.value(), "stave-train");
  const auto log = store.log();
  for (const auto& p : log.problems)
    std::cerr << "stave-train " << name << ": warning: " << p.toString() << "\n";
  std::set<std::string> sessions;
  size_t shown = 0;
  for (const auto& e : log.edits) {
    if (!o.session.empty() && e.session != o.session) continue;
    if (!o.file.empty() && e.file != o.file && e.file != store.relative(o.file)) continue;
    ++shown;
    sessions.insert(e.session);
    if (o.json)
      std::cout << stave::data::editToJson(e) << "\n";
    else
      printEdit(e, o.diff);
  }
  if (!o.json)
    std::cout << shown << " edit(s) in " << sessions.size() << " session(s); log "
              << store.logPath() << "\n";
  if (!o.session.empty() && shown == 0) {
    std::cerr << "stave-train " << name << ": error: no edits of session " << o.session << " in "
              << store.logPath() << "\n";
    return stave::cli::kProblems;
  }
  return stave::cli::kOk;
}

int runRevert(const LabelsOptions& o) {
  const std::string name = "labels revert";
  if (o.edit.empty() == o.session.empty())
    return stave::cli::usageError(name, "give either --edit ID or --session S");
  auto root = datasetRoot(o.dataset);
  if (!root) return stave::cli::reportErrors(name, root.errors());
  stave::data::LabelStore store(root.value(), "stave-train");
  auto r = o.edit.empty() ? store.revertSession(o.session) : store.revertEdit(o.edit);
  if (!r) {
    for (const auto& e : r.errors())
      std::cerr << "stave-train " << name << ": error: " << e.toString() << "\n";
    return stave::cli::kProblems;
  }
  for (const auto& e : r.value()) printEdit(e, false);
  std::cout << r->size() << " file(s) written back; this revert is session " << store.session()
            << " (revert it to redo)\n";
  return stave::cli::kOk;
}

struct FixOptions {
  std::string csv;
  std::string data;
  std::string dataset;
  int top = 0;
  std::string kinds = "overlooked,swapped,located,spurious";
  double minScore = 0;
  bool dryRun = false;
  bool json = false;
};

// "overlooked,swapped,located,spurious" (badly_located also spelt out) into kinds.
bool parseKinds(const std::string& text, std::vector<stave::data::IssueKind>& kinds,
                std::string& bad) {
  kinds.clear();
  std::stringstream in(text);
  std::string k;
  while (std::getline(in, k, ',')) {
    stave::data::IssueKind kind{};
    if (k == "located") k = "badly_located";
    if (!stave::data::parseIssueKind(k, kind)) {
      bad = k;
      return false;
    }
    kinds.push_back(kind);
  }
  return !kinds.empty();
}

const char* statusName(stave::data::IssueFixOutcome::Status s) {
  using S = stave::data::IssueFixOutcome::Status;
  switch (s) {
    case S::Fixed:
      return "fixed";
    case S::WouldFix:
      return "would_fix";
    case S::Refused:
      return "refused";
    case S::Failed:
      return "failed";
  }
  return "?";
}

// What the fix did, in words: "class 1 -> 4", "box added", ...
std::string change(const stave::data::IssueRow& r) {
  using K = stave::data::IssueKind;
  switch (r.kind) {
    case K::Overlooked:
      return "box of class " + std::to_string(r.predictedClass) + " added";
    case K::Swapped:
      return "class " + std::to_string(r.labelClass) + " -> " + std::to_string(r.predictedClass);
    case K::BadlyLocated:
      return "box of class " + std::to_string(r.labelClass) + " moved to the prediction";
    case K::Spurious:
      return "box of class " + std::to_string(r.labelClass) + " deleted";
  }
  return "";
}

int runFix(const FixOptions& o) {
  const std::string name = "labels fix";
  if (!o.data.empty() && !o.dataset.empty())
    return stave::cli::usageError(name, "give data=D.yaml or --dataset DIR, not both");
  if (o.data.empty() && o.dataset.empty())
    return stave::cli::usageError(name, "name the dataset: data=D.yaml or --dataset DIR");
  stave::data::IssueFixSelection sel;
  std::string bad;
  if (!parseKinds(o.kinds, sel.kinds, bad))
    return stave::cli::usageError(
        name, "--kinds: '" + bad + "' is none of overlooked, swapped, located, spurious");
  sel.top = o.top;
  sel.minScore = o.minScore;
  sel.dryRun = o.dryRun;
  auto root = datasetRoot(o.data.empty() ? o.dataset : o.data);
  if (!root) return stave::cli::reportErrors(name, root.errors());
  stave::data::LabelStore store(root.value(), "stave-train");
  auto r = stave::data::fixLabelIssues(o.csv, sel, store);
  if (!r) return stave::cli::reportErrors(name, r.errors(), o.json);
  for (const auto& w : r->warnings)
    std::cerr << "stave-train " << name << ": warning: " << w.toString() << "\n";
  using S = stave::data::IssueFixOutcome::Status;
  const int fixed = r->count(S::Fixed), would = r->count(S::WouldFix);
  const int refused = r->count(S::Refused), failed = r->count(S::Failed);
  if (o.json) {
    nlohmann::json j = {{"session", fixed > 0 ? r->session : std::string()},
                        {"dry_run", o.dryRun},
                        {"fixed", fixed},
                        {"would_fix", would},
                        {"refused", refused},
                        {"failed", failed},
                        {"not_an_issue", r->dismissed},
                        {"log", store.logPath()},
                        {"issues", nlohmann::json::array()}};
    for (const auto& out : r->outcomes) {
      nlohmann::json i = {{"line", out.issue.line},
                          {"image", out.issue.image},
                          {"kind", stave::data::issueKindName(out.issue.kind)},
                          {"label_class", out.issue.labelClass},
                          {"predicted_class", out.issue.predictedClass},
                          {"score", out.issue.score},
                          {"status", statusName(out.status)},
                          {"label_file", store.relative(out.labelFile)},
                          {"old", out.oldLines},
                          {"new", out.newLines}};
      if (!out.editId.empty()) i["edit"] = out.editId;
      if (!out.reason.empty()) i["reason"] = out.reason;
      j["issues"].push_back(i);
    }
    std::cout << j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    for (const auto& out : r->outcomes) {
      std::cout << statusName(out.status) << "  " << out.issue.image << "  "
                << stave::data::issueKindName(out.issue.kind) << "  " << change(out.issue) << "  ("
                << store.relative(out.labelFile);
      if (!out.editId.empty()) std::cout << ", edit " << out.editId;
      std::cout << ")\n";
      if (!out.reason.empty()) std::cout << "    " << out.reason << "\n";
    }
    if (o.dryRun)
      std::cout << would << " issue(s) would be fixed; nothing written (--dry-run)";
    else
      std::cout << fixed << " issue(s) fixed";
    if (refused) std::cout << ", " << refused << " refused (label file changed since)";
    if (failed) std::cout << ", " << failed << " not applicable";
    if (r->dismissed) std::cout << ", " << r->dismissed << " marked not an issue left out";
    std::cout << "\n";
    if (fixed > 0)
      std::cout << "session " << r->session << " in " << store.logPath()
                << "; undo all with: stave-train labels revert " << root.value() << " --session "
                << r->session << "\n";
  }
  return refused + failed > 0 ? stave::cli::kProblems : stave::cli::kOk;
}

stave::cli::RunFunction setupFix(CLI::App& app) {
  auto o = std::make_shared<FixOptions>();
  app.add_option("ISSUES", o->csv, "the issues CSV that label-issues wrote")
      ->type_name("ISSUES.csv")
      ->required();
  app.add_option("--data", o->data, "the dataset the issues were found on")->type_name("D.yaml");
  app.add_option("--dataset", o->dataset, "the dataset's root folder (instead of data=)")
      ->type_name("DIR");
  app.add_option("--top", o->top, "fix the first N selected issues in the CSV's ranking (0: all)")
      ->type_name("N")
      ->check(stave::cli::atLeast(0))
      ->capture_default_str();
  app.add_option("--kinds", o->kinds, "the kinds fixed, comma separated")
      ->type_name("K,K")
      ->capture_default_str();
  app.add_option("--min-score", o->minScore, "leave issues scoring below this alone")
      ->type_name("S")
      ->capture_default_str();
  app.add_flag("--dry-run", o->dryRun, "print what would change; write nothing");
  app.add_flag("--json", o->json, "print the outcome of each issue as JSON");
  return [o] { return runFix(*o); };
}

stave::cli::RunFunction setupLog(CLI::App& app) {
  auto o = std::make_shared<LabelsOptions>();
  app.add_option("DATASET", o->dataset, "the dataset: its data.yaml or its root folder")
      ->required();
  app.add_option("--session", o->session, "only the edits of this session")->type_name("S");
  app.add_option("--file", o->file, "only the edits of this label file")->type_name("FILE");
  app.add_flag("--diff", o->diff, "print each edit's old (-) and new (+) lines");
  app.add_flag("--json", o->json, "print the edits as the log's JSON lines");
  return [o] { return runLog(*o); };
}

stave::cli::RunFunction setupRevert(CLI::App& app) {
  auto o = std::make_shared<LabelsOptions>();
  app.add_option("DATASET", o->dataset, "the dataset: its data.yaml or its root folder")
      ->required();
  app.add_option("--edit", o->edit, "undo this edit (an id from `labels log`)")->type_name("ID");
  app.add_option("--session", o->session, "undo every edit of this session")->type_name("S");
  return [o] { return runRevert(*o); };
}

}  // namespace

STAVE_COMMAND(stave::cli::Command{
    "labels log", "list the label edits recorded beside a dataset (file, lines, when, where)",
    "stave-train labels log DATASET [--session S] [--file FILE] [--diff] [--json]",
    "DATASET is a data.yaml or the dataset's root folder. The log is\n"
    "<root>/.stave/label-edits.jsonl; originals are kept in <root>/.stave/labels-original/.\n"
    "Each line: id, time (UTC), host, process, file, -old +new line counts. See docs/labels.md.",
    setupLog});

STAVE_COMMAND(stave::cli::Command{
    "labels revert", "undo one label edit or a whole session of them, recorded as a new edit",
    "stave-train labels revert DATASET (--edit ID | --session S)",
    "A file changed since the edit (by a later edit or another program) is not overwritten:\n"
    "the revert is refused with the reason (a session's revert writes nothing then). Exit\n"
    "codes: 0 reverted, 1 refused, 2 bad command line or dataset.",
    setupRevert});

STAVE_COMMAND(stave::cli::Command{
    "labels fix",
    "apply the ranked label issues' fixes (add, reclass, move or delete boxes) in one session",
    "stave-train labels fix ISSUES.csv (data=D.yaml | --dataset DIR) [--top N]\n"
    "                [--kinds overlooked,swapped,located,spurious] [--min-score S] [--dry-run]\n"
    "                [--json]",
    "Each issue gets its natural fix: overlooked adds the predicted box, swapped takes the\n"
    "predicted class, badly located takes the predicted box (from ISSUES.csv.json, which\n"
    "label-issues writes beside the CSV), spurious deletes the box. Issues marked \"not an\n"
    "issue\" in the studio are left out. A label file changed since the CSV was made (its\n"
    "content hash in ISSUES.csv.json, else modified after the CSV) is refused, named, and not\n"
    "touched. Files are written atomically, originals kept, every fix in the edit log as one\n"
    "session: `labels revert DATASET --session S` undoes them all. Exit codes: 0 all fixed,\n"
    "1 some refused or not applicable (the rest fixed), 2 bad command line or input.",
    setupFix, /*keyValueOptions=*/true});
