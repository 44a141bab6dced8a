// LiveChart's counted x (epochs): one point is drawn (a disc, with room around it), ticks fall on
// whole numbers only, from 1 epoch to 300; on a continuous x a lone point is a disc too and a
// line of several has no markers.

#include <QtTest>
#include <cmath>

#include "widgets/live_chart.h"

using stave::widgets::LiveChart;

namespace {
/// The tick positions the x axis draws now.
QVector<double> ticks(LiveChart& c) {
  QVector<double> t, sub;
  QVector<QString> labels;
  c.xAxis->ticker()->generate(c.xAxis->range(), QLocale(), 'g', 6, t, &sub, &labels);
  QVector<double> inside;
  for (double v : t)
    if (c.xAxis->range().contains(v)) inside << v;
  return inside;
}
}  // namespace

class TestLiveChart : public QObject {
  Q_OBJECT
 private slots:
  // Issue 29, defect 5: an empty chart filled a 5x5 px corner of its widget, or kept the axes and
  // series of the previous run.
  void emptyChartFillsItsWidgetAndSaysSo() {
    QWidget host;
    auto* c = new LiveChart("Train losses", &host);
    host.resize(200, 150);
    host.show();
    QVERIFY(QTest::qWaitForWindowExposed(&host));
    c->resize(600, 400);  // laid out again later, as a page's grid does
    QTest::qWait(50);
    c->grab();
    QVERIFY2(c->axisRect()->width() > 400 && c->axisRect()->height() > 220,
             qPrintable(QString("%1x%2").arg(c->axisRect()->width()).arg(c->axisRect()->height())));
    QVERIFY(c->isEmptyShown());
    const int s = c->series("box", Qt::blue);
    c->append(s, 10, 5);
    c->append(s, 20, 7);
    c->refresh();
    c->grab();
    QVERIFY(!c->isEmptyShown());
    QVERIFY2(c->axisRect()->width() > 400, qPrintable(QString::number(c->axisRect()->width())));
    const int t = c->series("total", Qt::red);  // two series: the legend shows below
    c->append(t, 10, 6);
    c->refresh();
    c->grab();
    QVERIFY(c->legend->visible() && c->axisRect()->width() > 400);
    QCOMPARE(c->xAxis->range().lower, 10.0);
    c->clearData();  // a new run: nothing of the old one stays
    QCOMPARE(c->seriesCount(), 0);
    QVERIFY(c->isEmptyShown());
    QVERIFY(!c->legend->visible());
    QVERIFY(c->xAxis->range().lower != 10.0);
  }

  void epochsAreWholeAndOnePointShows() {
    LiveChart c("Losses per epoch");
    c.resize(400, 260);
    c.setWholeX(true);
    const int s = c.addSeries("train", Qt::blue);
    c.append(s, 1, 0.8);
    c.refresh();
    QCOMPARE(c.drawnCount(s), 1);
    QCOMPARE(c.graph(s)->scatterStyle().shape(), QCPScatterStyle::ssDisc);
    QVERIFY(c.xAxis->range().lower < 1 - 0.4 && c.xAxis->range().upper > 1 + 0.4);
    for (int last : {2, 3, 7, 30, 300}) {
      for (int e = c.pointCount(s) + 1; e <= last; ++e) c.append(s, e, 1.0 / e);
      c.refresh();
      const auto t = ticks(c);
      QVERIFY2(!t.isEmpty(), qPrintable(QString::number(last)));
      QVERIFY2(t.size() <= 12,
               qPrintable(QString("%1 ticks for %2 epochs").arg(t.size()).arg(last)));
      for (double v : t) QVERIFY2(v == std::round(v), qPrintable(QString("tick %1").arg(v)));
    }
  }

  void continuousXDrawsLinesWithoutMarkers() {
    LiveChart c("Train losses per iteration");
    c.resize(400, 260);
    const int s = c.addSeries("box", Qt::red);
    c.append(s, 0, 2.0);
    c.refresh();
    QCOMPARE(c.graph(s)->scatterStyle().shape(), QCPScatterStyle::ssDisc);  // one point: a disc
    for (int i = 1; i < 50; ++i) c.append(s, i * 0.5, 2.0 - i * 0.01);
    c.refresh();
    QCOMPARE(c.graph(s)->scatterStyle().shape(), QCPScatterStyle::ssNone);
  }
};

QTEST_MAIN(TestLiveChart)
#include "tst_live_chart.moc"
