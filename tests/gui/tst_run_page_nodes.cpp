// A run of two nodes on the Run page (issue 45 §2): node 1's GPU samples, which node 0's
// launcher wrote into the run's events.jsonl, are drawn beside node 0's, each GPU named with its
// node ("node 1 GPU 0"), in English and Chinese; each node's CPU and memory on the system
// chart; the status bar summarises per node. A run of one node keeps "GPU 0". The runs are
// written by the generator of tests/bench/long_run_src (two GPUs a node, samples labelled by
// node as the launchers write them).
#include <algorithm>

#include <QProgressBar>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTranslator>
#include <QtTest>

#include "common/project_fixture.h"
#include "core/studio/engine_text.h"
#include "core/telemetry/hardware_names.h"
#include "long_run.h"
#include "widgets/live_chart.h"
#include "widgets/main_window.h"
#include "widgets/run_page.h"

using stave::widgets::LiveChart;

namespace {

QStringList seriesNames(LiveChart* c) {
  QStringList names;
  for (int i = 0; i < c->seriesCount(); ++i) names << c->seriesName(i);
  return names;
}

/// Whether every series of `c` named in `names` exists and holds points.
bool drawn(LiveChart* c, const QStringList& names) {
  const QStringList have = seriesNames(c);
  for (const auto& n : names) {
    const int i = have.indexOf(n);
    if (i < 0 || c->pointCount(i) == 0) return false;
  }
  return true;
}

/// The status bar's GPU bars' texts ("node 1: 93%").
QStringList barTexts(stave::widgets::MainWindow& w) {
  QStringList out;
  for (auto* bar : w.statusBar()->findChildren<QProgressBar*>())
    if (bar->isVisibleTo(&w)) out << bar->text();
  return out;
}

/// Empty when the visible status-bar bars show their whole text with room at each end and
/// stand side by side; else what is wrong. A fixed 90 px bar left "node 0: 90%" touching its
/// edges, and the status bar's spare width spread the bars far apart.
QString barLayoutProblem(stave::widgets::MainWindow& w) {
  QList<QProgressBar*> bars;
  for (auto* bar : w.statusBar()->findChildren<QProgressBar*>())
    if (bar->isVisibleTo(&w)) bars << bar;
  std::sort(bars.begin(), bars.end(), [](auto* a, auto* b) { return a->x() < b->x(); });
  for (int i = 0; i < bars.size(); ++i) {
    QString widest = bars[i]->text();
    widest.replace(QRegularExpression(QStringLiteral("\\d+%")), QStringLiteral("100%"));
    const int room = bars[i]->width() - bars[i]->fontMetrics().horizontalAdvance(widest);
    if (room < 16)
      return QStringLiteral("\"%1\" has %2 px to spare").arg(bars[i]->text()).arg(room);
    if (i > 0) {
      const int gap = bars[i]->x() - (bars[i - 1]->x() + bars[i - 1]->width());
      if (gap > 12)
        return QStringLiteral("%1 px between bar %2 and bar %3").arg(gap).arg(i - 1).arg(i);
    }
  }
  return {};
}

}  // namespace

class TstRunPageNodes : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;
  QString m_two, m_one;

  QString writeRun(const QString& name, int nodes, int ranks) {
    stave::bench::LongRunOptions o;
    o.hours = 0.01;  // 36 s: a step and a sample every 2 s
    o.plannedHours = 1;
    o.ranks = ranks;
    o.nodes = nodes;
    o.cores = 4;
    o.stepPeriodS = 2;
    o.samplePeriodS = 2;
    o.epochMinutes = 10;
    o.finished = false;  // running: the status bar shows its GPUs
    o.name = name.toStdString();
    const QString run = m_dir.filePath("runs/" + name);
    QDir().mkpath(run);
    stave::bench::LongRunStats stats;
    std::string error;
    if (!stave::bench::writeLongRun(o, (run + "/events.jsonl").toStdString(), &stats, &error))
      qFatal("%s", error.c_str());
    return run;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    m_project = stave::testing::makeProject(m_dir);
    m_two = writeRun("two-nodes", 2, 4);
    m_one = writeRun("one-node", 1, 2);
  }

  void everyNodesGpusByName_data() {
    QTest::addColumn<QString>("language");
    QTest::newRow("en") << "en";
    QTest::newRow("zh_CN") << "zh_CN";
  }

  void everyNodesGpusByName() {
    QFETCH(QString, language);
    QTranslator translator;
    if (language != QLatin1String("en")) {
      QVERIFY(translator.load(QLocale(language), QStringLiteral("stave"), QStringLiteral("_"),
                              QStringLiteral(":/i18n")));
      QCoreApplication::installTranslator(&translator);
    }
    const auto untranslate = qScopeGuard([&] { QCoreApplication::removeTranslator(&translator); });
    namespace tel = stave::telemetry;
    const auto gpu = [](int node, int index) {
      return stave::studio::engineText(tel::gpuNameText(node, index, true));
    };
    const auto node = [](int n) { return stave::studio::engineText(tel::nodeNameText(n)); };
    const QStringList gpus{gpu(0, 0), gpu(0, 1), gpu(1, 0), gpu(1, 1)};
    if (language == QLatin1String("en")) {
      QCOMPARE(gpus, (QStringList{"node 0 GPU 0", "node 0 GPU 1", "node 1 GPU 0", "node 1 GPU 1"}));
    } else {
      QVERIFY2(gpus[3].contains(QStringLiteral("节点")), qPrintable(gpus[3]));
    }

    stave::widgets::MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(w.openProject(m_project));
    w.showPage(3);
    auto* page = w.runPage();
    QVERIFY(page->showRun(m_two));
    for (const char* name : {"gpuUtil", "gpuMem", "gpuPower"}) {
      LiveChart* c = page->chart(QString::fromLatin1(name));
      QTRY_VERIFY2_WITH_TIMEOUT(drawn(c, gpus), qPrintable(seriesNames(c).join(", ")), 60000);
      QCOMPARE(c->seriesCount(), 4);  // node 1's GPU 0 is not node 0's
    }
    QCOMPARE(page->runNodes(), 2);
    // Each node's CPU and memory.
    LiveChart* sys = page->chart(QStringLiteral("system"));
    const QString cpu1 = stave::widgets::RunPage::tr("%1 %2").arg(node(1), stave::widgets::RunPage::tr("CPU"));
    QTRY_VERIFY2_WITH_TIMEOUT(drawn(sys, {cpu1}), qPrintable(seriesNames(sys).join(", ")), 60000);
    QCOMPARE(sys->seriesCount(), 4);
    // The status bar: one bar per node ("node 1: 92%", the colon as the language writes it).
    const auto barPrefix = [](const QString& name) {
      return stave::widgets::MainWindow::tr("%1: %p%").arg(name).section(QStringLiteral("%p"), 0, 0);
    };
    QTRY_VERIFY2_WITH_TIMEOUT(barTexts(w).size() == 2 && barTexts(w)[1].startsWith(barPrefix(node(1))),
                              qPrintable(barTexts(w).join(" | ")), 30000);
    QTRY_VERIFY2_WITH_TIMEOUT(barLayoutProblem(w).isEmpty(), qPrintable(barLayoutProblem(w)), 10000);

    // A run of one node: "GPU 0", one bar per GPU.
    QVERIFY(page->showRun(m_one));
    LiveChart* util = page->chart(QStringLiteral("gpuUtil"));
    const QStringList one{stave::studio::engineText(tel::gpuNameText(0, 0, false)),
                          stave::studio::engineText(tel::gpuNameText(0, 1, false))};
    QCOMPARE(one[0], QStringLiteral("GPU 0"));
    QTRY_VERIFY2_WITH_TIMEOUT(drawn(util, one) && util->seriesCount() == 2,
                              qPrintable(seriesNames(util).join(", ")), 60000);
    QCOMPARE(page->runNodes(), 1);
    QTRY_VERIFY2_WITH_TIMEOUT(barTexts(w).size() == 2 && barTexts(w)[0].startsWith(barPrefix(one[0])),
                              qPrintable(barTexts(w).join(" | ")), 30000);
  }
};

QTEST_MAIN(TstRunPageNodes)
#include "tst_run_page_nodes.moc"
