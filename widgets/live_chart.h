#pragma once
// LiveChart: one QCustomPlot whose series grow while a run trains. Each series keeps every
// point of the run (studio::LodSeries: a min/max pyramid beside the points); what is drawn is
// about as many points as the plot has pixel columns (each block's minimum and maximum, so
// spikes stay visible at every zoom, the points themselves when zoomed in). Appends mark the
// chart dirty and a timer replots once per burst, at most once a second for new data. Wheel
// zooms and drag pans along x (y fits the range shown), double-click resets, a click on a legend entry hides or shows its series,
// the values under the cursor show in a tooltip, and the context menu exports PNG and CSV.
// The legend, below the axes, shows every entry whole at any width (chart_legend.h).
// A chart draws either points of its own (append, setPoints) or, as the Run page's do, series
// it does not own: ids of a studio::SeriesStore (a run's session holds them once for every
// view), replotted when the store says one of them changed.
#include <QColor>
#include <QString>
#include <QVector>
#include <QPointer>
#include <optional>
#include <qcustomplot.h>

#include "core/studio/models/lod_series.h"
#include "core/studio/models/run_series.h"
#include "core/studio/models/series_store.h"

class QTimer;

namespace stave::widgets {

class ChartClock;
class LegendFitter;

/// The studio's colour for series i (the ten-colour Tableau palette, repeating): the same run,
/// GPU or loss has the same colour on every page.
QColor seriesColor(int i);

/// The "No data yet" text in the middle of `plot`'s axis rect (hidden once there is data).
QCPItemText* addEmptyText(QCustomPlot* plot);

/// Tick labels of counts with k and M suffixes (250k, 1.5M): iterations at any length.
class CountTicker : public QCPAxisTicker {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;
};

/// Ticks of a duration in seconds at round steps (10 s, 5 min, 1 h, 6 h, 1 d ...) labelled
/// m:ss for a range under an hour (h:mm:ss once past the first hour), h:mm under two days, then
/// "1d 06h".
class DurationTicker : public QCPAxisTicker {
 public:
  /// The label of `seconds` when the axis spans `range` seconds.
  static QString label(double seconds, double range);

 protected:
  double getTickStep(const QCPRange& range) override;
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override;

 private:
  double m_range = 0;
};

class LiveChart : public QCustomPlot {
  Q_OBJECT
 public:
  explicit LiveChart(const QString& title, QWidget* parent = nullptr);

  /// Adds a series; returns its index. `bars` draws it as bars (e.g. a per-rank split).
  int addSeries(const QString& name, const QColor& color);
  /// The series called `name`, added with `color` when it does not exist yet.
  int series(const QString& name, const QColor& color);
  /// Draws the series of `store` (nullptr: none) — every series added by id is looked up there
  /// when drawn, and the chart replots when the store names one of them changed.
  void setStore(const studio::SeriesStore* store);
  const studio::SeriesStore* store() const { return m_store; }
  /// The series that draws `id` of the store, added with `name` and `color` when there is none
  /// (its points stay the store's: append and setPoints are for a chart's own series).
  int bind(studio::SeriesId id, const QString& name, const QColor& color);
  /// The series drawing `id`, -1 when none does.
  int seriesOf(studio::SeriesId id) const;
  int seriesCount() const { return m_series.size(); }
  QString seriesName(int s) const { return m_series[s].name; }
  /// Appends one point (x must not decrease within a series); replots soon.
  void append(int s, double x, double y);
  /// Replaces the points of series `s` by `points` (a run opened from the history store: built
  /// off the GUI thread, moved here in one go).
  void setPoints(int s, studio::LodSeries&& points);
  /// Draws `points` (full resolution) instead of series `s`'s own within [lo, hi]: a zoomed
  /// range of a run opened from the history store (studio::LodSeries::setDetail).
  void setDetail(int s, double lo, double hi, studio::LodSeries&& points);
  /// The pixel columns the series are decimated to.
  int columns() const;
  /// Removes every series and point and forgets the view (a new run or project starts from
  /// nothing: no axes, legend or series of the previous one).
  void clearData();
  /// The text an empty chart shows in the middle (default "No data yet").
  void setEmptyText(const QString& text);
  /// True while the chart has no point to draw and shows the empty text instead of axes.
  bool isEmptyShown() const;
  /// Points held by series `s` (before decimation) and drawn for it (after).
  int pointCount(int s) const { return static_cast<int>(points(s).size()); }
  /// The points of series `s` (all of them, in x order; the store's for a series by id).
  const studio::LodSeries& points(int s) const { return pointsOf(m_series[s]); }
  int drawnCount(int s) const;
  /// Decimates and replots (queued by default; the page's clock draws at once).
  void refresh(QCustomPlot::RefreshPriority priority = QCustomPlot::rpQueuedReplot);
  /// Refreshes on `clock`, the page's one timer, instead of a timer of its own (nullptr: its own).
  void setClock(ChartClock* clock) { m_clock = clock; }
  /// Follow the newest data (true until the user pans or zooms; double-click restores).
  bool following() const { return m_follow; }
  void setAxisLabels(const QString& x, const QString& y);
  /// An x that counts whole things (epochs): ticks only on whole numbers, a marker on every
  /// point, half a step of room on both ends. Off by default (iterations, seconds).
  void setWholeX(bool whole);
  /// What x is, for its tick labels: a count (iterations: 250k, 1.5M), seconds since the run
  /// started (0:30, 12:00, 1d 06h) or whole things (epochs, as setWholeX).
  enum class XKind { Count, Duration, Whole };
  void setXKind(XKind kind);
  /// Exponential moving average of each series, as TensorBoard's (debiased; `weight` 0 = off,
  /// up to 0.999): the smoothed line drawn, the raw one faint behind it. The points held, the
  /// tooltip's values and the CSV stay raw.
  void setSmoothing(double weight);
  double smoothing() const { return m_smoothing; }
  /// The graph that draws series `s` (its faint raw line while smoothing is another).
  QCPGraph* seriesGraph(int s) const { return m_series[s].graph; }
  QCPGraph* rawGraph(int s) const { return m_series[s].raw; }
  /// The smoothed points of series `s` (empty while smoothing is off).
  const studio::LodSeries& smoothedPoints(int s) {
    ensureSmoothed(m_series[s]);
    return m_series[s].smoothed;
  }
  /// Writes every series as CSV (series,x,y), atomically; false with `error`.
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  /// Shows x range `r` (a chart sharing this one's x axis was panned or zoomed).
  void showRange(const QCPRange& r);
  /// Back to following the newest data (a sharing chart was reset).
  void follow();

 signals:
  /// The user panned or zoomed the x axis to `r`.
  void userRangeChanged(const QCPRange& r);
  /// The user reset the view (double-click, context menu).
  void userReset();

 private:
  struct Series {
    QString name;
    std::optional<studio::SeriesId> id;  ///< drawn from the store (then `data` stays empty)
    uint64_t generation = 0;             ///< the store's generation `smoothed` was made from
    studio::LodSeries data;
    studio::LodSeries smoothed;  ///< the moving average, while smoothing is on
    double ema = 0;              ///< its state: the running average (biased) and the weight to
    double emaPow = 1;           ///< the power of the values taken (1 = none yet)
    bool smoothStale = false;    ///< `smoothed` is to be computed again (before it is drawn)
    QCPGraph* graph = nullptr;
    QCPGraph* raw = nullptr;  ///< the raw line, faint, behind the smoothed one
  };
  /// The points a series draws: its own, or the store's.
  const studio::LodSeries& pointsOf(const Series& s) const;
  /// The store changed `ids`: replot when this chart draws one of them.
  void storeChanged(const QVector<studio::SeriesId>& ids);
  void smoothPoint(Series& s, double x, double y) const;
  /// Computes a stale smoothed series again (a whole run set at once, or a new weight): when
  /// the chart is next drawn, not when its points arrive.
  void ensureSmoothed(Series& s) const;
  /// Replots within `delayMs` (the sooner of what is already due and this).
  void schedule(int delayMs = kReplotMs);
  static constexpr int kReplotMs = 150;       ///< after a view change or a first point
  static constexpr int kDataReplotMs = 1000;  ///< after new points
  void showValuesAt(const QPoint& pos);
  void updateEmpty();
  void showLegend(bool shown);
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;
  QVector<Series> m_series;
  QPointer<const studio::SeriesStore> m_store;
  QTimer* m_timer;
  ChartClock* m_clock = nullptr;
  bool m_follow = true;
  bool m_wholeX = false;
  double m_smoothing = 0;
  static constexpr int kMinWidth = 280, kMinHeight = 190;  ///< with a legend of one row at most
  QString m_titleText;
  LegendFitter* m_legendFitter = nullptr;
  QCPTextElement* m_title = nullptr;
  QCPItemText* m_emptyText = nullptr;
};

}  // namespace stave::widgets
