#include "widgets/gallery_delegate.h"

#include <QApplication>
#include <QPainter>
#include <QRectF>

#include "core/studio/models/gallery_model.h"
#include "core/studio/models/thumbnail_loader.h"
#include "widgets/box_image_view.h"

namespace stave::widgets {

GalleryDelegate::GalleryDelegate(studio::ThumbnailLoader* loader, QObject* parent)
    : QStyledItemDelegate(parent), m_loader(loader) {}

QSize GalleryDelegate::cellSize() const {
  const int side = m_loader->options().side;
  const int text = QFontMetrics(QApplication::font()).height();
  return {side + 12, side + text + 14};
}

QSize GalleryDelegate::sizeHint(const QStyleOptionViewItem&, const QModelIndex&) const {
  return cellSize();
}

void GalleryDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                            const QModelIndex& index) const {
  using studio::GalleryModel;
  painter->save();
  const QRect cell = option.rect.adjusted(2, 2, -2, -2);
  const bool selected = option.state & QStyle::State_Selected;
  painter->fillRect(cell, selected ? option.palette.highlight() : option.palette.base());
  const int side = m_loader->options().side;
  const QRect area(cell.left() + (cell.width() - side) / 2, cell.top() + 4, side, side);
  const QString path = index.data(GalleryModel::PathRole).toString();
  const auto thumb = m_loader->get(path);  // queues a request when it is not cached
  if (!thumb) {
    painter->fillRect(area, option.palette.alternateBase());
  } else if (!thumb->ok()) {
    painter->fillRect(area, QColor(250, 228, 228));
    painter->setPen(QColor(176, 0, 32));
    painter->drawText(area.adjusted(6, 6, -6, -6), Qt::AlignCenter | Qt::TextWordWrap,
                      tr("cannot read"));
  } else {
    const QSizeF shown =
        QSizeF(thumb->width, thumb->height).scaled(area.size(), Qt::KeepAspectRatio);
    const QRectF target(area.left() + (area.width() - shown.width()) / 2,
                        area.top() + (area.height() - shown.height()) / 2, shown.width(),
                        shown.height());
    // The bytes stay alive while `thumb` is held: no copy for drawing.
    const QImage img(reinterpret_cast<const uchar*>(thumb->rgb.constData()), thumb->width,
                     thumb->height, thumb->width * 3, QImage::Format_RGB888);
    painter->setRenderHint(QPainter::SmoothPixmapTransform);
    painter->drawImage(target, img);
    const auto rects = index.data(GalleryModel::BoxesRole).value<QList<QRectF>>();
    const auto classes = index.data(GalleryModel::BoxClassesRole).value<QList<int>>();
    QVector<DrawnBox> boxes;
    for (int i = 0; i < rects.size() && i < classes.size(); ++i)
      boxes.push_back({rects[i], classes[i]});
    QFont small = painter->font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    painter->setFont(small);
    // Class names only while they fit: many boxes get bare outlines.
    paintBoxes(*painter, target, boxes, m_names, m_hidden, boxes.size() <= 6);
    painter->setFont(option.font);
  }
  if (!index.data(GalleryModel::ProblemKindsRole).toStringList().isEmpty()) {
    QPolygon corner;
    corner << area.topRight() << QPoint(area.right() - 14, area.top())
           << QPoint(area.right(), area.top() + 14);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(220, 30, 30));
    painter->drawPolygon(corner);
  }
  const QRect textRect(cell.left() + 4, area.bottom() + 4, cell.width() - 8,
                       cell.bottom() - area.bottom() - 4);
  painter->setPen(selected ? option.palette.highlightedText().color()
                           : option.palette.text().color());
  painter->drawText(textRect, Qt::AlignHCenter | Qt::AlignTop,
                    option.fontMetrics.elidedText(index.data(Qt::DisplayRole).toString(),
                                                  Qt::ElideMiddle, textRect.width()));
  painter->restore();
}

}  // namespace stave::widgets
