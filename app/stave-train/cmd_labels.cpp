// stave-train labels log / labels revert: the history of a dataset's label edits (the edit log
// beside the dataset, core/data/label_edits.h), listed and undone.
#include <sys/stat.h>

#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>

#include "app/stave-train/command.h"
#include "core/data/dataset.h"
#include "core/data/label_edits.h"

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
