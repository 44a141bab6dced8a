#pragma once
// ConfusionMatrixView: a confusion matrix as Ultralytics draws it — predicted classes down,
// true classes across, the background last, cells shaded from white to blue — as counts or
// normalised per true class (each column sums to 1). A click selects a cell (cellClicked);
// the tooltip gives the cell's count and share. Names and numbers are left out where the
// cells are too small for them (80 classes), never drawn over each other.
#include <QPair>
#include <QStringList>
#include <QVector>
#include <QWidget>

namespace stave::widgets {

class ConfusionMatrixView : public QWidget {
  Q_OBJECT
 public:
  explicit ConfusionMatrixView(QWidget* parent = nullptr);

  /// The classes then "background", and counts[predicted][true]; empty shows `message`.
  void setMatrix(const QStringList& names, const QVector<QVector<double>>& counts);
  void setTitle(const QString& title);
  void setMessage(const QString& message);
  void setNormalised(bool normalised);
  bool normalised() const { return m_normalised; }
  int size() const { return static_cast<int>(m_names.size()); }

  /// The text drawn in a cell ("" when it is left blank).
  QString cellText(int predicted, int truth) const;
  /// Where a cell is drawn (tests click there); empty when outside.
  QRect cellRect(int predicted, int truth) const;
  /// The cell under a point, or (-1, -1).
  QPair<int, int> cellAt(const QPoint& pos) const;
  /// The selected cell, or (-1, -1).
  QPair<int, int> selectedCell() const { return m_selected; }
  void selectCell(int predicted, int truth);

  QSize sizeHint() const override { return {420, 380}; }
  QSize minimumSizeHint() const override { return {200, 180}; }

 signals:
  void cellClicked(int predicted, int truth);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  struct Geometry {
    QRectF grid;      ///< the cells
    double cell = 0;  ///< side of a cell
    double below = 0;  ///< from the grid's bottom to the axis title (the names between)
    bool names = false;
    bool numbers = false;
  };
  Geometry geometry() const;
  double value(int predicted, int truth) const;

  QStringList m_names;
  QVector<QVector<double>> m_counts, m_shares;
  QString m_title, m_message;
  bool m_normalised = true;
  QPair<int, int> m_selected{-1, -1};
};

}  // namespace stave::widgets
