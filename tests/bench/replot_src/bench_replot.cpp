// Replot benchmark of the Run page's charts: 8 series x 100,000 points. Measures, in one run,
// a LiveChart replot (min/max decimation to the plot's width) against a plain QCustomPlot
// replot of the same undecimated data, and one appended burst (100 points per series, then a
// replot). Prints JSON. Target: <= 30 ms per LiveChart replot on a 2-core machine.
#include <QApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <functional>
#include <cstdio>
#include <qcustomplot.h>

#include "widgets/live_chart.h"

namespace {
double msPer(int reps, const std::function<void()>& f) {
  f();  // warm
  QElapsedTimer t;
  t.start();
  for (int i = 0; i < reps; ++i) f();
  return t.nsecsElapsed() / 1e6 / reps;
}
double value(int s, int i) { return std::sin(i * 0.001 * (s + 1)) + 0.1 * std::sin(i * 0.37) + s; }
}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
  QApplication app(argc, argv);
  // 100,000 points a series: what the chart held at most before it kept whole runs.
  const int series = 8, points = 100000, reps = 10;

  stave::widgets::LiveChart live(QStringLiteral("bench"));
  live.resize(900, 320);
  for (int s = 0; s < series; ++s) live.addSeries(QStringLiteral("s%1").arg(s), Qt::blue);
  for (int i = 0; i < points; ++i)
    for (int s = 0; s < series; ++s) live.append(s, i, value(s, i));
  live.show();
  live.refresh();
  const double liveMs = msPer(reps, [&] {
    live.refresh();
    live.replot(QCustomPlot::rpImmediateRefresh);
  });
  int drawn = 0;
  for (int s = 0; s < series; ++s) drawn += live.drawnCount(s);
  int next = points;
  const double burstMs = msPer(reps, [&] {
    for (int k = 0; k < 100; ++k, ++next)
      for (int s = 0; s < series; ++s) live.append(s, next, value(s, next));
    live.refresh();
    live.replot(QCustomPlot::rpImmediateRefresh);
  });

  QCustomPlot plain;
  plain.resize(900, 320);
  QVector<double> x(points);
  for (int i = 0; i < points; ++i) x[i] = i;
  for (int s = 0; s < series; ++s) {
    QVector<double> y(points);
    for (int i = 0; i < points; ++i) y[i] = value(s, i);
    plain.addGraph()->setData(x, y, true);
  }
  plain.rescaleAxes();
  plain.show();
  const double plainMs = msPer(reps, [&] { plain.replot(QCustomPlot::rpImmediateRefresh); });

  QJsonObject out{{"bench", "replot"},
                  {"series", series},
                  {"points_per_series", points},
                  {"plot_width_px", live.axisRect()->width()},
                  {"live_chart_replot_ms", liveMs},
                  {"live_chart_points_drawn", drawn},
                  {"appended_burst_ms", burstMs},
                  {"burst_points_per_series", 100},
                  {"plain_qcustomplot_replot_ms", plainMs},
                  {"ratio_live_to_plain", plainMs > 0 ? liveMs / plainMs : 0.0},
                  {"target_ms", 30},
                  {"meets_target", liveMs <= 30}};
  std::printf("%s", QJsonDocument(out).toJson().constData());
  return 0;
}
