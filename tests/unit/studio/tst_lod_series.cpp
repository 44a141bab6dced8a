// LodSeries, the Run page charts' store of a whole run: every point kept; a drawn range is
// about as many points as columns at any length; the minimum and maximum of every block survive
// every level (a one-sample spike is drawn at every zoom); zoomed in, the points themselves; x
// kept sorted, gaps kept; memory per point bounded. A detail window (a zoomed range read again
// at full resolution) is drawn instead of the series' own points there, and only there.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/studio/models/lod_series.h"

using stave::studio::LodSeries;

class TstLodSeries : public QObject {
  Q_OBJECT
 private slots:
  void spikeVisibleAtEveryZoom() {
    LodSeries s;
    const int n = 1000000;
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> noise(40, 60);
    const int spike = 654321, dip = 12345;
    for (int i = 0; i < n; ++i) s.append(i * 0.5, i == spike ? 100.0 : i == dip ? 0.0 : noise(rng));
    QCOMPARE(s.size(), size_t(n));
    QCOMPARE(s.minY(), 0.0);
    QCOMPARE(s.maxY(), 100.0);
    std::vector<double> x, y;
    // From the whole run down to a few points around each extreme.
    for (double width : {n * 0.5, 1e5, 1e4, 1e3, 100.0, 10.0}) {
      for (int at : {spike, dip}) {
        const double centre = at * 0.5, lo = std::max(0.0, centre - width / 2), hi = centre + width / 2;
        s.query(lo, hi, 800, x, y);
        QVERIFY2(x.size() <= 2 * 4 * 800 + 2 * 64 + 2, qPrintable(QString::number(x.size())));
        QVERIFY(std::is_sorted(x.begin(), x.end()));
        const double want = at == spike ? 100.0 : 0.0;
        QVERIFY2(std::find(y.begin(), y.end(), want) != y.end(), qPrintable(QString("width %1").arg(width)));
        // The point sits where it was.
        const auto k = std::find(y.begin(), y.end(), want) - y.begin();
        QCOMPARE(x[static_cast<size_t>(k)], centre);
      }
    }
    // Zoomed in: every point of the range, and one on each side.
    s.query(1000, 1010, 800, x, y);
    QCOMPARE(x.size(), size_t(21 + 2));
    QCOMPARE(x[1], 1000.0);
    // Bounded memory: about 14 bytes a point (12 for the point, the pyramid ~2.3), with the
    // vectors' spare capacity at most doubling it.
    QVERIFY2(s.bytes() < size_t(n) * 30, qPrintable(QString::number(s.bytes())));
  }

  void sortedGapsAndClear() {
    LodSeries s;
    s.append(1, 1);
    s.append(0.5, 2);  // a smaller x is raised: the series stays sorted
    s.append(2, std::nan(""));
    s.append(3, 4);
    QCOMPARE(s.x(1), 1.0);
    QVERIFY(std::isnan(s.y(2)));
    QCOMPARE(s.minY(), 1.0);
    QCOMPARE(s.maxY(), 4.0);
    QCOMPARE(s.lowerBound(2.5), size_t(3));
    std::vector<double> x, y;
    s.query(0, 10, 100, x, y);
    QCOMPARE(x.size(), size_t(4));
    QVERIFY(std::isnan(y[2]));  // the gap is drawn as a gap
    // A block of gaps only: nothing invented.
    LodSeries g;
    for (int i = 0; i < 64; ++i) g.append(i, std::nan(""));
    for (int i = 64; i < 4096; ++i) g.append(i, 1.0);
    g.query(0, 4095, 10, x, y);
    QVERIFY(std::all_of(y.begin(), y.end(), [](double v) { return std::isnan(v) || v == 1.0; }));
    s.clear();
    QCOMPARE(s.size(), size_t(0));
    QVERIFY(std::isnan(s.minY()));
  }

  void detailWindowReplacesTheRangeOnly() {
    // Buckets every 10 s over an hour (their minimum and maximum), as a run from the store.
    LodSeries s;
    for (int b = 0; b < 360; ++b) {
      s.append(b * 10.0 + 5, 40);
      s.append(b * 10.0 + 5, 60);
    }
    const size_t own = s.size();
    // The half-second samples of [1000, 1100], one of them a spike the buckets never had.
    LodSeries fine;
    for (int i = 0; i <= 200; ++i) fine.append(1000 + i * 0.5, i == 77 ? 99.0 : 50.0);
    QVERIFY(!s.detailCovers(1000, 1100));
    s.setDetail(1000, 1100, fine);
    QVERIFY(s.detailCovers(1010, 1090));
    QVERIFY(!s.detailCovers(900, 1090));
    QCOMPARE(s.size(), own);  // the series' own points are unchanged
    QCOMPARE(s.maxY(), 60.0);
    std::vector<double> x, y;
    // Inside the window: the samples themselves.
    s.query(1020, 1060, 800, x, y);
    QCOMPARE(x.size(), size_t(81 + 2));
    QVERIFY(std::find(y.begin(), y.end(), 99.0) != y.end());
    QVERIFY(std::is_sorted(x.begin(), x.end()));
    // Across it: the buckets outside, the samples inside, in x order.
    s.query(0, 3600, 2000, x, y);
    QVERIFY(std::is_sorted(x.begin(), x.end()));
    QVERIFY(std::find(y.begin(), y.end(), 99.0) != y.end());
    for (size_t i = 0; i < x.size(); ++i)
      if (x[i] < 1000 || x[i] > 1100) QVERIFY(y[i] == 40 || y[i] == 60);
    const auto inside = std::count_if(x.begin(), x.end(), [](double v) { return v >= 1000 && v <= 1100; });
    QVERIFY2(inside > 20, qPrintable(QString::number(inside)));
    // Away from it: the series' own.
    s.query(2000, 2100, 800, x, y);
    QVERIFY(std::all_of(y.begin(), y.end(), [](double v) { return v == 40 || v == 60; }));
    // Copies share it; clearDetail() and clear() drop it.
    LodSeries copy = s;
    s.clearDetail();
    s.query(1020, 1060, 800, x, y);
    QVERIFY(std::find(y.begin(), y.end(), 99.0) == y.end());
    copy.query(1020, 1060, 800, x, y);
    QVERIFY(std::find(y.begin(), y.end(), 99.0) != y.end());
    copy.clear();
    QVERIFY(!copy.detailCovers(1020, 1060));
  }
};

QTEST_GUILESS_MAIN(TstLodSeries)
#include "tst_lod_series.moc"
