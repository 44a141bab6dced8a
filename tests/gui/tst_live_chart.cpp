// LiveChart's counted x (epochs): one point is drawn (a disc, with room around it), ticks fall on
// whole numbers only, from 1 epoch to 300; on a continuous x a lone point is a disc too and a
// line of several has no markers.

#include <QtTest>
#include <cmath>

#include "widgets/chart_clock.h"
#include "widgets/live_chart.h"

using stave::widgets::LiveChart;
using stave::widgets::ChartClock;

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
    QCOMPARE(c.seriesGraph(s)->scatterStyle().shape(), QCPScatterStyle::ssDisc);
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

  // Issue 28: ticks that read at any length — iterations with k and M, time since the start
  // as m:ss, h:mm, then days.
  void ticksReadAtAnyLength() {
    struct Count : stave::widgets::CountTicker {
      QString at(double v) { return getTickLabel(v, QLocale::c(), 'g', 6); }
    } count;
    QCOMPARE(count.at(5000), QString("5000"));
    QCOMPARE(count.at(250000), QString("250k"));
    QCOMPARE(count.at(12500), QString("12.5k"));
    QCOMPARE(count.at(1500000), QString("1.5M"));
    QCOMPARE(count.at(2000000), QString("2M"));
    using stave::widgets::DurationTicker;
    QCOMPARE(DurationTicker::label(90, 600), QString("1:30"));
    QCOMPARE(DurationTicker::label(43530, 900), QString("12:05:30"));  // zoomed in, 12 h in
    QCOMPARE(DurationTicker::label(7200, 36000), QString("2:00"));
    QCOMPARE(DurationTicker::label(45000, 86400), QString("12:30"));
    QCOMPARE(DurationTicker::label(200000, 259200), QString("2d 08h"));
    // The steps are round: a day-long axis ticks every few hours.
    stave::widgets::LiveChart c(QStringLiteral("t"));
    c.resize(600, 300);
    c.setXKind(stave::widgets::LiveChart::XKind::Duration);
    const int s = c.addSeries(QStringLiteral("a"), Qt::blue);
    for (int i = 0; i <= 86400; i += 60) c.append(s, i, 1);
    c.refresh();
    c.replot();
    const auto ticks = c.xAxis->tickVector();
    QVERIFY(ticks.size() >= 3);
    const double step = ticks[1] - ticks[0];
    QVERIFY2(std::fmod(step, 3600) == 0, qPrintable(QString::number(step)));
    QCOMPARE(c.xAxis->tickVectorLabels()[1], DurationTicker::label(ticks[1], c.xAxis->range().size()));
  }

  // Issue 28: a moving average over noisy per-step series, TensorBoard's (debiased), the raw
  // line faint behind; the held points and the CSV stay raw.
  void smoothingAsTensorBoard() {
    stave::widgets::LiveChart c(QStringLiteral("t"));
    c.resize(600, 300);
    const int s = c.addSeries(QStringLiteral("loss"), Qt::blue);
    const double ys[] = {4, 2, 6, std::nan(""), 1};
    for (int i = 0; i < 5; ++i) c.append(s, i, ys[i]);
    c.setSmoothing(0.6);
    const auto& sm = c.smoothedPoints(s);
    QCOMPARE(sm.size(), size_t(5));
    // By hand: ema_n = 0.6 ema_{n-1} + 0.4 y_n from 0, divided by 1 - 0.6^n.
    double ema = 0, expect[5];
    int n = 0;
    for (int i = 0; i < 5; ++i) {
      if (!std::isnan(ys[i])) {
        ema = 0.6 * ema + 0.4 * ys[i];
        ++n;
      }
      expect[i] = ema / (1 - std::pow(0.6, n));
    }
    QCOMPARE(sm.y(0), 4.0);  // the first point is itself
    for (int i = 0; i < 5; ++i) QVERIFY2(std::abs(sm.y(i) - expect[i]) < 1e-5, qPrintable(QString::number(i)));
    c.append(s, 5, 3);  // appended points are smoothed as they come
    QCOMPARE(c.smoothedPoints(s).size(), size_t(6));
    c.refresh();
    // Two graphs: the smoothed one in the legend, the raw one faint and not in it.
    QCOMPARE(c.graphCount(), 2);
    QCPGraph* raw = c.rawGraph(s);
    QVERIFY(raw->visible());
    QVERIFY(raw->pen().color().alpha() < 255);
    QVERIFY(!c.legend->hasItemWithPlottable(raw));
    QCOMPARE(c.seriesGraph(s)->data()->at(0)->value, 4.0);
    QCOMPARE(c.seriesGraph(s)->data()->at(2)->value, sm.y(2));
    QCOMPARE(c.pointCount(s), 6);
    QCOMPARE(c.points(s).y(2), 6.0);  // held raw
    c.setSmoothing(0);
    c.refresh();
    QVERIFY(!raw->visible());
    QCOMPARE(c.seriesGraph(s)->data()->at(2)->value, 6.0);
    QCOMPARE(c.smoothedPoints(s).size(), size_t(0));
  }

  void continuousXDrawsLinesWithoutMarkers() {
    LiveChart c("Train losses per iteration");
    c.resize(400, 260);
    const int s = c.addSeries("box", Qt::red);
    c.append(s, 0, 2.0);
    c.refresh();
    QCOMPARE(c.seriesGraph(s)->scatterStyle().shape(), QCPScatterStyle::ssDisc);  // one point: a disc
    for (int i = 1; i < 50; ++i) c.append(s, i * 0.5, 2.0 - i * 0.01);
    c.refresh();
    QCOMPARE(c.seriesGraph(s)->scatterStyle().shape(), QCPScatterStyle::ssNone);
  }

  void pointsTakenAgainForTheWidth() {
    // A whole run set while the chart was small (a hidden page): shown wider, its points are
    // decimated again for the new width, not stretched from the few taken before.
    ChartClock clock;
    LiveChart c("wide");
    c.setClock(&clock);
    c.resize(280, 190);  // as small as it gets, laid out so
    c.replot();
    const int s = c.addSeries("x", Qt::red);
    stave::studio::LodSeries pts;
    for (int i = 0; i < 150000; ++i) pts.append(i, std::sin(i * 0.001) + (i % 97 == 0 ? 1 : 0));
    c.setPoints(s, std::move(pts));
    clock.tick();
    const int narrow = c.drawnCount(s);
    QVERIFY(narrow > 0);
    c.resize(1600, 300);
    c.show();
    QTRY_VERIFY2_WITH_TIMEOUT(c.drawnCount(s) > 2 * narrow, qPrintable(QString("%1 -> %2, axis %3").arg(narrow).arg(c.drawnCount(s)).arg(c.axisRect()->width())), 5000);
  }

  void oneClockForAPage() {
    // Charts on one clock: appends only ask; one tick refreshes each chart that asked, once.
    ChartClock clock;
    LiveChart a("a"), b("b"), idle("idle");
    for (auto* c : {&a, &b, &idle}) {
      c->resize(400, 260);
      c->setClock(&clock);
    }
    const int sa = a.addSeries("x", Qt::red), sb = b.addSeries("y", Qt::blue);
    for (int i = 0; i < 100; ++i) {
      a.append(sa, i, i);
      b.append(sb, i, -i);
    }
    QCOMPARE(clock.pending(), 2);
    QCOMPARE(a.drawnCount(sa), 0);  // nothing drawn before the tick
    QTRY_COMPARE_WITH_TIMEOUT(clock.pending(), 0, 3000);
    QCOMPARE(a.drawnCount(sa), 100);
    QCOMPARE(b.drawnCount(sb), 100);
    QCOMPARE(b.xAxis->range().upper, 99.0);
    {
      // A chart deleted while waiting is skipped.
      auto* gone = new LiveChart("gone");
      gone->setClock(&clock);
      gone->append(gone->addSeries("z", Qt::green), 0, 1);
      QCOMPARE(clock.pending(), 1);
      delete gone;
      clock.tick();
      QCOMPARE(clock.pending(), 0);
    }
  }
};

QTEST_MAIN(TestLiveChart)
#include "tst_live_chart.moc"
