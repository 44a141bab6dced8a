// Did training move? A short fixed-seed run on the demo data (200 optimiser steps of yolov8n at
// imgsz 96, one thread, deterministic) is compared with the trajectory stored in
// tests/e2e/golden/yolov8n_cpu.json: every epoch's mean losses and learning rates, the step
// events both runs logged, and the norm of every trained tensor (model and EMA). The same for
// two Gloo ranks, and for a run stopped after 12 epochs and resumed: its weights equal the
// uninterrupted run's exactly and it lands on the same trajectory.
//
// Tolerances: learning rates are arithmetic (relative 1e-9); losses and norms relative 2e-3 —
// on one machine the runs are bitwise equal (two runs of this build: max difference 0), the
// slack is for another CPU's kernels. A change that moves training fails here and must update
// the reference in a commit of its own that says why:
//   STAVE_GOLDEN_UPDATE=1 ctest -R e2e_tst_train_golden
// rewrites the file in the source tree (and the test then passes on its own output).
#include <QtTest/QtTest>

#include <cmath>

#include "e2e/train_e2e_util.h"

using namespace stave::e2e;

namespace {

constexpr double kLossTol = 2e-3;
constexpr double kLrTol = 1e-9;
constexpr double kNormTol = 2e-3;

QString referencePath() { return QStringLiteral(STAVE_SOURCE_DIR "/tests/e2e/golden/yolov8n_cpu.json"); }
bool updating() { return qEnvironmentVariableIntValue("STAVE_GOLDEN_UPDATE") == 1; }

/// What a run did: epoch_end losses and lrs, step events by "epoch.iter", final weight norms.
QJsonObject trajectory(const QString& runDir) {
  QJsonArray epochs;
  QJsonObject steps;
  for (const auto& e : parseEvents(readText(runDir + "/events.jsonl"))) {
    const QJsonObject d = e["data"].toObject();
    if (e["type"] == "epoch_end") {
      QJsonArray row{d["epoch"], d["box_loss"], d["cls_loss"], d["dfl_loss"]};
      for (const auto& lr : d["lr"].toArray()) row.append(lr);
      epochs.append(row);
    } else if (e["type"] == "step" && e["rank"].toInt() == 0) {
      steps[QString("%1.%2").arg(d["epoch"].toInt()).arg(d["iter"].toInt())] =
          QJsonArray{d["box_loss"], d["cls_loss"], d["dfl_loss"], d["lr"]};
    }
  }
  auto norms = runStaveTrain({"compare-weights", runDir + "/weights/last.pt", "--norms", "--json"});
  QJsonObject out{{"epochs", epochs}, {"steps", steps}};
  out["weights"] = QJsonDocument::fromJson(norms.out.toUtf8()).object();
  return out;
}

bool near(double a, double b, double rel) {
  return std::fabs(a - b) <= rel * std::max(std::fabs(b), 1e-6);
}

/// "" when `got` is on `ref`'s trajectory; else the first difference, in words.
QString compare(const QJsonObject& got, const QJsonObject& ref) {
  static const char* cols[] = {"epoch", "box_loss", "cls_loss", "dfl_loss", "lr0", "lr1", "lr2"};
  const QJsonArray ge = got["epochs"].toArray(), re = ref["epochs"].toArray();
  if (ge.size() != re.size())
    return QString("%1 epochs logged, the reference has %2").arg(ge.size()).arg(re.size());
  for (int i = 0; i < re.size(); ++i) {
    const QJsonArray g = ge[i].toArray(), r = re[i].toArray();
    if (g.size() != r.size()) return QString("epoch %1: %2 values, reference %3").arg(i).arg(g.size()).arg(r.size());
    for (int k = 1; k < r.size(); ++k) {
      const double tol = k >= 4 ? kLrTol : kLossTol;
      if (!near(g[k].toDouble(), r[k].toDouble(), tol))
        return QString("epoch %1 %2: %3, the reference %4").arg(i).arg(cols[std::min(k, 6)])
            .arg(g[k].toDouble(), 0, 'g', 10).arg(r[k].toDouble(), 0, 'g', 10);
    }
  }
  // Step events are logged every 0.5 s: compare those both runs have (at least some).
  const QJsonObject gs = got["steps"].toObject(), rs = ref["steps"].toObject();
  int shared = 0;
  for (auto it = rs.begin(); it != rs.end(); ++it) {
    if (!gs.contains(it.key())) continue;
    ++shared;
    const QJsonArray g = gs[it.key()].toArray(), r = it.value().toArray();
    for (int k = 0; k < 4; ++k)
      if (!near(g[k].toDouble(), r[k].toDouble(), k == 3 ? kLrTol : kLossTol))
        return QString("step %1 value %2: %3, the reference %4").arg(it.key()).arg(k)
            .arg(g[k].toDouble(), 0, 'g', 10).arg(r[k].toDouble(), 0, 'g', 10);
  }
  if (shared == 0) return "no step event in common with the reference";
  const QJsonObject gw = got["weights"].toObject(), rw = ref["weights"].toObject();
  for (const char* key : {"model_tensor_l2", "ema_tensor_l2"}) {
    const QJsonArray g = gw[key].toArray(), r = rw[key].toArray();
    if (g.size() != r.size() || r.isEmpty())
      return QString("%1: %2 tensors, the reference %3").arg(key).arg(g.size()).arg(r.size());
    for (int i = 0; i < r.size(); ++i)
      if (!near(g[i].toDouble(), r[i].toDouble(), kNormTol))
        return QString("%1[%2]: %3, the reference %4").arg(key).arg(i)
            .arg(g[i].toDouble(), 0, 'g', 10).arg(r[i].toDouble(), 0, 'g', 10);
  }
  return {};
}

}  // namespace

class TstTrainGolden : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_data = makeDemoDataset(m_dir.filePath("demo"), 64, 16, 128, 7);
    QVERIFY(!m_data.isEmpty());
    m_cfg = m_dir.filePath("golden.yaml");
    // 64 images, batch 8, nbs 8: 8 optimiser steps an epoch, 200 in all; mosaic for 15 epochs,
    // then close_mosaic's 10; warmup over the first epoch; EMA throughout.
    QVERIFY(writeTinyConfig(m_cfg, m_data, 96, 25, 8,
                            {"seed: 0", "deterministic: true", "threads: 1", "workers: 1",
                             "nbs: 8", "warmup_epochs: 1", "close_mosaic: 10", "val: false"}));
    if (!updating()) {
      QFile f(referencePath());
      QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable("no reference: " + referencePath()));
      m_ref = QJsonDocument::fromJson(f.readAll()).object();
      QVERIFY(!m_ref.isEmpty());
    }
  }

  void oneRank() { check("one_rank", train("one", {})); }

  void twoGlooRanks() { check("two_ranks", train("two", {"--nproc", "2"})); }

  // Stopped after 12 of 25 epochs, resumed to the end: the same weights as the uninterrupted
  // run (exactly) and the same trajectory (the epochs after the resume; the log keeps both).
  void resumeInTheMiddle() {
    const QString run = m_dir.filePath("runs/resumed");
    auto first = runStaveTrain({"train", m_cfg, "--run-dir", run, "--stop-after", "12"}, {}, 600000);
    QVERIFY2(first.exitCode == 0, qPrintable(first.err.right(2000)));
    auto rest = runStaveTrain({"train", "--run-dir", run, "resume=true"}, {}, 600000);
    QVERIFY2(rest.exitCode == 0, qPrintable(rest.err.right(2000)));
    const QString one = m_dir.filePath("runs/one/weights/last.pt");
    if (QFile::exists(one)) {
      auto cmp = runStaveTrain({"compare-weights", one, run + "/weights/last.pt", "--json"});
      const auto diff = QJsonDocument::fromJson(cmp.out.toUtf8()).object();
      QVERIFY2(diff["model_max_abs_diff"].toDouble() == 0.0 && diff["ema_max_abs_diff"].toDouble() == 0.0,
               qPrintable("a resumed run is not the uninterrupted one: " + cmp.out));
    }
    if (updating()) return;  // the uninterrupted run's reference is the one to meet
    QJsonObject got = trajectory(run);
    QVERIFY2(compare(got, m_ref["one_rank"].toObject()).isEmpty(),
             qPrintable("resumed: " + compare(got, m_ref["one_rank"].toObject())));
  }

  void cleanupTestCase() {
    if (!updating()) return;
    QJsonObject out{{"how",
                     "written by e2e_tst_train_golden with STAVE_GOLDEN_UPDATE=1: yolov8n, demo data "
                     "(make-demo --train 64 --val 16 --imgsz 128 --seed 7), imgsz 96, batch 8, "
                     "nbs 8, 25 epochs, seed 0, deterministic, threads 1, workers 1, val false"}};
    for (auto it = m_made.begin(); it != m_made.end(); ++it) out[it.key()] = it.value();
    QFile f(referencePath());
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QJsonDocument(out).toJson(QJsonDocument::Indented));
    qInfo("wrote %s", qPrintable(referencePath()));
  }

 private:
  QJsonObject train(const QString& name, const QStringList& extra) {
    const QString run = m_dir.filePath("runs/" + name);
    auto r = runStaveTrain(QStringList{"train", m_cfg, "--run-dir", run} + extra, {}, 600000);
    if (r.exitCode != 0) qWarning("%s", qPrintable(r.err.right(3000)));
    return r.exitCode == 0 ? trajectory(run) : QJsonObject();
  }

  void check(const QString& key, const QJsonObject& got) {
    QVERIFY2(!got.isEmpty(), "the run failed");
    QVERIFY(!got["weights"].toObject().isEmpty());
    if (updating()) {
      m_made[key] = got;
      return;
    }
    const QString diff = compare(got, m_ref[key].toObject());
    QVERIFY2(diff.isEmpty(),
             qPrintable(key + ": training moved: " + diff +
                        ". If the change means to move training, update the reference in a commit "
                        "of its own that says why (STAVE_GOLDEN_UPDATE=1 ctest -R "
                        "e2e_tst_train_golden)."));
  }

  QTemporaryDir m_dir;
  QString m_data, m_cfg;
  QJsonObject m_ref;
  QMap<QString, QJsonObject> m_made;
};

QTEST_GUILESS_MAIN(TstTrainGolden)
#include "tst_train_golden.moc"
