#include "widgets/box_tags.h"

#include <algorithm>

namespace stave::widgets {

namespace {

/// `r` moved (not resized) so that it lies within `bounds` where it fits, left and top first.
QRectF within(QRectF r, const QRectF& bounds) {
  if (r.right() > bounds.right()) r.moveRight(bounds.right());
  if (r.left() < bounds.left()) r.moveLeft(bounds.left());
  if (r.bottom() > bounds.bottom()) r.moveBottom(bounds.bottom());
  if (r.top() < bounds.top()) r.moveTop(bounds.top());
  return r;
}

bool overlapsAny(const QRectF& r, const QVector<QRectF>& placed) {
  // Tags that only touch (a row right under another) do not overlap.
  const QRectF inner = r.adjusted(0.5, 0.5, -0.5, -0.5);
  return std::any_of(placed.begin(), placed.end(),
                     [&](const QRectF& p) { return p.intersects(inner); });
}

}  // namespace

QVector<QRectF> placeBoxTags(const QVector<QRectF>& boxes, const QVector<QSizeF>& sizes,
                             const QRectF& bounds) {
  QVector<QRectF> placed;
  placed.reserve(boxes.size());
  const int n = static_cast<int>(std::min(boxes.size(), sizes.size()));
  for (int i = 0; i < n; ++i) {
    const QRectF& b = boxes[i];
    const QSizeF s = sizes[i];
    const double h = s.height();
    // Above the box, inside its top, below it, inside its bottom: the places a reader looks for a
    // box's name, each kept within the picture.
    const QRectF above = within(QRectF(QPointF(b.left(), b.top() - h), s), bounds);
    const QRectF candidates[] = {
        b.top() - h >= bounds.top() ? above : within(QRectF(b.topLeft(), s), bounds),
        within(QRectF(b.topLeft(), s), bounds),
        within(QRectF(QPointF(b.left(), b.bottom()), s), bounds),
        within(QRectF(QPointF(b.left(), b.bottom() - h), s), bounds),
    };
    QRectF chosen;
    bool found = false;
    for (const QRectF& c : candidates)
      if (!overlapsAny(c, placed)) {
        chosen = c;
        found = true;
        break;
      }
    // All four taken (a pile of boxes): the nearest free row above or below the first place,
    // then the first place itself when the picture has no free row left.
    for (int step = 1; !found && step <= n; ++step)
      for (const double dy : {-step * h, step * h}) {
        QRectF c = candidates[0].translated(0, dy);
        if (c.top() < bounds.top() || c.bottom() > bounds.bottom()) continue;
        if (!overlapsAny(c, placed)) {
          chosen = c;
          found = true;
          break;
        }
      }
    placed.push_back(found ? chosen : candidates[0]);
  }
  return placed;
}

}  // namespace stave::widgets
