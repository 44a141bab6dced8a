#pragma once
// ChartClock: the one timer of a page with charts. A chart that has new points or a changed
// view asks for a refresh within some delay (150 ms after a view change, a second after new
// data); the clock's single timer fires at the soonest request and refreshes every chart that
// asked, each once, one per turn of the event loop. A live run appending to ten charts every half second costs one timer and
// one replot per chart a second, not ten timers; a chart not shown (another page or tab) is
// passed over until it is shown.
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <vector>

class QWidget;

namespace stave::widgets {

class LiveChart;

class ChartClock : public QObject {
  Q_OBJECT
 public:
  explicit ChartClock(QObject* parent = nullptr);
  /// `chart` is refreshed within `delayMs` (with the others that asked by then).
  void request(LiveChart* chart, int delayMs);
  /// Charts waiting for the next tick.
  int pending() const { return static_cast<int>(m_pending.size()); }
  /// Refreshes the first waiting chart now, and the next at the next turn of the event loop
  /// (the timer calls this). A chart hidden in a shown window is passed over: following a live
  /// run redrew every page's charts; its showEvent asks again when it is shown.
  void tick();
  /// Whether a chart due for a refresh is drawn now: shown, or outside any shown window (a
  /// test's, an export's).
  static bool drawsNow(const QWidget* chart);
  /// Refreshes this clock has made (tests: charts not shown are not redrawn).
  int refreshes() const { return m_refreshes; }

 private:
  QTimer m_timer;
  std::vector<QPointer<LiveChart>> m_pending;
  int m_refreshes = 0;
};

}  // namespace stave::widgets
