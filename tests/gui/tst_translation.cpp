#include <QLocale>
#include <QTranslator>
#include <QtTest>

#include "widgets/main_window.h"

// The Simplified Chinese translation is compiled in and reaches the widgets' tr() contexts.
class TestTranslation : public QObject {
  Q_OBJECT
 private slots:
  void chinesePageNames() {
    QTranslator translator;
    QVERIFY(translator.load(QLocale(QStringLiteral("zh_CN")), QStringLiteral("stave"),
                            QStringLiteral("_"), QStringLiteral(":/i18n")));
    QVERIFY(QCoreApplication::installTranslator(&translator));
    stave::widgets::MainWindow w;
    QCOMPARE(w.pageNames(), (QStringList{"项目", "数据集", "训练", "运行", "历史", "硬件"}));
    QCoreApplication::removeTranslator(&translator);
    stave::widgets::MainWindow english;
    QCOMPARE(english.pageNames().first(), QString("Project"));
  }
};

QTEST_MAIN(TestTranslation)
#include "tst_translation.moc"
