// The wizard's proposals (issue 29, defect 7): the schema's defaults suit a GPU and a large
// dataset; on a CPU they gave a run of hours that, cut short, learned nothing. Each machine and
// dataset shape gets settings that train, and every proposal is a valid config.
#include <QtTest>

#include "core/config/run_config.h"
#include "core/studio/project/settings_proposal.h"

using namespace stave::studio;

namespace {
QString valueOf(const QList<SettingProposal>& p, const QString& key) {
  for (const auto& s : p)
    if (s.key == key) return s.value;
  return {};
}
}  // namespace

class TestSettingsProposal : public QObject {
  Q_OBJECT
 private slots:
  void cpuSmallDataset() {
    const auto p = proposeSettings({0, 0, 2}, {200, 0});
    QCOMPARE(valueOf(p, "imgsz"), QString("320"));
    QCOMPARE(valueOf(p, "model"), QString("yolov8n"));
    QCOMPARE(valueOf(p, "nbs"), valueOf(p, "batch"));  // one optimiser step per batch
    QCOMPARE(valueOf(p, "epochs"), QString("25"));     // 5,000 images seen
    QCOMPARE(valueOf(p, "warmup_epochs"), QString("2"));
    QCOMPARE(valueOf(p, "workers"), QString("1"));
    for (const auto& s : p) QVERIFY2(!s.why.isEmpty(), qPrintable(s.key));
  }

  void smallImagesAreNotUpscaled() {
    QCOMPARE(valueOf(proposeSettings({0, 0, 8}, {50, 100}), "imgsz"), QString("128"));
    QCOMPARE(valueOf(proposeSettings({1, 24, 8}, {50, 20}), "imgsz"), QString("64"));
    QCOMPARE(valueOf(proposeSettings({0, 0, 8}, {1000000, 0}), "epochs"), QString("10"));
    QCOMPARE(valueOf(proposeSettings({0, 0, 8}, {3, 0}), "batch"), QString("3"));
  }

  void gpuLargeDataset() {
    const auto p = proposeSettings({8, 80, 64}, {120000, 1280});
    QCOMPARE(valueOf(p, "imgsz"), QString("640"));
    QCOMPARE(valueOf(p, "model"), QString("yolov8s"));
    QCOMPARE(valueOf(p, "batch"), QString("64"));
    QCOMPARE(valueOf(p, "nbs"), QString("64"));
    QCOMPARE(valueOf(p, "epochs"), QString("50"));
    QCOMPARE(valueOf(p, "workers"), QString("7"));
    QVERIFY(valueOf(p, "warmup_epochs").isEmpty());  // Ultralytics' default stays
    QCOMPARE(valueOf(proposeSettings({1, 16, 16}, {3000, 0}), "batch"), QString("16"));
  }

  void everyProposalIsAValidConfig() {
    for (const MachineShape& m : {MachineShape{0, 0, 1}, MachineShape{0, 0, 64},
                                  MachineShape{2, 11, 8}, MachineShape{8, 141, 192}})
      for (const DatasetShape& d : {DatasetShape{1, 0}, DatasetShape{40, 33},
                                    DatasetShape{5000, 4000}, DatasetShape{2000000, 640}}) {
        auto cfg = stave::config::RunConfig::defaults();
        std::vector<std::string> kv;
        for (const QString& o : proposalOverrides(proposeSettings(m, d))) kv.push_back(o.toStdString());
        const auto st = stave::config::applyOverrides(cfg, kv);
        QVERIFY2(st.ok(), st.errorText().c_str());
        QVERIFY(stave::config::validate(cfg).empty());
      }
  }
};

QTEST_APPLESS_MAIN(TestSettingsProposal)
#include "tst_settings_proposal.moc"
