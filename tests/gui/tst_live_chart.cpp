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
