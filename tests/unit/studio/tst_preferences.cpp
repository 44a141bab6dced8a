#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "common/project_fixture.h"
#include "core/studio/project/preferences.h"
#include "core/studio/project/project_document.h"
#include "core/studio/project/cluster_profile.h"

using stave::config::RunConfig;
using stave::studio::Preferences;
using stave::studio::RecentProjects;

// Preferences are declared once, stored in QSettings, checked by the run keys' schema rows, and
// reach the runs the studio starts as key=value overrides.
class TestPreferences : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("StaveTest");
    QCoreApplication::setApplicationName("tst_preferences");
  }
  void init() { QSettings().clear(); }

  // The studio's cluster profile is one generic member table whose keys are core/cluster's:
  // sound, the same keys, and every field survives the trip through core's form.
  void clusterProfileTableMatchesCore() {
    using stave::studio::ClusterProfile;
    const auto& table = stave::studio::clusterProfileFields();
    QVERIFY(stave::config::memberTableProblems(table).empty());
    QStringList mine, core;
    for (const auto& f : table) mine << f.key;
    for (const auto& f : stave::cluster::profileFields()) core << f.key;
    mine.sort();
    core.sort();
    QCOMPARE(mine, core);
    ClusterProfile p;
    int n = 0;
    stave::config::forEachMember(table, [&](const auto& f, auto member) {
      using M = std::decay_t<decltype(p.*member)>;
      if constexpr (std::is_same_v<M, QString>) p.*member = QString("/v%1_%2").arg(++n).arg(f.key);
      else if constexpr (std::is_same_v<M, int>) p.*member = 100 + ++n;
    });
    const ClusterProfile back = ClusterProfile::fromCore(p.toCore());
    QVERIFY(back == p);
    ClusterProfile other = p;
    other.port = 1;
    QVERIFY(!(other == p));
  }

  // Profiles an earlier studio kept in the settings, one key per field, read by the table.
  void clusterProfileFromOldSettings() {
    QSettings s;
    s.beginWriteArray("clusters");
    s.setArrayIndex(0);
    s.setValue("name", "old");
    s.setValue("partition", "gpu");
    s.setValue("gpus_per_node", 4);
    s.setValue("nodes", "not a number");
    s.setValue("run_folder", "/shared/runs");
    s.endArray();
    s.beginReadArray("clusters");
    s.setArrayIndex(0);
    const auto p = stave::studio::clusterProfileFromSettings(s);
    s.endArray();
    QCOMPARE(p.name, QString("old"));
    QCOMPARE(p.partition, QString("gpu"));
    QCOMPARE(p.gpusPerNode, 4);
    QCOMPARE(p.nodes, 1);  // the default: the value does not read
    QCOMPARE(p.runFolder, QString("/shared/runs"));
    QCOMPARE(p.timeLimit, QString("24:00:00"));  // absent: the default
  }

  void defaultsGiveNoOverrides() {
    const auto p = Preferences::load();
    QCOMPARE(p.language, QString());
    QCOMPARE(p.samplePeriodS, RunConfig::defaults().getFloat("sample_period_s"));
    QVERIFY(p.validate().isEmpty());
    QVERIFY(p.runOverrides(RunConfig::defaults()).isEmpty());
  }

  void storedAndRead() {
    Preferences p;
    p.language = "zh_CN";
    p.samplePeriodS = 2;
    p.metricsPort = 9400;
    p.devices = "0,1";
    QVERIFY(p.validate().isEmpty());
    p.save();
    const auto back = Preferences::load();
    QCOMPARE(back.language, QString("zh_CN"));
    QCOMPARE(back.samplePeriodS, 2.0);
    QCOMPARE(back.metricsPort, 9400);
    QCOMPARE(back.devices, QString("0,1"));
  }

  void overridesOnlyWhereTheConfigKeepsDefaults_data() {
    QTest::addColumn<QString>("configKey");
    QTest::addColumn<QStringList>("expected");
    const QStringList all{"sample_period_s=2", "metrics_port=9400", "devices=cpu"};
    QTest::newRow("config at defaults") << QString() << all;
    QTest::newRow("config sets metrics_port")
        << "metrics_port" << QStringList{"sample_period_s=2", "devices=cpu"};
    QTest::newRow("config sets devices")
        << "devices" << QStringList{"sample_period_s=2", "metrics_port=9400"};
  }
  void overridesOnlyWhereTheConfigKeepsDefaults() {
    QFETCH(QString, configKey);
    QFETCH(QStringList, expected);
    Preferences p;
    p.samplePeriodS = 2;
    p.metricsPort = 9400;
    p.devices = "cpu";
    auto cfg = RunConfig::defaults();
    if (configKey == "metrics_port") QVERIFY(cfg.set("metrics_port", int64_t(9500)).ok());
    if (configKey == "devices") QVERIFY(cfg.set("devices", std::string("1")).ok());
    QCOMPARE(p.runOverrides(cfg), expected);
  }

  void invalidValuesAreNamedAndNotApplied() {
    Preferences p;
    p.metricsPort = 70000;
    p.devices = "zero";
    const QString problems = p.validate().join('\n');
    QVERIFY2(problems.contains("metrics_port"), qPrintable(problems));
    QVERIFY2(problems.contains("devices"), qPrintable(problems));
    QVERIFY(p.runOverrides(RunConfig::defaults()).isEmpty());
    // A hand-edited settings file falls back to the defaults for the bad keys.
    QSettings().setValue("runs/metrics_port", "not a port");
    QSettings().setValue("runs/sample_period_s", -4);
    QSettings().setValue("ui/language", "klingon");
    const auto loaded = Preferences::load();
    QCOMPARE(loaded.metricsPort, 0);
    QCOMPARE(loaded.samplePeriodS, RunConfig::defaults().getFloat("sample_period_s"));
    QCOMPARE(loaded.language, QString());
  }

  void recentProjects() {
    QVERIFY(RecentProjects::list().isEmpty());
    for (int i = 0; i < RecentProjects::kMaxRecent + 3; ++i)
      RecentProjects::add(QString("/p/%1.stave").arg(i));
    auto l = RecentProjects::list();
    QCOMPARE(l.size(), RecentProjects::kMaxRecent);
    QCOMPARE(l.first(), QString("/p/%1.stave").arg(RecentProjects::kMaxRecent + 2));
    RecentProjects::add("/p/5.stave");  // moves to the front, no duplicate
    l = RecentProjects::list();
    QCOMPARE(l.first(), QString("/p/5.stave"));
    QCOMPARE(l.count("/p/5.stave"), 1);
    RecentProjects::remove("/p/5.stave");
    QVERIFY(!RecentProjects::list().contains("/p/5.stave"));
    RecentProjects::clear();
    QVERIFY(RecentProjects::list().isEmpty());
  }

  void saveAsReanchorsTheDataset() {
    QTemporaryDir dir;
    stave::studio::ProjectDocument doc;
    QVERIFY(doc.open(stave::testing::makeProject(dir)));
    const QString dataset = doc.datasetPath();
    QVERIFY(QDir(dir.path()).mkpath("elsewhere/deeper"));
    QString error;
    QVERIFY2(doc.saveAs(dir.path() + "/elsewhere/deeper/copy", &error), qPrintable(error));
    QCOMPARE(doc.path(), dir.path() + "/elsewhere/deeper/copy.stave");
    QCOMPARE(QFileInfo(doc.datasetPath()).canonicalFilePath(),
             QFileInfo(dataset).canonicalFilePath());
    stave::studio::ProjectDocument again;
    QVERIFY(again.open(dir.path() + "/elsewhere/deeper/copy.stave"));
    QVERIFY2(again.problems().isEmpty(), qPrintable(again.problems().join('\n')));
    QCOMPARE(again.datasetStored(), QString("../../data.yaml"));
    // A folder that cannot be written: the error says so and the document stays where it was.
    QVERIFY(!doc.saveAs("/proc/no/such/place.stave", &error));
    QVERIFY(!error.isEmpty());
    QCOMPARE(doc.path(), dir.path() + "/elsewhere/deeper/copy.stave");
  }

  // Issue 43 §5.3: the window came back 1830 px wide on a 1600 px screen. A saved geometry is
  // brought whole (frame included) onto the screen's available geometry, shrunk if need be.
  void windowGeometryFitsOnTheScreen_data() {
    QTest::addColumn<QRect>("saved");
    QTest::addColumn<QRect>("expected");
    // Available: 1600x1000 at (0,0) less a 30 px panel at the bottom → (0,0) 1600x970.
    // Room for the client area: x 1..1598, y 24..968 → 1598x945.
    QTest::newRow("fits as is") << QRect(100, 100, 1200, 650) << QRect(100, 100, 1200, 650);
    QTest::newRow("too wide") << QRect(0, 60, 1830, 700) << QRect(1, 60, 1598, 700);
    QTest::newRow("too wide and tall, off to the right")
        << QRect(300, 300, 1830, 1200) << QRect(1, 24, 1598, 945);
    QTest::newRow("off the bottom right") << QRect(1500, 900, 800, 600) << QRect(799, 369, 800, 600);
    QTest::newRow("above the top") << QRect(200, -50, 800, 600) << QRect(200, 24, 800, 600);
  }
  void windowGeometryFitsOnTheScreen() {
    QFETCH(QRect, saved);
    QFETCH(QRect, expected);
    const QRect available(0, 0, 1600, 970);
    const QMargins frame(1, 24, 1, 1);
    const QRect got = stave::studio::fitWindowOnScreen(saved, frame, available, QSize(640, 400));
    QCOMPARE(got, expected);
    QVERIFY(available.contains(got.marginsAdded(frame)));
  }
  void windowGeometryKeepsItsMinimumWhereTheScreenAllows() {
    // A screen smaller than the window's minimum: the whole room, not less.
    const QRect got = stave::studio::fitWindowOnScreen(QRect(0, 0, 1830, 1000), {}, QRect(0, 0, 800, 600),
                                                       QSize(1000, 700));
    QCOMPARE(got, QRect(0, 0, 800, 600));
    // Shrunk to the room but never below the minimum that fits.
    QCOMPARE(stave::studio::fitWindowOnScreen(QRect(0, 0, 300, 2000), {}, QRect(0, 0, 1600, 1000),
                                              QSize(640, 400)),
             QRect(0, 0, 640, 1000));
  }
};

QTEST_GUILESS_MAIN(TestPreferences)
#include "tst_preferences.moc"
