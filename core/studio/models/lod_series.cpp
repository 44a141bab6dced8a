#include "core/studio/models/lod_series.h"

#include <algorithm>
#include <cmath>

namespace stave::studio {
namespace {
constexpr size_t kFan = 8;
}

size_t LodSeries::blockSize(size_t level) {
  size_t b = kFan;
  for (size_t k = 0; k < level; ++k) b *= kFan;
  return b;
}

void LodSeries::clear() {
  m_x.clear();
  m_y.clear();
  m_levels.clear();
  m_minY = m_maxY = std::nan("");
  m_detail.reset();
  m_x.shrink_to_fit();
  m_y.shrink_to_fit();
}

void LodSeries::append(double x, double y) {
  if (!m_x.empty() && !(x >= m_x.back())) x = m_x.back();  // sorted (and no NaN x)
  m_x.push_back(x);
  m_y.push_back(std::isfinite(y) ? static_cast<float>(y) : std::nanf(""));
  if (std::isfinite(y)) {
    const double v = m_y.back();
    m_minY = std::isnan(m_minY) ? v : std::min(m_minY, v);
    m_maxY = std::isnan(m_maxY) ? v : std::max(m_maxY, v);
  }
  // Close the blocks this point completes, level by level.
  size_t n = m_x.size();
  for (size_t level = 0; n % kFan == 0; ++level, n /= kFan) {
    if (m_levels.size() <= level) m_levels.emplace_back();
    Block b;
    bool any = false;
    if (level == 0) {
      for (size_t i = m_x.size() - kFan; i < m_x.size(); ++i) {
        if (std::isnan(m_y[i])) continue;
        if (!any || m_y[i] < m_y[b.iMin]) b.iMin = static_cast<uint32_t>(i);
        if (!any || m_y[i] > m_y[b.iMax]) b.iMax = static_cast<uint32_t>(i);
        any = true;
      }
      if (!any) b.iMin = b.iMax = static_cast<uint32_t>(m_x.size() - 1);
    } else {
      const auto& below = m_levels[level - 1];
      for (size_t j = below.size() - kFan; j < below.size(); ++j) {
        const Block& c = below[j];
        if (std::isnan(m_y[c.iMin])) continue;
        if (!any || m_y[c.iMin] < m_y[b.iMin]) b.iMin = c.iMin;
        if (!any || m_y[c.iMax] > m_y[b.iMax]) b.iMax = c.iMax;
        any = true;
      }
      if (!any) b.iMin = b.iMax = below.back().iMax;
    }
    m_levels[level].push_back(b);
  }
}

size_t LodSeries::lowerBound(double x) const {
  return static_cast<size_t>(std::lower_bound(m_x.begin(), m_x.end(), x) - m_x.begin());
}

void LodSeries::emitRaw(size_t from, size_t to, std::vector<double>& outX, std::vector<double>& outY) const {
  for (size_t i = from; i < to; ++i) {
    outX.push_back(m_x[i]);
    outY.push_back(m_y[i]);
  }
}

void LodSeries::setDetail(double lo, double hi, LodSeries points) {
  points.m_detail.reset();
  m_detail = std::make_shared<const LodSeries>(std::move(points));
  m_detailLo = lo;
  m_detailHi = hi;
}

void LodSeries::clearDetail() { m_detail.reset(); }

bool LodSeries::detailCovers(double lo, double hi) const {
  return m_detail && m_detailLo <= lo && hi <= m_detailHi;
}

void LodSeries::query(double lo, double hi, int columns, std::vector<double>& outX,
                      std::vector<double>& outY) const {
  if (!m_detail || !(hi >= m_detailLo && lo <= m_detailHi)) {
    queryOwn(lo, hi, columns, outX, outY);
    return;
  }
  // The series' own points outside the window, the window's inside it (in x order). The
  // window's part gets the columns its share of the range takes.
  std::vector<double> ox, oy, dx, dy;
  queryOwn(lo, hi, columns, ox, oy);
  const double dlo = std::max(lo, m_detailLo), dhi = std::min(hi, m_detailHi);
  const double share = hi > lo ? (dhi - dlo) / (hi - lo) : 1.0;
  m_detail->queryOwn(dlo, dhi, std::max(1, static_cast<int>(std::ceil(columns * share))), dx, dy);
  outX.clear();
  outY.clear();
  size_t i = 0;
  for (; i < ox.size() && ox[i] < m_detailLo; ++i) {
    outX.push_back(ox[i]);
    outY.push_back(oy[i]);
  }
  for (size_t k = 0; k < dx.size(); ++k)
    if (dx[k] >= m_detailLo && dx[k] <= m_detailHi) {
      outX.push_back(dx[k]);
      outY.push_back(dy[k]);
    }
  for (; i < ox.size(); ++i)
    if (ox[i] > m_detailHi) {
      outX.push_back(ox[i]);
      outY.push_back(oy[i]);
    }
}

void LodSeries::queryOwn(double lo, double hi, int columns, std::vector<double>& outX,
                         std::vector<double>& outY) const {
  outX.clear();
  outY.clear();
  if (m_x.empty()) return;
  const size_t begin = lowerBound(lo);
  const size_t end = static_cast<size_t>(std::upper_bound(m_x.begin(), m_x.end(), hi) - m_x.begin());
  const size_t from = begin > 0 ? begin - 1 : 0, to = std::min(m_x.size(), end + 1);
  const size_t budget = 2 * static_cast<size_t>(std::max(1, columns));
  if (to - from <= budget || !(hi > lo)) {
    emitRaw(from, to, outX, outY);
    return;
  }
  // The finest level with at most `budget` blocks over the range.
  size_t level = 0;
  while (level + 1 < m_levels.size() && (end - begin) / blockSize(level) > budget) ++level;
  if (level >= m_levels.size()) {
    emitRaw(from, to, outX, outY);
    return;
  }
  const size_t bs = blockSize(level);
  const auto& blocks = m_levels[level];
  emitRaw(from, begin, outX, outY);
  // The raw points before the first whole block, the whole blocks, the raw points after.
  size_t firstBlock = (begin + bs - 1) / bs, lastBlock = std::min(end / bs, blocks.size());
  if (firstBlock > lastBlock) firstBlock = lastBlock;
  emitRaw(begin, std::min(end, firstBlock * bs), outX, outY);
  for (size_t k = firstBlock; k < lastBlock; ++k) {
    const Block& b = blocks[k];
    const uint32_t a = std::min(b.iMin, b.iMax), c = std::max(b.iMin, b.iMax);
    outX.push_back(m_x[a]);
    outY.push_back(m_y[a]);
    if (c != a) {
      outX.push_back(m_x[c]);
      outY.push_back(m_y[c]);
    }
  }
  emitRaw(std::max(begin, lastBlock * bs), end, outX, outY);
  emitRaw(end, to, outX, outY);
}

size_t LodSeries::bytes() const {
  size_t b = m_x.capacity() * sizeof(double) + m_y.capacity() * sizeof(float);
  for (const auto& l : m_levels) b += l.capacity() * sizeof(Block);
  if (m_detail) b += m_detail->bytes();
  return b;
}

}  // namespace stave::studio
