// Where box tags go (widgets/box_tags.h): near-identical boxes get a readable tag each, tags stay
// in the picture, and a picture drawn by paintBoxes shows both names of two coinciding boxes.
#include <QImage>
#include <QPainter>
#include <QRandomGenerator>
#include <QtTest>

#include "widgets/box_image_view.h"
#include "widgets/box_tags.h"

using namespace stave;

namespace {

int overlaps(const QVector<QRectF>& tags) {
  int n = 0;
  for (int i = 0; i < tags.size(); ++i)
    for (int j = i + 1; j < tags.size(); ++j)
      if (tags[i].intersects(tags[j].adjusted(0.5, 0.5, -0.5, -0.5))) ++n;
  return n;
}

bool inside(const QVector<QRectF>& tags, const QRectF& bounds) {
  for (const QRectF& t : tags)
    if (!bounds.contains(t)) return false;
  return true;
}

}  // namespace

class TestBoxTags : public QObject {
  Q_OBJECT
 private slots:
  void aboveTheBoxWhereThereIsRoom() {
    const auto tags = widgets::placeBoxTags({QRectF(100, 100, 50, 40)}, {QSizeF(30, 14)},
                                            QRectF(0, 0, 400, 300));
    QCOMPARE(tags.size(), 1);
    QCOMPARE(tags[0], QRectF(100, 86, 30, 14));
  }

  void insideTheTopAtThePicturesTopEdge() {
    const auto tags = widgets::placeBoxTags({QRectF(100, 5, 50, 40)}, {QSizeF(30, 14)},
                                            QRectF(0, 0, 400, 300));
    QCOMPARE(tags[0], QRectF(100, 5, 30, 14));
  }

  void keptInThePictureAtTheRightEdge() {
    const auto tags = widgets::placeBoxTags({QRectF(380, 100, 20, 20)}, {QSizeF(60, 14)},
                                            QRectF(0, 0, 400, 300));
    QCOMPARE(tags[0].right(), 400.0);
    QCOMPARE(tags[0].bottom(), 100.0);
  }

  void nearlyIdenticalBoxesGetATagEach() {
    // A label and its duplicate one pixel off: the first keeps the place above, the second
    // goes inside the top edge, under the first.
    const QVector<QRectF> boxes{QRectF(100, 100, 80, 60), QRectF(101, 100.5, 80, 60)};
    const auto tags = widgets::placeBoxTags(boxes, {QSizeF(40, 14), QSizeF(40, 14)},
                                            QRectF(0, 0, 400, 300));
    QCOMPARE(tags[0], QRectF(100, 86, 40, 14));
    QCOMPARE(overlaps(tags), 0);
    QVERIFY(tags[1].top() >= tags[0].bottom());
  }

  void aPileOfBoxesStacksItsTags() {
    QVector<QRectF> boxes(12, QRectF(200, 200, 60, 40));
    QVector<QSizeF> sizes(12, QSizeF(50, 14));
    const QRectF bounds(0, 0, 640, 480);
    const auto tags = widgets::placeBoxTags(boxes, sizes, bounds);
    QCOMPARE(tags.size(), 12);
    QCOMPARE(overlaps(tags), 0);
    QVERIFY(inside(tags, bounds));
  }

  void randomBoxesNeverShareATagsPlace() {
    QRandomGenerator rng(7);
    const QRectF bounds(0, 0, 1000, 800);
    for (int round = 0; round < 20; ++round) {
      QVector<QRectF> boxes;
      QVector<QSizeF> sizes;
      for (int i = 0; i < 30; ++i) {
        const double x = rng.bounded(900.0), y = rng.bounded(700.0);
        boxes.push_back(QRectF(x, y, 10 + rng.bounded(90.0), 10 + rng.bounded(90.0)));
        sizes.push_back(QSizeF(30 + rng.bounded(50.0), 14));
      }
      const auto tags = widgets::placeBoxTags(boxes, sizes, bounds);
      QCOMPARE(overlaps(tags), 0);
      QVERIFY(inside(tags, bounds));
    }
  }

  void aPictureTooSmallStillGivesEveryTagAPlace() {
    QVector<QRectF> boxes(8, QRectF(2, 2, 20, 20));
    QVector<QSizeF> sizes(8, QSizeF(40, 14));
    const QRectF bounds(0, 0, 48, 30);
    const auto tags = widgets::placeBoxTags(boxes, sizes, bounds);
    QCOMPARE(tags.size(), 8);
    QVERIFY(inside(tags, bounds));
  }

  void paintedBoxesShowBothNames() {
    // Two boxes of different classes on one object: both tags' colours are on the picture.
    QImage img(320, 240, QImage::Format_RGB32);
    img.fill(Qt::black);
    QVector<widgets::DrawnBox> boxes(2);
    boxes[0].cls = 0;
    boxes[0].rect = QRectF(0.3, 0.4, 0.3, 0.3);
    boxes[1].cls = 1;
    boxes[1].rect = QRectF(0.301, 0.401, 0.3, 0.3);
    {
      QPainter p(&img);
      widgets::paintBoxes(p, QRectF(img.rect()), boxes, {QStringLiteral("circle"),
                                                         QStringLiteral("square")},
                          {}, true);
    }
    // Each tag is filled with its class's colour, its text 3 px in from its left edge: the
    // column 2 px into both tags (both boxes start at x = 96) runs through the whole of each tag.
    const int h = QFontMetrics(QFont()).height() + 2;
    auto rowsOf = [&](QColor c) {
      int rows = 0;
      for (int y = 0; y < img.height(); ++y) rows += img.pixelColor(98, y) == c;
      return rows;
    };
    const int first = rowsOf(widgets::classColor(0)), second = rowsOf(widgets::classColor(1));
    QVERIFY2(first >= h - 1 && second >= h - 1,
             qPrintable(QStringLiteral("tag rows: %1 and %2 of %3").arg(first).arg(second).arg(h)));
  }
};

QTEST_MAIN(TestBoxTags)
#include "tst_box_tags.moc"
