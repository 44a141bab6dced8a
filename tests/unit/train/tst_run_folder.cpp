// The run-folder rules that refuse before anything is written: a resume on another shape whose
// stop inside an epoch cannot continue is refused by checkResume (before config.yaml or an event
// is written, not by the ranks), and a run folder whose lock cannot be taken is not left behind
// empty when this start created it.
#include <QtTest/QtTest>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>

#include "core/config/run_config.h"
#include "core/train/checkpoint.h"
#include "core/train/run_folder.h"

using namespace stave::train;
namespace fs = std::filesystem;

namespace {

/// The open-file limit lowered to the lowest free descriptor for its life: the next open()
/// fails with EMFILE (mkdir and stat still work). Restored on destruction.
class NoMoreFiles {
 public:
  NoMoreFiles() {
    ::getrlimit(RLIMIT_NOFILE, &m_saved);
    const int next = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (next >= 0) ::close(next);
    rlimit low = m_saved;
    low.rlim_cur = static_cast<rlim_t>(next);
    m_ok = next >= 0 && ::setrlimit(RLIMIT_NOFILE, &low) == 0;
  }
  ~NoMoreFiles() { ::setrlimit(RLIMIT_NOFILE, &m_saved); }
  bool ok() const { return m_ok; }

 private:
  rlimit m_saved{};
  bool m_ok = false;
};

/// A run folder with a weights/last.pt written by `world` ranks of `batch` images each, stopped
/// after `epochBatches` batches of its first epoch.
std::string stoppedRun(const QTemporaryDir& dir, const char* name, int world, int batch,
                       int epochBatches, stave::config::RunConfig& config) {
  config.set("batch", int64_t{batch});
  config.set("epochs", int64_t{3});
  config.set("nproc", int64_t{world});
  const std::string runDir = dir.filePath(name).toStdString();
  fs::create_directories(fs::path(runDir) / "weights");
  CheckpointMeta meta;
  meta.epoch = -1;
  meta.epochs = 3;
  meta.worldSize = world;
  meta.epochBatches = epochBatches;
  meta.scale = config.getString("model");
  meta.configYaml = stave::config::toYaml(config);
  if (!saveCheckpoint(runDir + "/weights/last.pt", {}, meta).ok()) return {};
  return runDir;
}

}  // namespace

class TstRunFolder : public QObject {
  Q_OBJECT
 private slots:
  // 1 rank of 2 images stopped after 1 batch (2 images): 2 ranks take 4 images a batch, so the
  // epoch cannot continue after a whole number of them; 3 batches (6 images) on 3 ranks can.
  void resumeOnAnotherShape_data() {
    QTest::addColumn<int>("epochBatches");
    QTest::addColumn<int>("nproc");
    QTest::addColumn<int>("envWorld");  // the rank's environment (srun, torchrun); 0: none
    QTest::addColumn<bool>("refused");
    QTest::newRow("same shape") << 1 << 1 << 0 << false;
    QTest::newRow("2 images on 2 ranks") << 1 << 2 << 0 << true;
    QTest::newRow("4 images on 2 ranks") << 2 << 2 << 0 << false;
    QTest::newRow("6 images on 3 ranks") << 3 << 3 << 0 << false;
    QTest::newRow("at an epoch boundary") << 0 << 2 << 0 << false;
    QTest::newRow("world from the environment") << 1 << 1 << 2 << true;
  }
  void resumeOnAnotherShape() {
    QFETCH(int, epochBatches);
    QFETCH(int, nproc);
    QFETCH(int, envWorld);
    QFETCH(bool, refused);
    QTemporaryDir dir;
    stave::config::RunConfig config = stave::config::RunConfig::defaults();
    const std::string runDir = stoppedRun(dir, "run", 1, 2, epochBatches, config);
    QVERIFY(!runDir.empty());
    stave::config::RunConfig requested = config;
    requested.set("nproc", int64_t{nproc});
    const auto st = checkResume(requested, runDir, envWorld);
    QCOMPARE(!st.ok(), refused);
    if (refused) {
      const std::string text = st.errorText();
      QVERIFY2(text.find(runDir + "/weights/last.pt") != std::string::npos &&
                   text.find("no whole number of batches of 2 ranks") != std::string::npos &&
                   text.find("resume with 1 ranks to finish that epoch") != std::string::npos,
               text.c_str());
    }
  }

  // A start whose lock cannot be taken (here: no file descriptor left, as a file system without
  // locks refuses flock with ENOLCK) removes the folder it created; nothing else is touched.
  void refusedLockLeavesNoHusk() {
    QTemporaryDir dir;
    const std::string fresh = dir.filePath("runs/train").toStdString();
    const std::string worker = dir.filePath("runs/worker").toStdString();
    stave::config::RunConfig config = stave::config::RunConfig::defaults();
    stave::Status taken = stave::Ok{}, lockedWorker = stave::Ok{};
    {
      NoMoreFiles limit;
      QVERIFY(limit.ok());
      auto t = takeRunFolder(config, fresh, false, "test");
      if (!t) taken = t.errors();
      auto w = createAndLockRunFolder(worker, "test worker");
      if (!w) lockedWorker = w.errors();
    }
    QVERIFY(!taken.ok());
    QVERIFY2(taken.errorText().find(fresh) != std::string::npos, taken.errorText().c_str());
    QVERIFY(!fs::exists(fresh));
    QVERIFY(!lockedWorker.ok());
    QVERIFY(!fs::exists(worker));

    // A folder that was there before (given with --run-dir) stays, and so does what is in it.
    const std::string given = dir.filePath("given").toStdString();
    fs::create_directories(given);
    {
      NoMoreFiles limit;
      QVERIFY(limit.ok());
      QVERIFY(!takeRunFolder(config, given, false, "test").ok());
    }
    QVERIFY(fs::is_directory(given));

    // The same starts with descriptors to spare take the folders.
    auto t = takeRunFolder(config, fresh, false, "test");
    QVERIFY2(t.ok(), t.errorText().c_str());
    QVERIFY(fs::is_directory(fresh + "/weights"));
    // A second start into the folder a live run holds is refused, and the folder stays.
    auto second = createAndLockRunFolder(fresh, "second");
    QVERIFY(!second.ok());
    QVERIFY(fs::is_directory(fresh + "/weights"));
  }
};

QTEST_GUILESS_MAIN(TstRunFolder)
#include "tst_run_folder.moc"
