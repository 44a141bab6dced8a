#include "widgets/chart_legend.h"

#include <QEvent>
#include <QFontMetrics>
#include <QTextLayout>
#include <algorithm>
#include <qcustomplot.h>

namespace stave::widgets {

namespace {

// A plottable whose legend entry is elided keeps the name it was given, and the elided text
// (a name set later is its own again).
const char kGivenName[] = "staveLegendName";
const char kElidedName[] = "staveLegendElided";

QList<QCPPlottableLegendItem*> entries(const QCPLegend* legend) {
  QList<QCPPlottableLegendItem*> out;
  for (int i = 0; i < legend->elementCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->elementAt(i))) out << item;
  return out;
}

void arrange(QCPLegend* legend, int columns) {
  legend->setWrap(columns);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);  // rearranged, row by row
}

/// An entry's minimum size (public on the layout element it is).
QSize minimumSize(const QCPLayoutElement* item) { return item->minimumOuterSizeHint(); }

/// The width of `text` as QCPPlottableLegendItem measures it.
int textWidth(const QCPPlottableLegendItem* item, const QString& text) {
  const QFontMetrics fm(item->font());
  return fm.boundingRect(0, 0, 0, item->parentLegend()->iconSize().height(), Qt::TextDontClip, text).width();
}

}  // namespace

QString legendName(const QCPAbstractPlottable* plottable) {
  const QVariant given = plottable->property(kGivenName);
  if (given.isValid() && plottable->property(kElidedName).toString() == plottable->name())
    return given.toString();
  return plottable->name();
}

int fitLegend(QCustomPlot* plot, int width) {
  QCPLegend* legend = plot->legend;
  if (!legend->visible() || !legend->layout()) return 0;
  const auto items = entries(legend);
  if (items.isEmpty()) return 0;
  for (auto* item : items) {  // measured with the names they were given
    QCPAbstractPlottable* p = item->plottable();
    p->setName(legendName(p));
    p->setProperty(kGivenName, QVariant());
    p->setProperty(kElidedName, QVariant());
  }
  // The most columns that fit (a legend's minimum width is its columns' widest entries, the
  // spacing between them and its margins).
  int columns = static_cast<int>(items.size());
  for (; columns > 1; --columns) {
    arrange(legend, columns);
    if (legend->minimumOuterSizeHint().width() <= width) break;
  }
  if (columns == 1) {
    arrange(legend, 1);
    const int room = width - legend->margins().left() - legend->margins().right();
    for (auto* item : items) {
      const int over = minimumSize(item).width() - room;
      if (over <= 0) continue;
      QCPAbstractPlottable* p = item->plottable();
      const QString given = p->name();
      const int textRoom = std::max(1, textWidth(item, given) - over);
      QString elided = QFontMetrics(item->font()).elidedText(given, Qt::ElideRight, textRoom);
      if (elided.isEmpty()) elided = QStringLiteral("…");
      p->setName(elided);
      p->setProperty(kGivenName, given);
      p->setProperty(kElidedName, elided);
    }
  }
  return legend->rowCount();
}

QString wrapText(const QString& text, const QFont& font, int width) {
  QTextLayout layout(text, font);
  QTextOption option;
  option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
  layout.setTextOption(option);
  QStringList lines;
  layout.beginLayout();
  for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
    line.setLineWidth(std::max(1, width));
    lines << text.mid(line.textStart(), line.textLength()).trimmed();
  }
  layout.endLayout();
  return lines.join(QLatin1Char('\n'));
}

LegendFitter::LegendFitter(QCustomPlot* plot, int minHeight)
    : QObject(plot), m_plot(plot), m_minHeight(minHeight) {
  plot->installEventFilter(this);
}

void LegendFitter::fit() {
  const int rows = fitLegend(m_plot, m_plot->width());
  int extra = 0;
  if (rows > 1) {
    int rowHeight = 0;
    for (auto* item : entries(m_plot->legend))
      rowHeight = std::max(rowHeight, minimumSize(item).height());
    extra = (rows - 1) * (rowHeight + m_plot->legend->rowSpacing());
  }
  if (m_plot->minimumHeight() != m_minHeight + extra) m_plot->setMinimumHeight(m_minHeight + extra);
  if (m_hook) m_hook(m_plot->width());
}

bool LegendFitter::eventFilter(QObject* watched, QEvent* event) {
  // Before the plot's own resizeEvent, which lays it out again at the new size.
  if (watched == m_plot && event->type() == QEvent::Resize) fit();
  return QObject::eventFilter(watched, event);
}

}  // namespace stave::widgets
