#include "widgets/confusion_matrix_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

#include "core/studio/models/validation_data.h"

namespace stave::widgets {
namespace {

/// White to dark blue (the "Blues" map Ultralytics draws its matrix with), t in [0, 1].
QColor blues(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const QColor lo(247, 251, 255), mid(107, 174, 214), hi(8, 48, 107);
  const auto mix = [](const QColor& a, const QColor& b, double u) {
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * u),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * u),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * u));
  };
  return t < 0.5 ? mix(lo, mid, t * 2) : mix(mid, hi, (t - 0.5) * 2);
}

constexpr int kMargin = 6;

}  // namespace

ConfusionMatrixView::ConfusionMatrixView(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setMouseTracking(false);
}

void ConfusionMatrixView::setMatrix(const QStringList& names, const QVector<QVector<double>>& counts) {
  const bool valid = !names.isEmpty() && counts.size() == names.size() &&
                     std::all_of(counts.begin(), counts.end(),
                                 [&](const QVector<double>& row) { return row.size() == names.size(); });
  m_names = valid ? names : QStringList();
  m_counts = valid ? counts : QVector<QVector<double>>();
  m_shares = studio::normalisedColumns(m_counts);
  m_selected = {-1, -1};
  update();
}

void ConfusionMatrixView::setTitle(const QString& title) {
  m_title = title;
  update();
}

void ConfusionMatrixView::setMessage(const QString& message) {
  m_message = message;
  update();
}

void ConfusionMatrixView::setNormalised(bool normalised) {
  m_normalised = normalised;
  update();
}

double ConfusionMatrixView::value(int predicted, int truth) const {
  const auto& m = m_normalised ? m_shares : m_counts;
  if (predicted < 0 || predicted >= m.size() || truth < 0 || truth >= m[predicted].size()) return 0;
  return m[predicted][truth];
}

QString ConfusionMatrixView::cellText(int predicted, int truth) const {
  const double v = value(predicted, truth);
  if (m_normalised) return v < 0.005 ? QString() : QString::number(v, 'f', 2);
  return v <= 0 ? QString() : QString::number(static_cast<qint64>(std::llround(v)));
}

ConfusionMatrixView::Geometry ConfusionMatrixView::geometry() const {
  Geometry g;
  const int n = size();
  if (n == 0) return g;
  const QFontMetrics fm(font());
  const int titleH = m_title.isEmpty() ? 0 : fm.height() + 4;
  int nameW = 0;
  for (const QString& s : m_names) nameW = std::max(nameW, fm.horizontalAdvance(s));
  nameW = std::min(nameW, 110) + 6;
  const int axisTitle = fm.height() + 2;
  // First as if the names fit; drop them when a cell is shorter than a line of text.
  for (int pass = 0; pass < 2; ++pass) {
    const bool names = pass == 0;
    const double left = kMargin + axisTitle + (names ? nameW : 0);
    const double bottom = kMargin + axisTitle + (names ? nameW + 4 : 0);
    const double w = width() - left - kMargin;
    const double h = height() - titleH - kMargin - bottom;
    const double cell = std::max(1.0, std::floor(std::min(w, h) / n));
    if (names && cell < fm.height() + 2) continue;
    g.cell = cell;
    g.names = names;
    // The grid with its names and axis titles as one block in the middle.
    g.grid = QRectF(left + (w - cell * n) / 2, titleH + kMargin + (h - cell * n) / 2, cell * n, cell * n);
    g.below = bottom - kMargin - axisTitle;
    g.numbers = cell >= fm.horizontalAdvance(QStringLiteral("0.00")) + 4 && cell >= fm.height() + 2;
    return g;
  }
  return g;
}

QRect ConfusionMatrixView::cellRect(int predicted, int truth) const {
  const Geometry g = geometry();
  if (predicted < 0 || truth < 0 || predicted >= size() || truth >= size() || g.cell <= 0) return {};
  return QRectF(g.grid.left() + truth * g.cell, g.grid.top() + predicted * g.cell, g.cell, g.cell).toRect();
}

QPair<int, int> ConfusionMatrixView::cellAt(const QPoint& pos) const {
  const Geometry g = geometry();
  if (g.cell <= 0 || !g.grid.contains(pos)) return {-1, -1};
  const int t = static_cast<int>((pos.x() - g.grid.left()) / g.cell);
  const int p = static_cast<int>((pos.y() - g.grid.top()) / g.cell);
  if (p < 0 || t < 0 || p >= size() || t >= size()) return {-1, -1};
  return {p, t};
}

void ConfusionMatrixView::selectCell(int predicted, int truth) {
  m_selected = {predicted, truth};
  update();
}

void ConfusionMatrixView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().color(QPalette::Base));
  const QFontMetrics fm(font());
  const Geometry g = geometry();
  if (!m_title.isEmpty()) {
    QFont bold = font();
    bold.setBold(true);
    painter.setFont(bold);
    painter.setPen(palette().color(QPalette::Text));
    // Over the grid, just above it.
    const QRectF over = g.cell > 0 ? QRectF(g.grid.left() - 40, g.grid.top() - fm.height() - 6, g.grid.width() + 80, fm.height() + 2)
                                   : QRectF(0, 2, width(), fm.height() + 2);
    painter.drawText(over, Qt::AlignHCenter | Qt::AlignVCenter,
                     QFontMetrics(bold).elidedText(m_title, Qt::ElideRight, static_cast<int>(over.width())));
    painter.setFont(font());
  }
  if (size() == 0 || g.cell <= 0) {
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                     m_message.isEmpty() ? tr("No confusion matrix") : m_message);
    return;
  }
  const int n = size();
  double top = 0;
  for (int p = 0; p < n; ++p)
    for (int t = 0; t < n; ++t) top = std::max(top, value(p, t));
  for (int p = 0; p < n; ++p) {
    for (int t = 0; t < n; ++t) {
      const QRectF r(g.grid.left() + t * g.cell, g.grid.top() + p * g.cell, g.cell, g.cell);
      const double shade = top > 0 ? value(p, t) / top : 0;
      painter.fillRect(r, blues(shade));
      if (!g.numbers) continue;
      const QString text = cellText(p, t);
      if (text.isEmpty()) continue;
      painter.setPen(shade > 0.55 ? Qt::white : QColor(30, 30, 30));
      painter.drawText(r, Qt::AlignCenter, text);
    }
  }
  painter.setPen(QPen(palette().color(QPalette::Mid), 1));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(g.grid);
  if (m_selected.first >= 0) {
    painter.setPen(QPen(QColor(255, 127, 14), 3));
    painter.drawRect(QRectF(g.grid.left() + m_selected.second * g.cell,
                            g.grid.top() + m_selected.first * g.cell, g.cell, g.cell)
                         .adjusted(1, 1, -1, -1));
  }
  // Axis titles, and the names where they fit.
  painter.setPen(palette().color(QPalette::Text));
  const int axisTitle = fm.height() + 2;
  painter.drawText(QRectF(g.grid.left(), g.grid.bottom() + g.below, g.grid.width(), axisTitle),
                   Qt::AlignCenter, tr("True"));
  painter.save();
  painter.translate(kMargin, g.grid.center().y());
  painter.rotate(-90);
  painter.drawText(QRectF(-g.grid.height() / 2, 0, g.grid.height(), axisTitle), Qt::AlignCenter,
                   tr("Predicted"));
  painter.restore();
  if (!g.names) return;
  const double nameW = g.grid.left() - kMargin - axisTitle - 4;
  for (int k = 0; k < n; ++k) {
    const QString name = fm.elidedText(m_names[k], Qt::ElideRight, static_cast<int>(nameW));
    painter.drawText(QRectF(kMargin + axisTitle, g.grid.top() + k * g.cell, nameW, g.cell),
                     Qt::AlignRight | Qt::AlignVCenter, name);
    painter.save();
    painter.translate(g.grid.left() + k * g.cell + g.cell / 2, g.grid.bottom() + 4);
    painter.rotate(-90);
    painter.drawText(QRectF(-nameW, -g.cell / 2, nameW, g.cell), Qt::AlignRight | Qt::AlignVCenter, name);
    painter.restore();
  }
}

void ConfusionMatrixView::mousePressEvent(QMouseEvent* event) {
  const auto cell = cellAt(event->position().toPoint());
  if (cell.first < 0) return QWidget::mousePressEvent(event);
  selectCell(cell.first, cell.second);
  emit cellClicked(cell.first, cell.second);
}

bool ConfusionMatrixView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const auto cell = cellAt(help->pos());
    if (cell.first < 0) {
      QToolTip::hideText();
      event->ignore();
      return true;
    }
    const auto [p, t] = cell;
    QToolTip::showText(help->globalPos(),
                       tr("Predicted %1, true %2: %3 (%4% of the true %2)")
                           .arg(m_names[p], m_names[t])
                           .arg(static_cast<qint64>(std::llround(m_counts[p][t])))
                           .arg(m_shares[p][t] * 100, 0, 'f', 1),
                       this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace stave::widgets
