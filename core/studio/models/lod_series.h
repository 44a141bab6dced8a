#pragma once
// LodSeries: one chart series of any length — every point kept (x as double, y as float: 12
// bytes a point) with a level-of-detail pyramid of min/max blocks (8, 64, 512, ... points; about
// 2.3 bytes a point more), so drawing any range at any zoom reads about as many blocks as the
// chart has pixel columns, a spike one sample wide stays visible at every zoom, and zooming in
// far enough draws the points themselves. What the Run page's charts hold for a run of a day or
// more (the first hour and the last are both there). Not thread-safe; Qt-free.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace stave::studio {

class LodSeries {
 public:
  /// Appends a point; x must not decrease (a smaller x is raised to the last one). NaN y is a
  /// gap.
  void append(double x, double y);
  void clear();
  size_t size() const { return m_x.size(); }
  bool empty() const { return m_x.empty(); }
  double x(size_t i) const { return m_x[i]; }
  double y(size_t i) const { return m_y[i]; }
  /// The first point with x >= `x` (size() when none).
  size_t lowerBound(double x) const;
  /// The points that draw [lo, hi] in `columns` columns: every point when there are at most
  /// 2 x columns of them, else the minimum and maximum of each block of the finest level with
  /// at most 2 x columns blocks in the range (in x order: about 4 points a column), plus the
  /// nearest point outside the range on each side so lines reach the edges.
  void query(double lo, double hi, int columns, std::vector<double>& outX, std::vector<double>& outY) const;
  /// Points at full resolution for x in [lo, hi], drawn there instead of this series' own: a
  /// run opened from the history store holds its samples as 10 s buckets, and the range a
  /// chart is zoomed into is read again from the run's log (studio::readSampleDetail). One
  /// window at a time (a new one replaces it; clear() drops it); size(), x(), y(), minY() and
  /// maxY() stay the series' own.
  void setDetail(double lo, double hi, LodSeries points);
  void clearDetail();
  /// Whether the detail window covers [lo, hi].
  bool detailCovers(double lo, double hi) const;
  /// The smallest and largest y held (NaN when there is none).
  double minY() const { return m_minY; }
  double maxY() const { return m_maxY; }
  /// Memory held, in bytes.
  size_t bytes() const;

  /// Points per block of level k: 8^(k+1).
  static size_t blockSize(size_t level);

 private:
  struct Block {
    uint32_t iMin = 0, iMax = 0;  ///< the raw points of the block's minimum and maximum
  };
  void queryOwn(double lo, double hi, int columns, std::vector<double>& outX, std::vector<double>& outY) const;
  void emitRaw(size_t from, size_t to, std::vector<double>& outX, std::vector<double>& outY) const;
  std::vector<double> m_x;
  std::vector<float> m_y;
  std::vector<std::vector<Block>> m_levels;
  double m_minY = std::nan(""), m_maxY = std::nan("");
  std::shared_ptr<const LodSeries> m_detail;  ///< the detail window's points (shared: copies stay cheap)
  double m_detailLo = 0, m_detailHi = 0;
};

}  // namespace stave::studio
