// The Hardware page with the fake NVML of the telemetry tests (two GPUs joined by four
// NVLinks): both GPUs with driver, PCIe and NVLink, live gauges and charts, the topology matrix
// with NV4 between them; without NVML (no library, nvmlInit failing, no device) "No NVIDIA GPU"
// with the reason and still the host. A run folder with a planted diagnosis (between garbage
// lines): its findings on the Hardware page and the most severe on the Run page's banner, Apply
// makes a config of the run's own values plus the advice, checked by the schema; Details
// switches to the Hardware page.
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "common/project_fixture.h"
#include "core/studio/hardware/hardware_advice.h"
#include "core/studio/models/config_form_model.h"
#include "core/studio/hardware/hardware_models.h"
#include "core/studio/hardware/hardware_monitor.h"
#include "core/studio/project/project_document.h"
#include "core/telemetry/events.h"
#include "core/telemetry/host_info.h"
#include "widgets/diagnosis_banner.h"
#include "widgets/hardware_page.h"
#include "widgets/live_chart.h"
#include "widgets/main_window.h"
#include "widgets/run_page.h"

namespace fs = std::filesystem;
namespace tel = stave::telemetry;
using stave::studio::GpuTableModel;
using stave::studio::ProjectDocument;
using stave::widgets::HardwarePage;
using stave::widgets::MainWindow;

namespace {

QString cell(QTableView* t, int row, int col, int role = Qt::DisplayRole) {
  return t->model()->index(row, col).data(role).toString();
}

tel::Finding finding(const std::string& rule, tel::Severity s, const std::string& title,
                     std::vector<tel::Advice> advice) {
  tel::Finding f;
  f.rule = rule;
  f.severity = s;
  f.title = title;
  f.message = title + ": the numbers behind it";
  f.advice = std::move(advice);
  f.evidence = {{"share", 0.45}};
  return f;
}

/// runs/<name>/events.jsonl: a run_start with the run's config, a garbage line, a diagnosis
/// with `findings`, and a diagnosis that does not decode (it must not replace the good one).
void plantRun(const QString& projectDir, const std::string& name,
              const std::vector<tel::Finding>& findings) {
  const fs::path dir = fs::path(projectDir.toStdString()) / "runs" / name;
  fs::create_directories(dir);
  std::ofstream out(dir / "events.jsonl");
  tel::RunStartEvent rs;
  rs.device = "cuda";
  rs.worldSize = 2;
  rs.config = {{"model", "yolov8n.yaml"}, {"imgsz", 96}, {"batch", 4}, {"epochs", 3},
               {"workers", 1},            {"name", name}, {"data", "/somewhere/data.yaml"}};
  auto e = tel::toEvent(rs, 0);
  out << tel::encodeEvent(e) << "\n";
  out << "{this is not json\n";
  tel::DiagnosisEvent d;
  d.periodS = 30;
  d.steps = 40;
  // As the doctor writes them (core/telemetry/doctor.cpp).
  d.summary = findings.empty() ? "no bottleneck found: ranks compute 81% of their step (data wait "
                                 "12%, all-reduce wait 7%)"
                               : "data-bound: ranks wait for data 45%";
  d.findings = findings;
  out << tel::encodeEvent(tel::toEvent(d, -1)) << "\n";
  out << R"({"type":"diagnosis","version":1,"rank":-1,"time":1,"data":{"findings":"garbage"}})"
      << "\n";
}

}  // namespace

class TestHardwarePage : public QObject {
  Q_OBJECT

 private slots:
  void init() {
    qputenv("STAVE_NVML_LIBRARY", STAVE_FAKE_NVML);
  }
  void cleanup() {
    qunsetenv("STAVE_NVML_LIBRARY");
    qunsetenv("FAKE_NVML_INIT_FAIL");
    qunsetenv("FAKE_NVML_DEVICE_COUNT");
  }

  void twoFakeGpus() {
    ProjectDocument doc;
    HardwarePage page(&doc);
    QCOMPARE(page.monitor()->library(), QString(STAVE_FAKE_NVML));  // STAVE_NVML_LIBRARY
    page.monitor()->setPeriod(0.05);
    page.resize(1300, 850);
    page.show();  // the first show starts the monitor
    QTRY_VERIFY_WITH_TIMEOUT(page.monitor()->ready(), 10000);
    QVERIFY(page.monitor()->hasGpu());
    const QString summary = page.summaryLabel()->text();
    QVERIFY2(summary.contains("NVIDIA GPUs: 2"), qPrintable(summary));
    QVERIFY(summary.contains("driver 560.35.03"));
    QVERIFY(summary.contains("CUDA 12.6"));

    // Issue 29, defect 10: "22.3 GiB available" beside a NUMA "Free 13.4 GiB" read as a
    // contradiction; both figures are now named for what they count.
    auto* host = page.findChild<QLabel*>("hostSummary");
    QVERIFY(host);
    QVERIFY2(host->text().contains("available: ") && host->text().contains("unused + page cache"),
             qPrintable(host->text()));
    stave::studio::NumaModel numa;
    QCOMPARE(numa.headerData(stave::studio::NumaModel::FreeColumn, Qt::Horizontal).toString(),
             QString("Unused"));
    QVERIFY(numa.headerData(stave::studio::NumaModel::FreeColumn, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains("page cache"));

    QTableView* t = page.gpuTable();
    QVERIFY(!t->isHidden());
    QCOMPARE(t->model()->rowCount(), 2);
    QCOMPARE(cell(t, 0, GpuTableModel::NameColumn), QString("Fake GPU A"));
    QCOMPARE(cell(t, 1, GpuTableModel::NameColumn), QString("Fake GPU B"));
    QCOMPARE(cell(t, 0, GpuTableModel::PcieColumn), QString("Gen 4 x16"));
    QCOMPARE(cell(t, 1, GpuTableModel::PcieColumn), QString("Gen 4 x8 (of x16)"));
    QVERIFY(!cell(t, 1, GpuTableModel::PcieColumn, GpuTableModel::WarningRole).isEmpty());
    QVERIFY(cell(t, 0, GpuTableModel::PcieColumn, GpuTableModel::WarningRole).isEmpty());
    QCOMPARE(cell(t, 0, GpuTableModel::NvLinkColumn), QString("4 of 6 up → GPU 1"));
    QCOMPARE(cell(t, 1, GpuTableModel::NvLinkColumn), QString("4 of 6 up → GPU 0"));
    QCOMPARE(cell(t, 0, GpuTableModel::ComputeColumn), QString("9.0"));
    QCOMPARE(cell(t, 0, GpuTableModel::AffinityColumn), QString("NUMA 0 · CPUs 0-7"));
    QCOMPARE(cell(t, 1, GpuTableModel::AffinityColumn), QString("NUMA 1 · CPUs 8-15"));
    QVERIFY(cell(t, 0, GpuTableModel::NameColumn, Qt::ToolTipRole).contains("GPU-fa4e0000"));

    // The matrix, as nvidia-smi topo -m: X on the diagonal, NV4 between the two.
    QTableView* m = page.topologyTable();
    QCOMPARE(m->model()->rowCount(), 2);
    QCOMPARE(m->model()->columnCount(), 4);
    QCOMPARE(m->model()->headerData(1, Qt::Horizontal).toString(), QString("GPU1"));
    QCOMPARE(m->model()->headerData(2, Qt::Horizontal).toString(), QString("CPU Affinity"));
    QCOMPARE(cell(m, 0, 0), QString("X"));
    QCOMPARE(cell(m, 0, 1), QString("NV4"));
    QCOMPARE(cell(m, 1, 0), QString("NV4"));
    QCOMPARE(cell(m, 0, 2), QString("0-7"));
    QCOMPARE(cell(m, 1, 3), QString("1"));
    QVERIFY(cell(m, 0, 1, Qt::ToolTipRole).contains("PCIe path without NVLink: SYS"));
    QVERIFY(cell(m, 0, 1, Qt::ToolTipRole).contains("P2P read: OK"));
    QVERIFY(page.legendLabel()->text().contains("QPI/UPI"));
    QVERIFY(page.legendLabel()->text().contains("nccl_p2p_level&nbsp;PXB"));
    QVERIFY2(page.topologyAdviceLabel()->text().contains("Leave nccl_p2p_level empty"),
             qPrintable(page.topologyAdviceLabel()->text()));
    QVERIFY(page.ncclAdviceLabel()->text().contains("(empty: NCCL"));

    // Live: gauges and one chart series per GPU.
    QTRY_VERIFY_WITH_TIMEOUT(page.chart("gpuUtil")->seriesCount() == 2 &&
                                 page.chart("gpuUtil")->pointCount(1) >= 3,
                             10000);
    QCOMPARE(cell(t, 0, GpuTableModel::UtilColumn), QString("90 %"));
    QCOMPARE(cell(t, 1, GpuTableModel::UtilColumn), QString("91 %"));
    QCOMPARE(t->model()->index(0, GpuTableModel::UtilColumn).data(GpuTableModel::FractionRole).toDouble(), 0.9);
    QCOMPARE(cell(t, 1, GpuTableModel::MemoryColumn), QString("11.0 / 80.0 GiB"));
    QCOMPARE(cell(t, 0, GpuTableModel::PowerColumn), QString("351 / 700 W"));
    QCOMPARE(cell(t, 0, GpuTableModel::ClockColumn), QString("1980 / 1980 MHz"));
    QCOMPARE(cell(t, 1, GpuTableModel::ClockColumn), QString("max 1980 MHz"));  // unsupported now
    QCOMPARE(page.chart("gpuMem")->seriesCount(), 2);
    QCOMPARE(page.chart("gpuClock")->seriesCount(), 1);
    QVERIFY(page.monitor()->history().size() >= 3);
    QVERIFY(!page.grab().isNull());  // paints gauges and matrix without trouble
    for (int i = 0; i < page.tabs()->count(); ++i) {
      page.tabs()->setCurrentIndex(i);
      QVERIFY(!page.grab().isNull());
    }
  }

  void noNvidiaGpu_data() {
    QTest::addColumn<QByteArray>("library");
    QTest::addColumn<QByteArray>("envName");
    QTest::addColumn<QString>("reason");
    QTest::newRow("no library") << QByteArray("/nonexistent/libnvidia-ml.so.1") << QByteArray()
                                << "NVML not found";
    QTest::newRow("init fails") << QByteArray(STAVE_FAKE_NVML) << QByteArray("FAKE_NVML_INIT_FAIL")
                                << "Driver Not Loaded";
    QTest::newRow("no device") << QByteArray(STAVE_FAKE_NVML) << QByteArray("FAKE_NVML_DEVICE_COUNT")
                               << "NVML lists no device";
  }
  void noNvidiaGpu() {
    QFETCH(QByteArray, library);
    QFETCH(QByteArray, envName);
    QFETCH(QString, reason);
    qputenv("STAVE_NVML_LIBRARY", library);
    if (envName == "FAKE_NVML_INIT_FAIL") qputenv(envName.constData(), "1");
    if (envName == "FAKE_NVML_DEVICE_COUNT") qputenv(envName.constData(), "0");
    ProjectDocument doc;
    HardwarePage page(&doc);
    page.monitor()->setPeriod(0.05);
    page.start();
    QTRY_VERIFY_WITH_TIMEOUT(page.monitor()->ready(), 10000);
    QVERIFY(!page.monitor()->hasGpu());
    auto* noGpu = page.findChild<QLabel*>("noGpu");
    QVERIFY(noGpu && !noGpu->isHidden());
    QVERIFY(noGpu->text().contains("No NVIDIA GPU"));
    QVERIFY(noGpu->text().contains(reason));
    // Issue 43 §5.10: the NVML line was printed twice (the summary above the note said it too).
    int saying = 0;
    for (const QLabel* label : page.findChildren<QLabel*>())
      if (!label->isHidden() && label->text().contains(reason)) ++saying;
    QCOMPARE(saying, 1);
    QVERIFY(page.gpuTable()->isHidden());
    QCOMPARE(page.gpuTable()->model()->rowCount(), 0);
    QCOMPARE(page.topologyTable()->model()->rowCount(), 0);
    const int topo = page.tabs()->indexOf(page.topologyTable()->parentWidget());
    QVERIFY(topo >= 0 && !page.tabs()->isTabVisible(topo));
    // The host is still there.
    const auto host = tel::readHostInfo();
    QVERIFY(page.hostLabel()->text().contains(QString("logical cores: %1").arg(host.logicalCores)));
    QCOMPARE(page.numaTable()->model()->rowCount(), int(host.numa.size()));
    QTest::qWait(200);  // no sampler: nothing arrives
    QCOMPARE(page.chart("gpuUtil")->seriesCount(), 0);
    QVERIFY(page.monitor()->latest().empty());
  }

  void ncclSettingsOfActiveConfig() {
    using stave::studio::ConfigFormModel;
    QTemporaryDir dir;
    ProjectDocument doc;
    HardwarePage page(&doc);
    // The config form, read-only, through its distributed filter.
    auto* form = page.ncclForm();
    QCOMPARE(page.ncclTable()->model(), page.ncclFilter());
    QCOMPARE(page.ncclFilter()->sourceModel(), form);
    QVERIFY(form->isReadOnly());
    auto* model = page.ncclTable()->model();
    const int rows = model->rowCount();
    int expected = 0;
    for (const auto& spec : stave::config::runConfigSchema())
      expected += spec.group == stave::config::ParamGroup::Distributed;
    QCOMPARE(rows, expected);
    const int row = page.ncclFilter()->rowOf("nccl_timeout_s");
    QVERIFY(row >= 0);
    QCOMPARE(page.ncclFilter()->rowOf("lr0"), -1);  // not a Distributed setting
    // Indexes of a proxy do not outlive a reset (a config shown): asked for afresh each time.
    auto value = [&] { return model->index(row, ConfigFormModel::ValueColumn); };
    // No project: no config, the values stay empty, nothing is marked, the defaults are shown.
    QVERIFY(!form->hasCommitted());
    QCOMPARE(value().data().toString(), QString());
    QVERIFY(!value().data(ConfigFormModel::ChangedFromDefaultRole).toBool());
    QCOMPARE(model->index(row, ConfigFormModel::DefaultColumn).data().toString(), QString("1800"));
    QCOMPARE(model->headerData(ConfigFormModel::ValueColumn, Qt::Horizontal).toString(),
             QString("Value"));

    QVERIFY(doc.open(stave::testing::makeProject(dir)));
    QCOMPARE(model->rowCount(), expected);
    QCOMPARE(value().data().toString(), QString("1800"));
    QVERIFY(!value().data(ConfigFormModel::ChangedFromDefaultRole).toBool());
    QCOMPARE(model->index(row, ConfigFormModel::HelpColumn).data().toString(),
             QString::fromStdString(stave::config::findParam("nccl_timeout_s")->help));
    const int p2p = page.ncclFilter()->rowOf("nccl_p2p_level");
    QCOMPARE(model->index(p2p, ConfigFormModel::ValueColumn).data().toString(), QString("(empty)"));
    QCOMPARE(model->index(p2p, ConfigFormModel::DefaultColumn).data().toString(),
             QString("(empty)"));
    // Booleans are text, as their defaults; nothing is editable or checkable.
    const QModelIndex shm = model->index(page.ncclFilter()->rowOf("nccl_shm_disable"),
                                         ConfigFormModel::ValueColumn);
    QCOMPARE(shm.data().toString(), QString("false"));
    QVERIFY(!shm.data(Qt::CheckStateRole).isValid());
    for (int r = 0; r < model->rowCount(); ++r)
      QVERIFY(!(model->flags(model->index(r, ConfigFormModel::ValueColumn)) &
                (Qt::ItemIsEditable | Qt::ItemIsUserCheckable)));
    QVERIFY(!model->setData(value(), "5", Qt::EditRole));
    QVERIFY(!form->setEditedText("nccl_timeout_s", "5"));
    QCOMPARE(value().data().toString(), QString("1800"));

    auto cfg = *doc.config("default");
    QVERIFY(cfg.set("nccl_timeout_s", int64_t(600)).ok());
    doc.setConfig("default", cfg);
    const QModelIndex changed = model->index(row, ConfigFormModel::ValueColumn);
    QCOMPARE(changed.data().toString(), QString("600"));
    QVERIFY(changed.data(ConfigFormModel::ChangedFromDefaultRole).toBool());
    QVERIFY(model->headerData(ConfigFormModel::ValueColumn, Qt::Horizontal)
                .toString()
                .contains("default"));
  }

  void adviceBannerAndApply() {
    QTemporaryDir dir;
    const QString project = stave::testing::makeProject(dir);
    plantRun(dir.path(), "run-a",
             {finding("gpu_underused", tel::Severity::Info, "GPUs under-used", {{"batch", "16"}}),
              finding("data_bound", tel::Severity::Critical, "data-bound",
                      {{"workers", "2"}, {"cache", "ram"}}),
              finding("odd", tel::Severity::Warning, "odd advice", {{"workers", "lots"}})});
    MainWindow w;
    QVERIFY(w.openProject(project));
    auto* run = w.runPage();
    auto* hw = w.hardwarePage();
    QTRY_VERIFY_WITH_TIMEOUT(run->advice()->hasDiagnosis(), 10000);
    QCOMPARE(int(run->advice()->findings().size()), 3);  // the garbage diagnosis did not replace it
    QVERIFY(run->advice()->problem().contains("unreadable diagnosis"));
    QVERIFY(run->logView()->toPlainText().contains("unreadable diagnosis"));
    QCOMPARE(run->advice()->mostSevere(), 1);

    // The Run page's banner: the critical finding.
    auto* banner = run->banner();
    QVERIFY(!banner->isHidden());
    QVERIFY(banner->titleLabel()->text().contains("data-bound"));
    QVERIFY(banner->titleLabel()->text().contains("critical"));
    QVERIFY(banner->messageLabel()->text().contains("the numbers behind it"));
    QVERIFY2(banner->adviceLabel()->text().contains("workers=2 cache=ram"),
             qPrintable(banner->adviceLabel()->text()));
    QVERIFY(banner->adviceLabel()->text().contains("more findings: 2"));
    QVERIFY(banner->applyButton()->isEnabled());
    QVERIFY(banner->styleSheet().contains("QFrame#diagnosisBanner"));  // its own frame: red
    QVERIFY(banner->styleSheet().contains("#b00020"));

    // The Hardware page: every finding.
    QVERIFY(hw->adviceHeader()->text().contains("run-a"));
    QCOMPARE(int(hw->findingCards().size()), 3);
    QVERIFY(hw->findingCards()[0]->adviceLabel()->text().contains("batch=16"));
    QVERIFY(hw->findingCards()[1]->adviceLabel()->text().contains("workers=2 cache=ram"));

    // Apply: the run's config (imgsz 96, batch 4) plus the advice, as a new named config.
    QString suggested;
    hw->askConfigName = [&](const QString& s) {
      suggested = s;
      return QString("faster-data");
    };
    QVERIFY(hw->applyFinding(1));
    QCOMPARE(suggested, QString("data_bound"));
    auto* doc = w.document();
    QVERIFY(doc->configNames().contains("faster-data"));
    QVERIFY(doc->isDirty());
    const auto* made = doc->config("faster-data");
    QCOMPARE(made->getInt("workers"), int64_t(2));
    QCOMPARE(made->getString("cache"), std::string("ram"));
    QCOMPARE(made->getInt("imgsz"), int64_t(96));
    QCOMPARE(made->getInt("batch"), int64_t(4));
    QCOMPARE(doc->activeConfig(), QString("default"));  // a new config, not a changed one
    QVERIFY(!hw->applyFinding(1));                        // the name is taken now
    QCOMPARE(doc->configNames().size(), 2);

    // The schema checks the advice: nothing is made from a value that does not fit.
    hw->askConfigName = [](const QString&) { return QString("odd"); };
    QSignalSpy messages(hw, &HardwarePage::message);
    QVERIFY(!hw->applyFinding(2));
    QVERIFY(!doc->configNames().contains("odd"));
    QVERIFY(!messages.isEmpty() && messages.last().at(0).toString().contains("workers"));

    // The banner's Apply…: cancel makes nothing, a name makes the config.
    run->askConfigName = [](const QString&) { return QString(); };
    QVERIFY(!run->applyBannerAdvice());
    QCOMPARE(doc->configNames().size(), 2);
    run->askConfigName = [&](const QString& s) {
      suggested = s;
      return QString("from-banner");
    };
    banner->applyButton()->click();
    QCOMPARE(suggested, QString("data_bound"));
    QVERIFY(doc->configNames().contains("from-banner"));
    QCOMPARE(doc->config("from-banner")->getString("cache"), std::string("ram"));

    // Details: the Hardware page.
    banner->detailsButton()->click();
    QCOMPARE(w.pageNames().at(w.findChild<QListWidget*>("pageList")->currentRow()), QString("Hardware"));
  }

  void bannerHiddenWithoutFindings() {
    QTemporaryDir dir;
    const QString project = stave::testing::makeProject(dir);
    {
      MainWindow w;
      QVERIFY(w.openProject(project));  // no run at all
      QVERIFY(w.runPage()->banner()->isHidden());
      QVERIFY(w.hardwarePage()->adviceHeader()->text().contains("No run is shown"));
      QVERIFY(w.hardwarePage()->findingCards().empty());
    }
    plantRun(dir.path(), "run-b", {});
    MainWindow w;
    QVERIFY(w.openProject(project));
    QTRY_VERIFY_WITH_TIMEOUT(w.runPage()->advice()->hasDiagnosis(), 10000);
    QVERIFY(w.runPage()->banner()->isHidden());
    // Issue 43 §5.10: "no bottleneck found — no bottleneck found". Said once, then the rest.
    const QString header = w.hardwarePage()->adviceHeader()->text();
    QCOMPARE(header.count("no bottleneck found"), 1);
    QVERIFY2(header.contains("no bottleneck found — ranks compute 81% of their step"), qPrintable(header));
    QVERIFY(w.hardwarePage()->findingCards().empty());
  }
};

QTEST_MAIN(TestHardwarePage)
#include "tst_hardware_page.moc"
