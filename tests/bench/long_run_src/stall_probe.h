#pragma once
// StallProbe: the event loop's longest stall, measured by a 10 ms timer (the gap between two of
// its ticks). The studio benchmark and the long-run GUI test use it.
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <algorithm>

namespace stave::bench {

class StallProbe {
 public:
  StallProbe() {
    m_timer.setInterval(10);
    QObject::connect(&m_timer, &QTimer::timeout, [this] {
      if (m_gap.isValid()) m_worst = std::max(m_worst, m_gap.restart());
      else m_gap.start();
    });
    m_timer.start();
  }
  /// The longest gap between two ticks since the start or the last reset, in ms.
  qint64 worst() const { return m_worst; }
  void reset() {
    m_worst = 0;
    m_gap.invalidate();
  }

 private:
  QTimer m_timer;
  QElapsedTimer m_gap;
  qint64 m_worst = 0;
};

}  // namespace stave::bench
