#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "common/project_fixture.h"
#include "core/studio/preferences.h"
#include "core/studio/project_document.h"

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
};

QTEST_GUILESS_MAIN(TestPreferences)
#include "tst_preferences.moc"
