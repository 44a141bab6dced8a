// The Run page's charts at the window sizes the studio is used at (issue 43 §5.11): at 1024×640
// and at about 1200×650 (what it opens with on a 1600×1000 screen) the legends were cut to
// their cells ("train bc", "mAP5(", eight entries reading "GPU"). Every legend entry's text
// and every chart title is drawn whole inside its rect, in English and Chinese, for a run on
// eight GPUs, whose entries are distinct (GPU 0 … GPU 7); a name wider than the narrowest
// chart is elided readably, its full name kept.
#include <QApplication>
#include <QFontMetrics>
#include <QSet>
#include <QTemporaryDir>
#include <QTranslator>
#include <QtTest>
#include <memory>

#include "common/offscreen_screen.h"
#include "common/project_fixture.h"
#include "long_run.h"
#include "widgets/chart_legend.h"
#include "widgets/live_chart.h"
#include "widgets/main_window.h"
#include "widgets/run_page.h"

using stave::widgets::LiveChart;

namespace {

/// What of `plot`'s legend entries and title is not drawn whole ("" each when all is).
QStringList cutTexts(QCustomPlot* plot) {
  QStringList cut;
  const QRect view = plot->rect();
  const QString where = plot->objectName() + QStringLiteral(": ");
  QCPLegend* legend = plot->legend;
  if (legend->visible()) {
    if (!view.contains(legend->outerRect()))
      cut << where + QStringLiteral("legend outside the chart");
    for (int i = 0; i < legend->itemCount(); ++i) {
      auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
      if (!item) continue;
      // An entry draws its icon, then its text, clipped to its outer rect.
      const QString text = item->plottable()->name();
      const QFontMetrics fm(item->font());
      const int textLeft = item->rect().left() + legend->iconSize().width() + legend->iconTextPadding();
      const int room = item->outerRect().right() + 1 - textLeft;
      if (fm.horizontalAdvance(text) > room || fm.height() > item->outerRect().height() ||
          !view.contains(item->outerRect()))
        cut << where + QStringLiteral("'%1' needs %2 px, has %3").arg(text).arg(fm.horizontalAdvance(text)).arg(room);
    }
  }
  for (int i = 0; i < plot->plotLayout()->elementCount(); ++i) {
    auto* title = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i));
    if (!title) continue;
    const QSize need = QFontMetrics(title->font()).boundingRect(QRect(0, 0, 100000, 100000), Qt::AlignCenter, title->text()).size();
    const QRect has = title->outerRect();
    if (need.width() > has.width() || need.height() > has.height() || !view.contains(has))
      cut << where + QStringLiteral("title '%1' needs %2x%3, has %4x%5")
                         .arg(title->text()).arg(need.width()).arg(need.height()).arg(has.width()).arg(has.height());
  }
  return cut;
}

/// The Run page's shown charts, laid out as drawn now.
QList<QCustomPlot*> shownCharts(stave::widgets::RunPage* page) {
  QList<QCustomPlot*> out;
  for (auto* plot : page->findChildren<QCustomPlot*>())
    if (plot->isVisibleTo(page) && plot->objectName() != QLatin1String("validationCurves")) {
      plot->replot();  // its layout for the size it has now
      out << plot;
    }
  return out;
}

QStringList legendTexts(QCustomPlot* plot) {
  QStringList out;
  for (int i = 0; i < plot->legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(i))) out << item->plottable()->name();
  return out;
}

}  // namespace

class TestChartLegends : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_project;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // the window's state is saved on close
    m_project = stave::testing::makeProject(m_dir);
    // 15 minutes of eight ranks on eight GPUs of one node, an epoch every 5 minutes, a step
    // and a sample every 5 s (the charts' series and legends, not the amount, matter here).
    stave::bench::LongRunOptions o;
    o.hours = 0.25;
    o.epochMinutes = 5;
    o.stepPeriodS = 5;
    o.samplePeriodS = 5;
    o.name = "eight";
    const QString run = m_dir.filePath("runs/eight");
    QVERIFY(QDir().mkpath(run));
    stave::bench::LongRunStats stats;
    std::string error;
    QVERIFY2(stave::bench::writeLongRun(o, (run + "/events.jsonl").toStdString(), &stats, &error), error.c_str());
    QCOMPARE(stats.epochs, 3);
  }

  void everyEntryWhole_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("language");
    for (const QString language : {"en", "zh_CN"}) {
      for (const QSize size : {QSize(1024, 640), QSize(1200, 650), QSize(1600, 1000)})
        QTest::addRow("%s %dx%d", qPrintable(language), size.width(), size.height()) << size << language;
    }
  }

  void everyEntryWhole() {
    QFETCH(QSize, size);
    QFETCH(QString, language);
    QTranslator translator;
    if (language != QLatin1String("en")) {
      QVERIFY(translator.load(QLocale(language), QStringLiteral("stave"), QStringLiteral("_"), QStringLiteral(":/i18n")));
      QCoreApplication::installTranslator(&translator);
    }
    const auto untranslate = qScopeGuard([&] { QCoreApplication::removeTranslator(&translator); });
    stave::widgets::MainWindow w;
    QVERIFY(w.openProject(m_project));
    w.showPage(3);
    w.resize(size);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* page = w.runPage();
    LiveChart* gpu = page->chart(QStringLiteral("gpuUtil"));
    LiveChart* metrics = page->chart(QStringLiteral("metrics"));
    auto* split = page->findChild<QCustomPlot*>(QStringLiteral("split"));
    QVERIFY(split);
    QTRY_VERIFY_WITH_TIMEOUT(gpu->seriesCount() == 8 && gpu->isVisibleTo(page) && metrics->seriesCount() == 4 &&
                                 page->chart(QStringLiteral("epochLosses"))->seriesCount() == 6 &&
                                 split->plottable(0)->interface1D()->dataCount() == 8,
                             60000);
    // The Run page's controls need a window wider and taller than 1024×640 (about 1200×670):
    // there, the window at its smallest.
    const QSize want = size.expandedTo(w.minimumSize());
    w.resize(want);
    QTRY_COMPARE(w.size(), want);
    // Laid out (the page's grid, the charts' queued replots): then nothing is cut.
    QStringList cut;
    QTRY_VERIFY2_WITH_TIMEOUT(
        [&] {
          cut.clear();
          for (auto* plot : shownCharts(page)) cut << cutTexts(plot);
          return cut.isEmpty();
        }(),
        qPrintable(cut.join(QLatin1String("; "))), 10000);
    QVERIFY(shownCharts(page).size() >= 10);  // every chart, the GPUs' among them
    // The eight GPUs' entries are distinct and whole, on each GPU chart.
    for (const char* name : {"gpuUtil", "gpuMem", "gpuPower"}) {
      const QStringList texts = legendTexts(page->chart(QString::fromLatin1(name)));
      QCOMPARE(texts.size(), 8);
      QCOMPARE(QSet<QString>(texts.begin(), texts.end()).size(), 8);
      for (int i = 0; i < 8; ++i) QVERIFY2(texts.contains(stave::widgets::RunPage::tr("GPU %1").arg(i)), qPrintable(texts.join(',')));
    }
    // The legends of the metrics and of the per-epoch losses: every name as given, none elided.
    QCOMPARE(legendTexts(metrics), (QStringList{"P", "R", "mAP50", "mAP50-95"}));
    for (const QString& text : legendTexts(page->chart(QStringLiteral("epochLosses"))))
      QVERIFY2(!text.contains(QChar(0x2026)), qPrintable(text));
  }

  void aNameWiderThanTheChartIsElided() {
    // At the narrowest a chart gets, a name wider than the chart shows its start and "…",
    // whole; the chart keeps the full name, and a wider chart shows it again.
    LiveChart c(QStringLiteral("narrow"));
    c.resize(280, 190);
    const QString longName = QStringLiteral("samples/s of every rank on every node, summed at rank 0's iteration");
    const int a = c.addSeries(QStringLiteral("short"), Qt::red);
    const int b = c.addSeries(longName, Qt::blue);
    c.append(a, 0, 1);
    c.append(b, 0, 2);
    c.show();
    QVERIFY(QTest::qWaitForWindowExposed(&c));
    c.replot();
    QVERIFY2(cutTexts(&c).isEmpty(), qPrintable(cutTexts(&c).join("; ")));
    const QString shown = c.seriesGraph(b)->name();
    QVERIFY2(shown.endsWith(QChar(0x2026)) && shown.size() > 10 && longName.startsWith(shown.chopped(1)), qPrintable(shown));
    QCOMPARE(stave::widgets::legendName(c.seriesGraph(b)), longName);
    QCOMPARE(c.seriesName(b), longName);
    QCOMPARE(c.seriesGraph(a)->name(), QStringLiteral("short"));
    QCOMPARE(c.legend->rowCount(), 2);  // one entry a row
    c.resize(1400, 190);
    QTRY_COMPARE_WITH_TIMEOUT(c.seriesGraph(b)->name(), longName, 5000);
    c.replot();
    QCOMPARE(c.legend->rowCount(), 1);
    QVERIFY2(cutTexts(&c).isEmpty(), qPrintable(cutTexts(&c).join("; ")));
  }
};

int main(int argc, char** argv) {
  // A screen of 1600×1000, as the studio is used on (the window is fitted onto its screen).
  QTemporaryDir screen;
  if (!stave::testing::useOffscreenScreen(screen, QSize(1600, 1000))) return 1;
  QApplication app(argc, argv);
  TestChartLegends test;
  QTEST_SET_MAIN_SOURCE_PATH
  return QTest::qExec(&test, argc, argv);
}

#include "tst_chart_legends.moc"
