#include "widgets/live_chart.h"

#include <QFileDialog>
#include <QMenu>
#include <QTimer>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "core/base/atomic_file.h"
#include "core/studio/engine_text.h"
#include "widgets/chart_clock.h"
#include "widgets/chart_legend.h"

namespace stave::widgets {

QCPItemText* addEmptyText(QCustomPlot* plot) {
  auto* text = new QCPItemText(plot);
  text->setClipToAxisRect(false);
  text->position->setType(QCPItemPosition::ptAxisRectRatio);
  text->position->setCoords(0.5, 0.5);
  text->setPositionAlignment(Qt::AlignCenter);
  text->setColor(plot->palette().color(QPalette::PlaceholderText));
  text->setText(LiveChart::tr("No data yet"));
  return text;
}

QColor seriesColor(int i) {
  static const QColor colors[] = {
      QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40),
      QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
      QColor(188, 189, 34), QColor(23, 190, 207)};
  constexpr int n = sizeof colors / sizeof colors[0];
  return colors[((i % n) + n) % n];
}

LiveChart::LiveChart(const QString& title, QWidget* parent)
    : QCustomPlot(parent), m_timer(new QTimer(this)), m_titleText(title) {
  setObjectName(title);
  setMinimumSize(kMinWidth, kMinHeight);
  setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectLegend);
  // Wheel and drag move along x; y fits what the visible range holds (refresh()).
  axisRect()->setRangeZoom(Qt::Horizontal);
  axisRect()->setRangeDrag(Qt::Horizontal);
  setNoAntialiasingOnDrag(true);
  plotLayout()->insertRow(0);
  m_title = new QCPTextElement(this, title, QFont(font().family(), font().pointSize(), QFont::Bold));
  plotLayout()->addElement(0, 0, m_title);
  // The legend in a row of its own below the axes: inside, it would hide the newest points.
  axisRect()->insetLayout()->take(legend);
  legend->setFillOrder(QCPLegend::foColumnsFirst);
  legend->setWrap(4);
  legend->setBorderPen(Qt::NoPen);
  legend->setBrush(Qt::NoBrush);
  showLegend(false);
  legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
  legend->setIconSize(20, 10);  // a line and a marker: more entries to a row
  legend->setIconTextPadding(4);
  // Entries whole at every width (more rows when narrow), and the title wrapped to it.
  m_legendFitter = new LegendFitter(this, kMinHeight);
  m_legendFitter->setWidthHook([this](int width) {
    const QString text = wrapText(m_titleText, m_title->font(), width - 8);
    if (text != m_title->text()) m_title->setText(text);
  });
  m_emptyText = addEmptyText(this);
  updateEmpty();
  m_timer->setSingleShot(true);
  m_timer->setInterval(kReplotMs);
  connect(m_timer, &QTimer::timeout, this, [this] { refresh(); });
  // The user moved the view: stop following until a double-click.
  connect(this, &QCustomPlot::mousePress, this, [this] { m_follow = false; });
  connect(this, &QCustomPlot::mouseWheel, this, [this] {
    m_follow = false;
    schedule();
    emit userRangeChanged(xAxis->range());
  });
  connect(this, &QCustomPlot::mouseRelease, this, [this] {
    schedule();
    if (!m_follow) emit userRangeChanged(xAxis->range());
  });
  connect(this, &QCustomPlot::mouseDoubleClick, this, [this] {
    follow();
    emit userReset();
  });
  connect(this, &QCustomPlot::legendClick, this,
          [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
            if (auto* pi = qobject_cast<QCPPlottableLegendItem*>(item)) {
              pi->plottable()->setVisible(!pi->plottable()->visible());
              pi->setTextColor(pi->plottable()->visible() ? Qt::black : Qt::gray);
              refresh();  // its faint raw line goes with it
            }
          });
  connect(this, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) { showValuesAt(e->pos()); });
  setContextMenuPolicy(Qt::CustomContextMenu);
  connect(this, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    QMenu menu(this);
    menu.addAction(tr("Export PNG…"), this, [this] {
      const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), objectName() + QStringLiteral(".png"),
                                                        tr("PNG images (*.png)"));
      if (!path.isEmpty()) savePng(path, 0, 0, 2.0);
    });
    menu.addAction(tr("Export CSV…"), this, [this] {
      const QString path = QFileDialog::getSaveFileName(this, tr("Export chart data"), objectName() + QStringLiteral(".csv"),
                                                        tr("CSV files (*.csv)"));
      if (!path.isEmpty()) exportCsv(path);
    });
    menu.addAction(tr("Reset view"), this, [this] {
      follow();
      emit userReset();
    });
    menu.exec(mapToGlobal(pos));
  });
}

int LiveChart::addSeries(const QString& name, const QColor& color) {
  Series s;
  s.name = name;
  // The faint raw line first, so the smoothed one is drawn over it.
  s.raw = addGraph();
  QColor faint = color;
  faint.setAlpha(70);
  s.raw->setPen(QPen(faint, 1.0));
  s.raw->setAdaptiveSampling(false);
  s.raw->removeFromLegend();
  s.raw->setVisible(false);
  s.graph = addGraph();
  s.graph->setName(name);
  s.graph->setPen(QPen(color, 1.0));  // wider pens take the slow raster path (6x here)
  s.graph->setAdaptiveSampling(false);  // the decimation is ours
  m_series.push_back(s);
  showLegend(m_series.size() > 1);
  m_legendFitter->fit();
  return m_series.size() - 1;
}

int LiveChart::series(const QString& name, const QColor& color) {
  for (int i = 0; i < m_series.size(); ++i)
    if (m_series[i].name == name) return i;
  return addSeries(name, color);
}

void LiveChart::setStore(const studio::SeriesStore* store) {
  if (store == m_store) return;
  if (m_store) disconnect(m_store, nullptr, this, nullptr);
  m_store = store;
  if (store) {
    connect(store, &studio::SeriesStore::seriesChanged, this, &LiveChart::storeChanged);
    connect(store, &studio::SeriesStore::cleared, this, [this] { schedule(); });
  }
  schedule();
}

int LiveChart::seriesOf(studio::SeriesId id) const {
  for (int i = 0; i < m_series.size(); ++i)
    if (m_series[i].id == id) return i;
  return -1;
}

int LiveChart::bind(studio::SeriesId id, const QString& name, const QColor& color) {
  if (const int i = seriesOf(id); i >= 0) return i;
  const int i = addSeries(name, color);
  m_series[i].id = id;
  schedule(kReplotMs);  // what the store holds of it already is drawn now
  return i;
}

const studio::LodSeries& LiveChart::pointsOf(const Series& s) const {
  if (!s.id) return s.data;
  static const studio::LodSeries none;
  const studio::LodSeries* p = m_store ? m_store->find(*s.id) : nullptr;
  return p ? *p : none;
}

void LiveChart::storeChanged(const QVector<studio::SeriesId>& ids) {
  // Only a chart drawing a changed series replots: new points at most once a second (a live
  // run appends every half second), a first point or a series replaced (a run opened from the
  // history store, a zoomed range read again) soon.
  int delay = -1;
  for (const auto& s : m_series) {
    if (!s.id || !ids.contains(*s.id)) continue;
    const bool fresh = s.graph->data()->isEmpty() || m_store->generation(*s.id) != s.generation;
    delay = delay < 0 ? (fresh ? kReplotMs : kDataReplotMs) : std::min(delay, fresh ? kReplotMs : kDataReplotMs);
  }
  if (delay >= 0) schedule(delay);
}

void LiveChart::append(int s, double x, double y) {
  auto& se = m_series[s];
  se.data.append(x, y);  // x kept sorted there
  if (m_smoothing > 0 && !se.smoothStale) smoothPoint(se, se.data.x(se.data.size() - 1), y);
  // New data is drawn at most once a second (a live run appends every half second on every
  // chart: replotting each time cost a tenth of a core); a chart that had nothing shows it now.
  schedule(se.data.size() == 1 ? kReplotMs : kDataReplotMs);
}

void LiveChart::setPoints(int s, studio::LodSeries&& points) {
  auto& se = m_series[s];
  se.data = std::move(points);
  se.smoothed.clear();
  se.ema = 0;
  se.emaPow = 1;
  se.smoothStale = m_smoothing > 0;
  schedule(kReplotMs);
}

void LiveChart::setDetail(int s, double lo, double hi, studio::LodSeries&& points) {
  m_series[s].data.setDetail(lo, hi, std::move(points));
  schedule();
}

int LiveChart::columns() const { return std::max(50, axisRect()->width()); }

void LiveChart::ensureSmoothed(Series& s) const {
  const studio::LodSeries& data = pointsOf(s);
  if (s.id) {
    // The store's series: replaced (or dropped and made again) since it was averaged, it is
    // averaged again; appended to, the average goes on from where it was.
    const uint64_t generation = m_store ? m_store->generation(*s.id) : 0;
    if (generation != s.generation || s.smoothed.size() > data.size()) s.smoothStale = true;
    s.generation = generation;
  }
  if (s.smoothStale) {
    s.smoothStale = false;
    s.smoothed.clear();
    s.ema = 0;
    s.emaPow = 1;
  }
  if (m_smoothing > 0)
    for (size_t i = s.smoothed.size(); i < data.size(); ++i) smoothPoint(s, data.x(i), data.y(i));
}

void LiveChart::smoothPoint(Series& s, double x, double y) const {
  // TensorBoard's: a running average started at zero, divided by (1 - w^n) so the first
  // points are not pulled towards zero; a non-finite value leaves it where it was.
  if (std::isfinite(y)) {
    s.ema = s.ema * m_smoothing + (1 - m_smoothing) * y;
    s.emaPow *= m_smoothing;
  }
  const double debias = 1 - s.emaPow;
  s.smoothed.append(x, debias > 0 ? s.ema / debias : y);
}

void LiveChart::setSmoothing(double weight) {
  weight = std::clamp(weight, 0.0, 0.999);
  if (weight == m_smoothing) return;
  m_smoothing = weight;
  for (auto& s : m_series) {
    s.smoothed.clear();
    s.ema = 0;
    s.emaPow = 1;
    s.smoothStale = weight > 0;
  }
  schedule();
}

void LiveChart::clearData() {
  clearGraphs();
  m_series.clear();
  showLegend(false);
  m_legendFitter->fit();
  xAxis->setRange(0, 1);
  yAxis->setRange(0, 1);
  m_follow = true;
  updateEmpty();
  schedule();
}

void LiveChart::showLegend(bool shown) {
  // In the layout only while shown: a hidden legend in the layout still caps the column's width
  // at its own (an empty chart's axes were 50 px wide, a one-series chart's as wide as its name).
  const bool inLayout = plotLayout()->hasElement(2, 0) && plotLayout()->element(2, 0) == legend;
  legend->setVisible(shown);
  if (shown && !inLayout) {
    plotLayout()->addElement(2, 0, legend);
    plotLayout()->setRowStretchFactor(2, 0.001);
  } else if (!shown && inLayout) {
    plotLayout()->take(legend);
    plotLayout()->simplify();
  }
}

void LiveChart::setEmptyText(const QString& text) {
  m_emptyText->setText(text);
  schedule();
}

bool LiveChart::isEmptyShown() const {
  return m_emptyText->visible();
}

void LiveChart::updateEmpty() {
  bool empty = true;
  for (const auto& s : m_series) empty = empty && pointsOf(s).empty();
  m_emptyText->setVisible(empty);
  // No numbers on the axes of an empty chart: 0..5 of nothing looked like data.
  for (QCPAxis* a : {xAxis, yAxis}) {
    a->setTickLabels(!empty);
    a->setTicks(!empty);
    a->grid()->setVisible(!empty);
  }
}

void LiveChart::resizeEvent(QResizeEvent* event) {
  QCustomPlot::resizeEvent(event);
  // Lay out again at the new size now: a chart resized while its page was hidden kept the
  // layout of its first, tiny size (axes in a 5 px corner) until data arrived. Its points are
  // taken again for the new width soon after (a whole run set while the page was hidden was
  // decimated for the 50 columns of a chart never laid out).
  replot(QCustomPlot::rpQueuedReplot);
  if (event->size().width() != event->oldSize().width() && !m_series.isEmpty()) schedule();
}

void LiveChart::showEvent(QShowEvent* event) {
  QCustomPlot::showEvent(event);
  replot(QCustomPlot::rpQueuedReplot);
  if (!m_series.isEmpty()) schedule();  // decimated for the width it has now
}

void LiveChart::showRange(const QCPRange& r) {
  m_follow = false;
  xAxis->setRange(r);
  schedule();
}

void LiveChart::follow() {
  m_follow = true;
  refresh();
}

int LiveChart::drawnCount(int s) const { return m_series[s].graph->data()->size(); }

void LiveChart::schedule(int delayMs) {
  if (m_clock) {
    m_clock->request(this, delayMs);
    return;
  }
  // The sooner of a replot already due and this one.
  if (m_timer->isActive() && m_timer->remainingTime() <= delayMs) return;
  m_timer->start(delayMs);
}

void LiveChart::setAxisLabels(const QString& x, const QString& y) {
  xAxis->setLabel(x);
  yAxis->setLabel(y);
}

QString CountTicker::getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) {
  const double a = std::abs(tick);
  const auto trimmed = [](double v) {
    QString t = QString::number(v, 'f', 1);
    if (t.endsWith(QLatin1String(".0"))) t.chop(2);
    return t;
  };
  if (a >= 1e6) return trimmed(tick / 1e6) + QLatin1Char('M');
  if (a >= 1e4) return trimmed(tick / 1e3) + QLatin1Char('k');
  return QCPAxisTicker::getTickLabel(tick, locale, formatChar, precision);
}

double DurationTicker::getTickStep(const QCPRange& range) {
  m_range = range.size();
  static const double steps[] = {1,    2,    5,     10,    15,    30,    60,     120,    300,   600,
                                 900,  1800, 3600,  7200,  10800, 21600, 43200,  86400,  172800,
                                 259200, 604800, 1209600, 2592000};
  const double want = range.size() / std::max(1, tickCount());
  for (double s : steps)
    if (s >= want) return s;
  return cleanMantissa(want);
}

QString DurationTicker::label(double seconds, double range) {
  const bool negative = seconds < 0;
  auto total = static_cast<qint64>(std::llround(std::abs(seconds)));
  QString text;
  if (range < 3600 && total >= 3600) {  // zoomed in, hours into the run: 12:05:30
    text = QStringLiteral("%1:%2:%3")
               .arg(total / 3600)
               .arg((total / 60) % 60, 2, 10, QLatin1Char('0'))
               .arg(total % 60, 2, 10, QLatin1Char('0'));
  } else if (range < 3600) {
    text = QStringLiteral("%1:%2").arg(total / 60).arg(total % 60, 2, 10, QLatin1Char('0'));
  } else if (range < 2 * 86400) {
    total = (total + 30) / 60;  // minutes
    text = QStringLiteral("%1:%2").arg(total / 60).arg(total % 60, 2, 10, QLatin1Char('0'));
  } else {
    total = (total + 1800) / 3600;  // hours
    text = QStringLiteral("%1d %2h").arg(total / 24).arg(total % 24, 2, 10, QLatin1Char('0'));
  }
  return negative ? QLatin1Char('-') + text : text;
}

QString DurationTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  return label(tick, m_range);
}

void LiveChart::setXKind(XKind kind) {
  if (kind == XKind::Whole) return setWholeX(true);
  m_wholeX = false;
  if (kind == XKind::Duration)
    xAxis->setTicker(QSharedPointer<DurationTicker>::create());
  else
    xAxis->setTicker(QSharedPointer<CountTicker>::create());
  schedule();
}

void LiveChart::setWholeX(bool whole) {
  m_wholeX = whole;
  if (whole) {
    // Steps of 1, 2, 5, 10, ... epochs: never 1.2, 1.4.
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    xAxis->setTicker(ticker);
  } else {
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
  schedule();
}

void LiveChart::refresh(QCustomPlot::RefreshPriority priority) {
  if (m_follow) {
    // Fit everything held.
    bool any = false;
    double xlo = 0, xhi = 1, ylo = 0, yhi = 1;
    for (const auto& s : m_series) {
      const studio::LodSeries& data = pointsOf(s);
      if (data.empty() || !s.graph->visible()) continue;
      const double first = data.x(0), last = data.x(data.size() - 1);
      if (std::isnan(data.minY())) continue;  // only gaps
      if (!any) {
        xlo = first;
        xhi = last;
        ylo = data.minY();
        yhi = data.maxY();
      }
      xlo = std::min(xlo, first);
      xhi = std::max(xhi, last);
      ylo = std::min(ylo, data.minY());
      yhi = std::max(yhi, data.maxY());
      any = true;
    }
    if (any) {
      if (m_wholeX) {  // the first and last epochs' markers whole, not cut by the frame
        xlo -= 0.5;
        xhi += 0.5;
      }
      if (xhi <= xlo) xhi = xlo + 1;
      const double pad = yhi > ylo ? (yhi - ylo) * 0.06 : std::max(1e-6, std::abs(yhi) * 0.1 + 1e-3);
      xAxis->setRange(xlo, xhi);
      yAxis->setRange(ylo - pad, yhi + pad);
    }
  }
  updateEmpty();
  const QCPRange r = xAxis->range();
  const int columns = this->columns();
  std::vector<double> dx, dy;
  // A view the user chose: y fits the points in it (the blocks' minima and maxima among them).
  double ylo = std::nan(""), yhi = std::nan("");
  const auto fitY = [&](bool shown) {
    if (m_follow || !shown) return;
    for (size_t i = 0; i < dx.size(); ++i) {
      if (dx[i] < r.lower || dx[i] > r.upper || !std::isfinite(dy[i])) continue;
      ylo = std::isnan(ylo) ? dy[i] : std::min(ylo, dy[i]);
      yhi = std::isnan(yhi) ? dy[i] : std::max(yhi, dy[i]);
    }
  };
  for (auto& s : m_series) {
    ensureSmoothed(s);
    const studio::LodSeries& data = pointsOf(s);
    const bool smooth = m_smoothing > 0 && data.size() > 1;
    s.raw->setVisible(smooth && s.graph->visible());
    if (smooth) {
      data.query(r.lower, r.upper, columns, dx, dy);
      fitY(s.graph->visible());
      s.raw->setData(QVector<double>(dx.begin(), dx.end()), QVector<double>(dy.begin(), dy.end()), true);
    }
    (smooth ? s.smoothed : data).query(r.lower, r.upper, columns, dx, dy);
    fitY(s.graph->visible());
    s.graph->setData(QVector<double>(dx.begin(), dx.end()), QVector<double>(dy.begin(), dy.end()), true);
    // A line needs two points: a lone point (the first epoch, the first step) is a disc; on a
    // whole-number x every point is.
    const bool markers = m_wholeX || data.size() == 1;
    s.graph->setScatterStyle(markers ? QCPScatterStyle(QCPScatterStyle::ssDisc, 5)
                                     : QCPScatterStyle(QCPScatterStyle::ssNone));
  }
  // About one y tick per 24 pixels of height: a short chart's labels never run into each other.
  yAxis->ticker()->setTickCount(std::clamp(axisRect()->height() / 24, 2, 5));
  if (!std::isnan(ylo)) {
    const double pad = yhi > ylo ? (yhi - ylo) * 0.06 : std::max(1e-6, std::abs(yhi) * 0.1 + 1e-3);
    yAxis->setRange(ylo - pad, yhi + pad);
  }
  replot(priority);
}

void LiveChart::showValuesAt(const QPoint& pos) {
  if (!axisRect()->rect().contains(pos)) return;
  const double x = xAxis->pixelToCoord(pos.x());
  QStringList lines{QStringLiteral("%1 = %2").arg(xAxis->label().isEmpty() ? QStringLiteral("x") : xAxis->label())
                        .arg(x, 0, 'g', 6)};
  for (const auto& s : m_series) {
    const studio::LodSeries& data = pointsOf(s);
    if (data.empty() || !s.graph->visible()) continue;
    size_t i = std::min(data.lowerBound(x), data.size() - 1);
    if (i > 0 && std::abs(data.x(i - 1) - x) < std::abs(data.x(i) - x)) --i;
    lines << QStringLiteral("%1: %2").arg(s.name).arg(data.y(i), 0, 'g', 5);
  }
  QToolTip::showText(mapToGlobal(pos), lines.join(QLatin1Char('\n')), this);
}

bool LiveChart::exportCsv(const QString& path, QString* error) const {
  QString text = QStringLiteral("series,x,y\n");
  for (const auto& s : m_series) {
    const studio::LodSeries& data = pointsOf(s);
    for (size_t i = 0; i < data.size(); ++i)
      text += QStringLiteral("%1,%2,%3\n").arg(s.name).arg(data.x(i), 0, 'g', 12).arg(data.y(i), 0, 'g', 12);
  }
  auto st = writeFileAtomic(path.toStdString(), text.toStdString());
  if (!st && error) *error = studio::errorsText(st.errors());
  return st.ok();
}

}  // namespace stave::widgets
