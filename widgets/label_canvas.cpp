#include "widgets/label_canvas.h"

#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "widgets/box_image_view.h"
#include "widgets/box_tags.h"

namespace stave::widgets {

namespace {
constexpr double kHandle = 6;    // widget pixels around an edge that grab it
constexpr double kMinBox = 4;    // a drawn box smaller than this on screen is a click
constexpr double kMaxZoom = 40;  // far enough to place a box on single pixels
}  // namespace

LabelCanvas::LabelCanvas(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

void LabelCanvas::setPicture(const QPixmap& pixmap) {
  m_pixmap = pixmap;
  m_scaled = QPixmap();
  m_zoom = 1;
  m_pan = {};
  update();
}

void LabelCanvas::setBoxes(const QVector<studio::EditorBox>& boxes) {
  m_boxes = boxes;
  if (m_selected >= m_boxes.size()) m_selected = -1;
  update();
}

void LabelCanvas::setPredictions(const QVector<studio::EditorBox>& predictions) {
  m_predictions = predictions;
  m_selectedPrediction = -1;
  update();
}

void LabelCanvas::setIssues(const QVector<studio::EditorBox>& issues) {
  m_issues = issues;
  update();
}

void LabelCanvas::setClassNames(const QStringList& names) {
  m_names = names;
  update();
}

void LabelCanvas::setMessage(const QString& message) {
  m_message = message;
  update();
}

void LabelCanvas::select(int box) {
  m_selected = box >= 0 && box < m_boxes.size() ? box : -1;
  if (m_selected >= 0) m_selectedPrediction = -1;
  emit selectionChanged(m_selected);
  update();
}

void LabelCanvas::selectPrediction(int prediction) {
  m_selectedPrediction = prediction >= 0 && prediction < m_predictions.size() ? prediction : -1;
  if (m_selectedPrediction >= 0) {
    m_selected = -1;
    emit selectionChanged(-1);
  }
  emit predictionSelected(m_selectedPrediction);
  update();
}

QRectF LabelCanvas::imageRect() const {
  if (m_pixmap.isNull()) return {};
  const double iw = m_pixmap.width(), ih = m_pixmap.height();
  const double fit = std::min(width() / iw, height() / ih);
  const QSizeF size(iw * fit * m_zoom, ih * fit * m_zoom);
  const QPointF centre = QPointF(width() / 2.0, height() / 2.0) + m_pan;
  return QRectF(centre - QPointF(size.width() / 2, size.height() / 2), size);
}

QPointF LabelCanvas::toWidget(QPointF p) const {
  const QRectF r = imageRect();
  return {r.left() + p.x() * r.width(), r.top() + p.y() * r.height()};
}

QPointF LabelCanvas::toImage(QPointF w) const {
  const QRectF r = imageRect();
  if (r.isEmpty()) return {};
  return {(w.x() - r.left()) / r.width(), (w.y() - r.top()) / r.height()};
}

void LabelCanvas::setZoom(double zoom, QPointF anchor) {
  zoom = std::clamp(zoom, 1.0, kMaxZoom);
  if (anchor.x() < 0) anchor = QPointF(width() / 2.0, height() / 2.0);
  // Keep the image point under `anchor` where it is.
  const QPointF p = toImage(anchor);
  m_zoom = zoom;
  const QPointF moved = toWidget(p);
  m_pan += anchor - moved;
  clampPan();
  update();
}

void LabelCanvas::clampPan() {
  // The image may not leave the widget entirely: at most half of it outside each side.
  const QRectF r = imageRect();
  const double mx = std::max(0.0, (r.width() - width()) / 2 + width() / 4.0);
  const double my = std::max(0.0, (r.height() - height()) / 2 + height() / 4.0);
  m_pan.setX(std::clamp(m_pan.x(), -mx, mx));
  m_pan.setY(std::clamp(m_pan.y(), -my, my));
  if (m_zoom <= 1) m_pan = {};
}

void LabelCanvas::resizeEvent(QResizeEvent*) {
  clampPan();
}

bool LabelCanvas::isAccepted(const studio::EditorBox& draft) const {
  for (const auto& b : m_boxes)
    if (b.cls == draft.cls && std::abs(b.rect.left() - draft.rect.left()) < 1e-6 &&
        std::abs(b.rect.top() - draft.rect.top()) < 1e-6 &&
        std::abs(b.rect.width() - draft.rect.width()) < 1e-6 &&
        std::abs(b.rect.height() - draft.rect.height()) < 1e-6)
      return true;
  return false;
}

void LabelCanvas::setDrafts(bool drafts) {
  m_drafts = drafts;
  update();
}

void LabelCanvas::paintEvent(QPaintEvent*) {
  QElapsedTimer t;
  t.start();
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Dark));
  if (m_pixmap.isNull()) {
    p.setPen(palette().color(QPalette::BrightText));
    p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_message);
    m_paintMs = double(t.nsecsElapsed()) / 1e6;
    return;
  }
  const QRectF r = imageRect();
  // The pixmap is drawn at the size on screen from a copy scaled once per zoom level (smooth),
  // and only its part inside the widget; zoomed past the pixmap's own size, the visible part of
  // the pixmap is scaled up directly (few source pixels).
  const QSize shown(int(std::lround(r.width())), int(std::lround(r.height())));
  const QRectF visible = r.intersected(QRectF(rect()));
  if (shown.width() <= m_pixmap.width()) {
    if (m_scaled.size() != shown)
      m_scaled = m_pixmap.scaled(shown, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    p.drawPixmap(visible.topLeft(), m_scaled, visible.translated(-r.topLeft()));
  } else {
    const double sx = m_pixmap.width() / r.width(), sy = m_pixmap.height() / r.height();
    const QRectF src((visible.left() - r.left()) * sx, (visible.top() - r.top()) * sy,
                     visible.width() * sx, visible.height() * sy);
    p.drawPixmap(visible, m_pixmap, src);
  }

  p.setRenderHint(QPainter::Antialiasing);
  auto widgetRect = [&](const QRectF& n) {
    return QRectF(toWidget(n.topLeft()), toWidget(n.bottomRight()));
  };
  // Tags are collected while the boxes are drawn and drawn over all of them at the end, placed
  // so that near-identical boxes (a label and its duplicate) show one readable tag each; the
  // selected box's tag is placed first and keeps its place above the box.
  struct Tag {
    QRectF box;
    QString text;
    QColor colour;
    bool first;
  };
  QVector<Tag> tags;
  auto tag = [&](const QRectF& wr, const QString& text, const QColor& c, bool first = false) {
    tags.push_back({wr, text, c, first});
  };
  auto name = [&](int cls) { return m_names.value(cls, QString::number(cls)); };
  for (int i = 0; i < m_predictions.size(); ++i) {
    const auto& b = m_predictions[i];
    const QColor c = classColor(b.cls);
    if (m_drafts) {
      // A draft label: hatched, outlined dash-dot over a dark halo, always named, so it is never
      // taken for a label; once accepted it is a label box and the draft is not drawn.
      if (isAccepted(b)) continue;
      const QRectF wr = widgetRect(b.rect);
      const bool sel = i == m_selectedPrediction;
      p.setPen(QPen(QColor(0, 0, 0, 160), sel ? 5 : 3.5));
      p.setBrush(Qt::NoBrush);
      p.drawRect(wr);
      QColor hatch = c;
      hatch.setAlpha(sel ? 150 : 90);
      p.setBrush(QBrush(hatch, Qt::BDiagPattern));
      p.setPen(QPen(c, sel ? 3 : 2, Qt::DashDotLine));
      p.drawRect(wr);
      tag(wr, tr("draft %1 %2").arg(name(b.cls)).arg(b.conf, 0, 'f', 2),
          sel ? c.darker(130) : QColor(40, 40, 40, 200), sel);
      continue;
    }
    QPen pen(c, i == m_selectedPrediction ? 3 : 1.5, Qt::DashLine);
    p.setPen(pen);
    p.setBrush(Qt::NoBrush);
    const QRectF wr = widgetRect(b.rect);
    p.drawRect(wr);
    if (i == m_selectedPrediction)
      tag(wr, QStringLiteral("%1 %2").arg(name(b.cls)).arg(b.conf, 0, 'f', 2), c.darker(130),
          true);
  }
  for (const auto& b : m_issues) {
    p.setPen(QPen(QColor(230, 40, 40), 3, Qt::DotLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(widgetRect(b.rect).adjusted(-3, -3, 3, 3));
  }
  for (int i = 0; i < m_boxes.size(); ++i) {
    const auto& b = m_boxes[i];
    const QColor c = classColor(b.cls);
    const QRectF wr = widgetRect(b.rect);
    const bool sel = i == m_selected;
    QColor fill = c;
    fill.setAlpha(sel ? 60 : 25);
    p.setBrush(fill);
    p.setPen(QPen(c, sel ? 3 : 2));
    p.drawRect(wr);
    tag(wr, name(b.cls), c, sel);
  }
  std::stable_sort(tags.begin(), tags.end(),
                   [](const Tag& a, const Tag& b) { return a.first && !b.first; });
  const QFontMetrics fm(font());
  QVector<QRectF> boxes;
  QVector<QSizeF> sizes;
  for (const Tag& t : tags) {
    boxes.push_back(t.box);
    sizes.push_back(QSizeF(fm.horizontalAdvance(t.text) + 8, fm.height() + 2));
  }
  const QVector<QRectF> placed = placeBoxTags(boxes, sizes, QRectF(rect()));
  for (int i = static_cast<int>(tags.size()) - 1; i >= 0; --i) {  // the first ones on top
    p.fillRect(placed[i], tags[i].colour);
    p.setPen(tags[i].colour.lightness() > 150 ? Qt::black : Qt::white);
    p.drawText(placed[i], Qt::AlignCenter, tags[i].text);
  }
  if (m_selected >= 0 && m_selected < m_boxes.size()) {  // its handles over every tag
    const auto& b = m_boxes[m_selected];
    const QRectF wr = widgetRect(b.rect);
    p.setBrush(Qt::white);
    p.setPen(QPen(classColor(b.cls), 1));
    for (const QPointF& h : {wr.topLeft(), wr.topRight(), wr.bottomLeft(), wr.bottomRight()})
      p.drawRect(QRectF(h - QPointF(4, 4), QSizeF(8, 8)));
  }
  m_paintMs = double(t.nsecsElapsed()) / 1e6;
}

int LabelCanvas::hit(QPointF w, int* handle) const {
  *handle = None;
  auto test = [&](int i) {
    const auto& b = m_boxes[i];
    const QRectF wr(toWidget(b.rect.topLeft()), toWidget(b.rect.bottomRight()));
    if (!wr.adjusted(-kHandle, -kHandle, kHandle, kHandle).contains(w)) return false;
    int h = None;
    if (std::abs(w.x() - wr.left()) <= kHandle) h |= Left;
    if (std::abs(w.x() - wr.right()) <= kHandle) h |= Right;
    if (std::abs(w.y() - wr.top()) <= kHandle) h |= Top;
    if (std::abs(w.y() - wr.bottom()) <= kHandle) h |= Bottom;
    if (h == None && wr.contains(w)) h = Move;
    if (h == None) return false;
    *handle = h;
    return true;
  };
  if (m_selected >= 0 && test(m_selected)) return m_selected;
  // The smallest box under the point: a box inside another stays reachable.
  int best = -1;
  double bestArea = 0;
  int bestHandle = None;
  for (int i = 0; i < m_boxes.size(); ++i) {
    int h = None;
    if (!test(i)) continue;
    h = *handle;
    const double area = m_boxes[i].rect.width() * m_boxes[i].rect.height();
    if (best < 0 || area < bestArea) {
      best = i;
      bestArea = area;
      bestHandle = h;
    }
  }
  *handle = bestHandle;
  return best;
}

int LabelCanvas::hitPrediction(QPointF w) const {
  int best = -1;
  double bestArea = 0;
  for (int i = 0; i < m_predictions.size(); ++i) {
    const auto& b = m_predictions[i];
    const QRectF wr(toWidget(b.rect.topLeft()), toWidget(b.rect.bottomRight()));
    if (!wr.contains(w) || (m_drafts && isAccepted(b))) continue;
    const double area = b.rect.width() * b.rect.height();
    if (best < 0 || area < bestArea) {
      best = i;
      bestArea = area;
    }
  }
  return best;
}

void LabelCanvas::mousePressEvent(QMouseEvent* e) {
  setFocus();
  m_press = e->position();
  if (e->button() == Qt::RightButton || e->button() == Qt::MiddleButton) {
    m_panning = true;
    m_pressPan = m_pan;
    setCursor(Qt::ClosedHandCursor);
    return;
  }
  if (e->button() != Qt::LeftButton || m_pixmap.isNull()) return;
  m_before = m_boxes;
  int handle = None;
  const int i = hit(e->position(), &handle);
  if (i >= 0) {
    select(i);
    m_handle = handle;
    m_startRect = m_boxes[i].rect;
    return;
  }
  const int pr = hitPrediction(e->position());
  if (pr >= 0) {
    selectPrediction(pr);
    return;
  }
  // Empty space: a new box of the current class, drawn from here.
  const QPointF at = toImage(e->position());
  if (at.x() < 0 || at.y() < 0 || at.x() > 1 || at.y() > 1) {
    select(-1);
    return;
  }
  studio::EditorBox b;
  b.cls = m_drawClass;
  b.rect = QRectF(at, QSizeF(0, 0));
  m_boxes.push_back(b);
  m_drawing = true;
  m_startRect = b.rect;
  select(int(m_boxes.size()) - 1);
}

void LabelCanvas::mouseMoveEvent(QMouseEvent* e) {
  const QPointF w = e->position();
  if (m_panning) {
    m_pan = m_pressPan + (w - m_press);
    clampPan();
    update();
    return;
  }
  if (!(e->buttons() & Qt::LeftButton)) {
    int handle = None;
    hit(w, &handle);
    Qt::CursorShape shape = Qt::CrossCursor;
    if (handle == Move)
      shape = Qt::SizeAllCursor;
    else if (handle == (Left | Top) || handle == (Right | Bottom))
      shape = Qt::SizeFDiagCursor;
    else if (handle == (Right | Top) || handle == (Left | Bottom))
      shape = Qt::SizeBDiagCursor;
    else if (handle & (Left | Right))
      shape = Qt::SizeHorCursor;
    else if (handle & (Top | Bottom))
      shape = Qt::SizeVerCursor;
    setCursor(shape);
    return;
  }
  if (m_selected < 0) return;
  const QPointF p0 = toImage(m_press), p1 = toImage(w);
  auto clamp01 = [](double v) { return std::clamp(v, 0.0, 1.0); };
  QRectF r = m_startRect;
  if (m_drawing) {
    r = QRectF(QPointF(clamp01(std::min(p0.x(), p1.x())), clamp01(std::min(p0.y(), p1.y()))),
               QPointF(clamp01(std::max(p0.x(), p1.x())), clamp01(std::max(p0.y(), p1.y()))));
  } else if (m_handle == Move) {
    const QPointF d = p1 - p0;
    r.translate(std::clamp(d.x(), -r.left(), 1 - r.right()),
                std::clamp(d.y(), -r.top(), 1 - r.bottom()));
  } else {
    double l = r.left(), t = r.top(), rt = r.right(), bt = r.bottom();
    if (m_handle & Left) l = clamp01(p1.x());
    if (m_handle & Right) rt = clamp01(p1.x());
    if (m_handle & Top) t = clamp01(p1.y());
    if (m_handle & Bottom) bt = clamp01(p1.y());
    r = QRectF(QPointF(std::min(l, rt), std::min(t, bt)),
               QPointF(std::max(l, rt), std::max(t, bt)));
  }
  m_boxes[m_selected].rect = r;
  update();
}

void LabelCanvas::mouseReleaseEvent(QMouseEvent* e) {
  if (m_panning && (e->button() == Qt::RightButton || e->button() == Qt::MiddleButton)) {
    m_panning = false;
    setCursor(Qt::CrossCursor);
    return;
  }
  if (e->button() != Qt::LeftButton) return;
  const bool drawing = m_drawing;
  m_drawing = false;
  m_handle = None;
  if (m_before == m_boxes) return;
  if (drawing && m_selected >= 0) {
    const auto& b = m_boxes[m_selected];
    const QRectF wr(toWidget(b.rect.topLeft()), toWidget(b.rect.bottomRight()));
    if (wr.width() < kMinBox || wr.height() < kMinBox) {  // a click, not a box
      m_boxes = m_before;
      select(-1);
      return;
    }
  }
  const auto after = m_boxes;
  m_boxes = m_before;  // the editor's undo command applies `after`
  emit boxesEdited(m_before, after, drawing ? tr("Draw box") : tr("Move or resize box"));
}

void LabelCanvas::wheelEvent(QWheelEvent* e) {
  const double steps = e->angleDelta().y() / 120.0;
  setZoom(m_zoom * std::pow(1.25, steps), e->position());
}

}  // namespace stave::widgets
