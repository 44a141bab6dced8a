#pragma once
// The gallery's cells: the thumbnail (asked of the ThumbnailLoader only when a cell is painted,
// so only what is on screen is decoded), the boxes and class names over it, the file name, and
// a red corner for images with problems; "cannot read" for unreadable files.
#include <QSet>
#include <QStringList>
#include <QStyledItemDelegate>

namespace stave::studio {
class ThumbnailLoader;
}

namespace stave::widgets {

class GalleryDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  GalleryDelegate(studio::ThumbnailLoader* loader, QObject* parent = nullptr);
  void setClassNames(const QStringList& names) { m_names = names; }
  void setHiddenClasses(const QSet<int>& hidden) { m_hidden = hidden; }
  /// The size of every cell (the gallery's items are uniform).
  QSize cellSize() const;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

 private:
  studio::ThumbnailLoader* m_loader;
  QStringList m_names;
  QSet<int> m_hidden;
};

}  // namespace stave::widgets
