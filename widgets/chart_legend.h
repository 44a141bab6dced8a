#pragma once
// A chart's legend in a row of its own below the axes, whole at every width. QCustomPlot gives a
// legend wider than its chart less than it needs and clips each entry's text to its cell
// ("train bc", eight entries reading "GPU"); here the legend takes as many columns as the
// chart's width holds (fewer columns and more rows when narrow), an entry wider than the whole
// chart is elided ("samples/s, ra…", its full name kept), and the chart's minimum height grows
// by the rows past the first, so the axes keep their room (the charts sit in a scroll area).
#include <QObject>
#include <QString>
#include <functional>

class QCustomPlot;
class QCPAbstractPlottable;
class QFont;

namespace stave::widgets {

/// Lays `plot`'s legend out for `width` pixels: its columns (filled row by row) and, where one
/// column is still too wide, its entries' names elided. Returns the legend's rows (0 when the
/// legend is hidden or not in the plot's layout).
int fitLegend(QCustomPlot* plot, int width);

/// The name `plottable` was given (its legend entry may show it elided).
QString legendName(const QCPAbstractPlottable* plottable);

/// `text` broken into lines of at most `width` pixels in `font` (at word boundaries, or between
/// any two characters where a word is longer, as Chinese needs), joined by newlines.
QString wrapText(const QString& text, const QFont& font, int width);

/// Keeps a plot's legend fitted: on every resize of the plot and when fit() is called (entries
/// added or removed).
class LegendFitter : public QObject {
 public:
  /// `minHeight`: the plot's minimum height with no legend or a legend of one row.
  LegendFitter(QCustomPlot* plot, int minHeight);
  /// Fits the legend to the plot's width now, sets the plot's minimum height, and calls the
  /// width hook.
  void fit();
  /// Called with the plot's width after each fit (e.g. to wrap a title to it).
  void setWidthHook(std::function<void(int)> hook) { m_hook = std::move(hook); }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QCustomPlot* m_plot;
  int m_minHeight;
  std::function<void(int)> m_hook;
};

}  // namespace stave::widgets
