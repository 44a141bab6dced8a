// The studio's binary without a display: --help and --version answer, anything else says
// why no window can open and how to train headless, instead of aborting in Qt's xcb plugin.
#include <QProcess>
#include <QtTest>

class TestNoDisplay : public QObject {
  Q_OBJECT

  static QProcess* start(const QStringList& args) {
    auto* p = new QProcess;
    auto env = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(v);
    p->setProcessEnvironment(env);
    p->start(QStringLiteral(STAVE_EXE), args);
    return p;
  }

 private slots:
  void helpAndVersion_data() {
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("expected");
    QTest::newRow("help") << "--help" << "--lang";
    QTest::newRow("version") << "--version" << STAVE_VERSION;
  }
  void helpAndVersion() {
    QFETCH(QString, flag);
    QFETCH(QString, expected);
    QScopedPointer<QProcess> p(start({flag}));
    QVERIFY(p->waitForFinished(30000));
    QCOMPARE(p->exitStatus(), QProcess::NormalExit);
    QCOMPARE(p->exitCode(), 0);
    QVERIFY2(QString::fromUtf8(p->readAllStandardOutput()).contains(expected),
             qPrintable(flag));
  }
  void noDisplayIsAClearError() {
    QScopedPointer<QProcess> p(start({}));
    QVERIFY(p->waitForFinished(30000));
    QCOMPARE(p->exitStatus(), QProcess::NormalExit);
    QCOMPARE(p->exitCode(), 2);
    const QString err = QString::fromUtf8(p->readAllStandardError());
    QVERIFY2(err.contains("no display") && err.contains("stave-train train"), qPrintable(err));
  }
};

QTEST_APPLESS_MAIN(TestNoDisplay)
#include "tst_no_display.moc"
