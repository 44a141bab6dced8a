#include <QSignalSpy>
#include <QtTest>

#include "core/studio/config_form_model.h"

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
