#include <QtTest>

#include "widgets/main_window.h"

class TestMainWindow : public QObject {
  Q_OBJECT
 private slots:
  void pagesExist() {
    stave::widgets::MainWindow w;
    QCOMPARE(w.pageNames(), (QStringList{"Project", "Dataset", "Train", "Monitor", "History"}));
  }
  void missingProjectIsRefused() {
    stave::widgets::MainWindow w;
    QVERIFY(!w.openProject(QStringLiteral("/nonexistent/x.stave")));
  }
};

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
