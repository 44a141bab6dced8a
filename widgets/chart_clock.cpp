#include "widgets/chart_clock.h"

#include <algorithm>

#include "widgets/live_chart.h"

namespace stave::widgets {

ChartClock::ChartClock(QObject* parent) : QObject(parent) {
  m_timer.setSingleShot(true);
  connect(&m_timer, &QTimer::timeout, this, &ChartClock::tick);
}

void ChartClock::request(LiveChart* chart, int delayMs) {
  if (std::find(m_pending.begin(), m_pending.end(), chart) == m_pending.end()) m_pending.emplace_back(chart);
  // The sooner of the tick already due and this one.
  if (m_timer.isActive() && m_timer.remainingTime() <= delayMs) return;
  m_timer.start(delayMs);
}

bool ChartClock::drawsNow(const QWidget* chart) { return chart->isVisible() || !chart->window()->isVisible(); }

void ChartClock::tick() {
  m_timer.stop();
  // One chart per turn of the event loop, drawn at once: ten charts of a day-long run drawn
  // in one go would hold the window for a quarter of a second.
  while (!m_pending.empty()) {
    QPointer<LiveChart> c = m_pending.front();
    m_pending.erase(m_pending.begin());
    if (!c || !drawsNow(c)) continue;
    ++m_refreshes;
    c->refresh(QCustomPlot::rpRefreshHint);
    break;
  }
  if (!m_pending.empty()) QMetaObject::invokeMethod(this, &ChartClock::tick, Qt::QueuedConnection);
}

}  // namespace stave::widgets
