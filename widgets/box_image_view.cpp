#include "widgets/box_image_view.h"

#include <QPaintEvent>
#include <QPainter>
#include <algorithm>
#include <cstring>

#include "core/studio/models/thumbnail_loader.h"
#include "widgets/box_tags.h"
#include "widgets/live_chart.h"

namespace stave::widgets {

QColor classColor(int cls) {
  return seriesColor(std::max(0, cls));
}

QImage rgbImage(const QByteArray& rgb, int width, int height) {
  if (width <= 0 || height <= 0 || rgb.size() < qsizetype(width) * height * 3) return {};
  QImage out(width, height, QImage::Format_RGB888);
  for (int y = 0; y < height; ++y)
    std::memcpy(out.scanLine(y), rgb.constData() + qsizetype(y) * width * 3, size_t(width) * 3);
  return out;
}

QImage thumbnailImage(const studio::Thumbnail& thumb) {
  return thumb.ok() ? rgbImage(thumb.rgb, thumb.width, thumb.height) : QImage();
}

void paintBoxes(QPainter& painter, const QRectF& target, const QVector<DrawnBox>& boxes,
                const QStringList& names, const QSet<int>& hidden, bool tags) {
  painter.save();
  painter.setClipRect(target);
  const QFontMetrics fm = painter.fontMetrics();
  // With a highlighted box (an offending label row) the others step back.
  const bool anyHighlight =
      std::any_of(boxes.begin(), boxes.end(), [](const DrawnBox& b) { return b.highlight; });
  const auto colourOf = [&](const DrawnBox& b) {
    QColor colour = b.highlight ? QColor(255, 0, 0) : classColor(b.cls);
    if (anyHighlight && !b.highlight) colour.setAlpha(110);
    return colour;
  };
  const auto rectOf = [&](const DrawnBox& b) {
    return QRectF(target.left() + b.rect.left() * target.width(),
                  target.top() + b.rect.top() * target.height(), b.rect.width() * target.width(),
                  b.rect.height() * target.height());
  };
  const auto shown = [&](const DrawnBox& b, int pass) {
    return b.highlight == (pass == 1) && (b.highlight || !hidden.contains(b.cls));
  };
  // Highlighted boxes last, so they are on top; every box before any tag, so that no box's
  // line crosses another box's tag (a red offending box cut "circle" to "ircle").
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& b : boxes) {
      if (!shown(b, pass)) continue;
      const QRectF r = rectOf(b);
      painter.setPen(QPen(colourOf(b), b.highlight ? 3 : (target.width() >= 120 ? 2 : 1),
                          b.dashed ? Qt::DashLine : Qt::SolidLine));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(r);
      if (b.highlight) {
        painter.setPen(QPen(Qt::white, 1, Qt::DashLine));
        painter.drawRect(r.adjusted(2.5, 2.5, -2.5, -2.5));
      }
    }
  }
  if (tags) {
    // Tags are placed highlighted boxes first (they keep the usual place above the box) and
    // drawn highlighted ones last (on top); near-identical boxes get one tag each.
    struct Tag {
      const DrawnBox* box;
      QString text;
    };
    QVector<Tag> order;
    QVector<QRectF> rects;
    QVector<QSizeF> sizes;
    for (int pass = 1; pass >= 0; --pass)
      for (const auto& b : boxes) {
        if (!shown(b, pass)) continue;
        const QString text = !b.tag.isEmpty()                     ? b.tag
                             : b.cls >= 0 && b.cls < names.size() ? names[b.cls]
                                                                  : QString::number(b.cls);
        order.push_back({&b, text});
        rects.push_back(rectOf(b));
        sizes.push_back(QSizeF(fm.horizontalAdvance(text) + 6, fm.height() + 2));
      }
    const QVector<QRectF> placed = placeBoxTags(rects, sizes, target);
    for (int i = static_cast<int>(order.size()) - 1; i >= 0; --i) {
      painter.fillRect(placed[i], colourOf(*order[i].box));
      painter.setPen(Qt::white);
      painter.drawText(placed[i].adjusted(3, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       order[i].text);
    }
  }
  painter.restore();
}

BoxImageView::BoxImageView(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void BoxImageView::setImage(const QImage& image) {
  m_image = image;
  update();
}

void BoxImageView::setBoxes(QVector<DrawnBox> boxes) {
  m_boxes = std::move(boxes);
  update();
}

void BoxImageView::setClassNames(const QStringList& names) {
  m_names = names;
  update();
}

void BoxImageView::setHiddenClasses(const QSet<int>& hidden) {
  m_hidden = hidden;
  update();
}

void BoxImageView::setMessage(const QString& message) {
  m_message = message;
  update();
}

void BoxImageView::clear() {
  m_image = QImage();
  m_boxes.clear();
  m_message.clear();
  update();
}

void BoxImageView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().color(QPalette::Base));
  if (m_image.isNull()) {
    painter.setPen(palette().color(QPalette::PlaceholderText));
    painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap,
                     m_message);
    return;
  }
  // Room above for the tags of boxes that touch the top edge is not needed: they go inside.
  const QSizeF room = QSizeF(size()) - QSizeF(8, 8);
  QSizeF shown = QSizeF(m_image.size()).scaled(room, Qt::KeepAspectRatio);
  const QRectF target(QPointF((width() - shown.width()) / 2, (height() - shown.height()) / 2),
                      shown);
  painter.setRenderHint(QPainter::SmoothPixmapTransform);
  painter.drawImage(target, m_image);
  paintBoxes(painter, target, m_boxes, m_names, m_hidden, true);
}

}  // namespace stave::widgets
