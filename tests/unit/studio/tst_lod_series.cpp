// LodSeries, the Run page charts' store of a whole run: every point kept; a drawn range is
// about as many points as columns at any length; the minimum and maximum of every block survive
// every level (a one-sample spike is drawn at every zoom); zoomed in, the points themselves; x
// kept sorted, gaps kept; memory per point bounded.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/studio/lod_series.h"

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
};

QTEST_GUILESS_MAIN(TstLodSeries)
#include "tst_lod_series.moc"
