#pragma once
// Images with labelled boxes: BoxImageView shows one image scaled to fit with its boxes (class
// name on a filled tag, per-class hiding, one row highlighted), or a message when there is no
// image; paintBoxes draws boxes the same way anywhere (the gallery's thumbnails).
#include <QImage>
#include <QRectF>
#include <QSet>
#include <QStringList>
#include <QVector>
#include <QWidget>

class QPainter;

namespace stave::studio {
struct Thumbnail;
}

namespace stave::widgets {

/// One box to draw.
struct DrawnBox {
  DrawnBox(const QRectF& r = {}, int c = 0) : rect(r), cls(c) {}
  QRectF rect;             ///< normalised to the image: left, top, width, height
  int cls = 0;             ///< class id (colour, and the name on the tag)
  bool highlight = false;  ///< drawn red and thicker (an offending label row)
  QString tag;             ///< text of the tag ("" = the class name)
  bool dashed = false;     ///< drawn dashed (labels beside predictions)
};

/// The colour of class `cls` (the studio's series palette).
QColor classColor(int cls);

/// A deep-copied QImage of 8-bit RGB bytes (width * 3 per row); null when the sizes disagree.
QImage rgbImage(const QByteArray& rgb, int width, int height);
/// The image of a thumbnail (null when it has none).
QImage thumbnailImage(const studio::Thumbnail& thumb);

/// Draws `boxes` over an image drawn in `target`; classes in `hidden` are left out. With
/// `tags` each box gets its class name (or DrawnBox::tag) on a filled tag.
void paintBoxes(QPainter& painter, const QRectF& target, const QVector<DrawnBox>& boxes,
                const QStringList& names, const QSet<int>& hidden = {}, bool tags = true);

/// One image with its boxes, scaled to fit (aspect kept); a message instead when there is none.
class BoxImageView : public QWidget {
  Q_OBJECT
 public:
  explicit BoxImageView(QWidget* parent = nullptr);
  void setImage(const QImage& image);
  void setBoxes(QVector<DrawnBox> boxes);
  void setClassNames(const QStringList& names);
  void setHiddenClasses(const QSet<int>& hidden);
  /// Shown in place of the image while there is none ("Loading…", "Cannot read …").
  void setMessage(const QString& message);
  /// No image, no boxes, no message.
  void clear();
  const QImage& image() const { return m_image; }
  const QVector<DrawnBox>& boxes() const { return m_boxes; }
  QString message() const { return m_message; }
  QSize sizeHint() const override { return {480, 360}; }
  QSize minimumSizeHint() const override { return {160, 120}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  QImage m_image;
  QVector<DrawnBox> m_boxes;
  QStringList m_names;
  QSet<int> m_hidden;
  QString m_message;
};

}  // namespace stave::widgets
