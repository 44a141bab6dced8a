// The runs/ folder as the history lists it: an entry that cannot be looked at (a link to
// itself, a loop of links, a run whose events.jsonl is such a link) is named in a warning and
// passed over; the other runs are listed, by ingestRuns and by a rebuild.
#include <QtTest/QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/store/store.h"
#include "core/telemetry/events.h"

using namespace stave::store;
namespace fs = std::filesystem;
namespace tel = stave::telemetry;

namespace {

/// A finished one-epoch run named `name`.
std::string runEvents(const std::string& name) {
  std::string s;
  tel::RunStartEvent rs;
  rs.config = {{"model", "yolov8n"}, {"epochs", 1}, {"name", name}};
  auto start = tel::toEvent(rs, 0);
  start.time = 1000;
  s += tel::encodeEvent(start) + "\n";
  tel::FinishedEvent f;
  f.epochs = 1;
  f.epochsCompleted = 1;
  auto end = tel::toEvent(f, 0);
  end.time = 1010;
  s += tel::encodeEvent(end) + "\n";
  return s;
}

void writeRun(const fs::path& runs, const std::string& name) {
  fs::create_directories(runs / name);
  std::ofstream(runs / name / "events.jsonl", std::ios::binary) << runEvents(name);
}

std::vector<std::string> names(Store& s) {
  std::vector<std::string> n;
  for (const auto& run : s.runs()) n.push_back(run.name);
  std::sort(n.begin(), n.end());
  return n;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  return all;
}

}  // namespace

class TstStoreListing : public QObject {
  Q_OBJECT
 private slots:
  void linkLoopsArePassedOver() {
    QTemporaryDir dir;
    const fs::path runs = fs::path(dir.path().toStdString()) / "runs";
    writeRun(runs, "a_run");
    writeRun(runs, "z_run");
    fs::create_symlink("self", runs / "self");  // a link to itself
    fs::create_symlink("loop_b", runs / "loop_a");
    fs::create_symlink("loop_a", runs / "loop_b");
    fs::create_directories(runs / "m_events_loop");
    fs::create_symlink("events.jsonl", runs / "m_events_loop" / "events.jsonl");
    fs::create_symlink("nowhere", runs / "dangling");  // not a run: passed over silently

    auto s = Store::open(Store::defaultPath(dir.path().toStdString()));
    QVERIFY2(s.ok(), s.errorText().c_str());
    auto r = s.value()->ingestRuns(runs.string());
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(names(*s.value()), (std::vector<std::string>{"a_run", "z_run"}));
    const std::string warnings = joined(r->warnings);
    for (const char* name : {"self: not read: ", "loop_a: not read: ", "loop_b: not read: ",
                             "m_events_loop: not read: "})
      QVERIFY2(warnings.find(name) != std::string::npos, warnings.c_str());
    QVERIFY2(warnings.find((runs / "self").string()) != std::string::npos, warnings.c_str());
    QVERIFY2(warnings.find((runs / "m_events_loop" / "events.jsonl").string()) != std::string::npos,
             warnings.c_str());
    QVERIFY2(warnings.find("dangling") == std::string::npos, warnings.c_str());
    s.value().reset();

    IngestReport report;
    auto rebuilt =
        rebuildStore(Store::defaultPath(dir.path().toStdString()), runs.string(), &report);
    QVERIFY2(rebuilt.ok(), rebuilt.errorText().c_str());
    QCOMPARE(names(*rebuilt.value()), (std::vector<std::string>{"a_run", "z_run"}));
    QVERIFY(joined(report.warnings).find("self: not read: ") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TstStoreListing)
#include "tst_store_listing.moc"
