#include <QSignalSpy>
#include <QtTest>

#include "core/studio/models/config_form_model.h"

using stave::studio::ConfigFilterModel;
using stave::studio::ConfigFormModel;

class TestConfigForm : public QObject {
  Q_OBJECT
 private slots:
  void oneRowPerSchemaParameter() {
    ConfigFormModel m;
    QCOMPARE(m.rowCount(), int(stave::config::runConfigSchema().size()));
    QVERIFY(m.rowOf("lr0") >= 0);
    QCOMPARE(m.rowOf("no_such_key"), -1);
    QCOMPARE(m.data(m.index(m.rowOf("epochs"), ConfigFormModel::ValueColumn)).toString(),
             QString("100"));
  }

  void edits_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::newRow("int ok") << "epochs"
                            << "5" << true;
    QTest::newRow("int not a number") << "epochs"
                                      << "abc" << false;
    QTest::newRow("float out of range") << "lr0"
                                        << "-1" << false;
    QTest::newRow("enum ok") << "optimizer"
                             << "AdamW" << true;
    QTest::newRow("enum unknown") << "optimizer"
                                  << "Lion" << false;
    QTest::newRow("bool text") << "cos_lr"
                               << "true" << true;
  }
  void edits() {
    QFETCH(QString, key);
    QFETCH(QString, text);
    QFETCH(bool, valid);
    ConfigFormModel m;
    QSignalSpy committed(&m, &ConfigFormModel::committedChanged);
    QVERIFY(m.setEditedText(key, text));
    const QModelIndex idx = m.index(m.rowOf(key), ConfigFormModel::ValueColumn);
    QCOMPARE(idx.data(ConfigFormModel::ErrorRole).toString().isEmpty(), valid);
    QVERIFY(m.isDirty());
    QCOMPARE(m.apply(), valid);
    QCOMPARE(committed.count(), valid ? 1 : 0);
    if (valid) {
      QVERIFY(!m.isDirty());
      QCOMPARE(
          QString::fromStdString(stave::config::formatValue(m.committed().get(key.toStdString()))),
          text);
    } else {
      QVERIFY(m.isDirty());  // the bad edit is kept for the user to fix
      QCOMPARE(m.errorCount(), 1);
    }
  }

  void cancelRevertsEdits() {
    ConfigFormModel m;
    m.setEditedText("batch", "32");
    QVERIFY(m.isDirty());
    m.cancel();
    QVERIFY(!m.isDirty());
    QCOMPARE(m.data(m.index(m.rowOf("batch"), ConfigFormModel::ValueColumn)).toString(),
             QString("16"));
  }

  void boolViaCheckState() {
    ConfigFormModel m;
    const QModelIndex idx = m.index(m.rowOf("cos_lr"), ConfigFormModel::ValueColumn);
    QVERIFY(m.flags(idx) & Qt::ItemIsUserCheckable);
    QVERIFY(m.setData(idx, Qt::Checked, Qt::CheckStateRole));
    QVERIFY(m.apply());
    QCOMPARE(m.committed().getBool("cos_lr"), true);
  }

  void readOnlyShowsTextAndTakesNoEdit() {
    ConfigFormModel m;
    m.setReadOnly(true);
    const QModelIndex cos = m.index(m.rowOf("cos_lr"), ConfigFormModel::ValueColumn);
    QCOMPARE(cos.data().toString(), QString("false"));  // text, as its default
    QVERIFY(!cos.data(Qt::CheckStateRole).isValid());
    QVERIFY(!(m.flags(cos) & (Qt::ItemIsEditable | Qt::ItemIsUserCheckable)));
    QVERIFY(!m.setData(cos, Qt::Checked, Qt::CheckStateRole));
    QVERIFY(!m.setEditedText("epochs", "5"));
    QVERIFY(!m.isDirty());
    const int p2p = m.rowOf("nccl_p2p_level");
    QCOMPARE(m.index(p2p, ConfigFormModel::ValueColumn).data().toString(), QString("(empty)"));
    QCOMPARE(m.index(p2p, ConfigFormModel::ValueColumn).data(Qt::EditRole).toString(), QString());
    QCOMPARE(m.index(p2p, ConfigFormModel::DefaultColumn).data().toString(), QString("(empty)"));
    m.setReadOnly(false);
    QVERIFY(m.flags(cos) & Qt::ItemIsUserCheckable);
    QCOMPARE(m.index(p2p, ConfigFormModel::DefaultColumn).data().toString(), QString());
  }

  void noConfigAndTheConfigsName() {
    ConfigFormModel m;
    QVERIFY(m.hasCommitted());
    QCOMPARE(m.headerData(ConfigFormModel::ValueColumn, Qt::Horizontal).toString(),
             QString("Value"));
    auto cfg = stave::config::RunConfig::defaults();
    QVERIFY(cfg.set("epochs", int64_t(7)).ok());
    m.setCommitted(cfg, "fast");
    QCOMPARE(m.headerData(ConfigFormModel::ValueColumn, Qt::Horizontal).toString(),
             QString("Value in fast"));
    const int epochs = m.rowOf("epochs");
    QVERIFY(m.index(epochs, 0).data(ConfigFormModel::ChangedFromDefaultRole).toBool());
    m.clearCommitted();
    QVERIFY(!m.hasCommitted());
    QCOMPARE(m.headerData(ConfigFormModel::ValueColumn, Qt::Horizontal).toString(),
             QString("Value"));
    QCOMPARE(m.index(epochs, ConfigFormModel::ValueColumn).data().toString(), QString());
    QCOMPARE(m.index(epochs, ConfigFormModel::DefaultColumn).data().toString(), QString("100"));
    QVERIFY(!m.index(epochs, 0).data(ConfigFormModel::ChangedFromDefaultRole).toBool());
    QVERIFY(!m.setEditedText("epochs", "5"));
    m.cancel();  // stays without a config
    QVERIFY(!m.hasCommitted());
    m.setCommitted(cfg);
    QCOMPARE(m.index(epochs, ConfigFormModel::ValueColumn).data().toString(), QString("7"));
    QVERIFY(m.setEditedText("epochs", "5"));
  }

  void filterRowOf() {
    ConfigFormModel m;
    ConfigFilterModel f;
    f.setSourceModel(&m);
    f.setGroup("distributed");
    const int row = f.rowOf("nccl_timeout_s");
    QVERIFY(row >= 0);
    QCOMPARE(f.index(row, 0).data(ConfigFormModel::KeyRole).toString(), QString("nccl_timeout_s"));
    QCOMPARE(f.rowOf("lr0"), -1);  // filtered out
    QCOMPARE(f.rowOf("no_such_key"), -1);
  }

  void filterByGroupTextAndChanged() {
    ConfigFormModel m;
    ConfigFilterModel f;
    f.setSourceModel(&m);
    f.setGroup("augmentation");
    QVERIFY(f.rowCount() > 5);
    for (int r = 0; r < f.rowCount(); ++r)
      QCOMPARE(f.index(r, 0).data(ConfigFormModel::GroupRole).toString(), QString("augmentation"));
    f.setGroup("");
    f.setText("mosaic");
    QVERIFY(f.rowCount() >= 2);  // mosaic, close_mosaic
    f.setText("");
    f.setChangedOnly(true);
    QCOMPARE(f.rowCount(), 0);
    m.setEditedText("epochs", "7");
    QCOMPARE(f.rowCount(), 1);
  }
};

QTEST_GUILESS_MAIN(TestConfigForm)
#include "tst_config_form.moc"
