#pragma once
// The label editor's drawing surface: the image (a pixmap decoded once at a bounded size and
// drawn by the part on screen, never the full image each paint), the label boxes (selectable,
// movable by dragging, resizable by their corners and edges, a new one drawn by dragging on
// empty space) and the model's predictions (dashed, with their confidence). Zoom with the wheel
// or +/-, 0 fits; pan by dragging with the right or middle button. The canvas only draws and
// reports gestures: every change goes out as boxesEdited(before, after) for the editor's undo
// stack.
#include <QPixmap>
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "core/studio/models/label_editor_model.h"

namespace stave::widgets {

class LabelCanvas : public QWidget {
  Q_OBJECT
 public:
  explicit LabelCanvas(QWidget* parent = nullptr);
  void setPicture(const QPixmap& pixmap);
  void setBoxes(const QVector<studio::EditorBox>& boxes);
  void setPredictions(const QVector<studio::EditorBox>& predictions);
  void setIssues(const QVector<studio::EditorBox>& issues);
  void setClassNames(const QStringList& names);
  void setMessage(const QString& message);
  /// The predictions are draft labels (an image without a label file): drawn hatched with a
  /// "draft" tag, and hidden once accepted (a label box in the same place).
  void setDrafts(bool drafts);
  bool drafts() const { return m_drafts; }
  /// A label box holds `draft` exactly (it was accepted).
  bool isAccepted(const studio::EditorBox& draft) const;
  /// The class a newly drawn box gets.
  void setDrawClass(int cls) { m_drawClass = cls; }

  const QVector<studio::EditorBox>& boxes() const { return m_boxes; }
  int selected() const { return m_selected; }
  void select(int box);
  int selectedPrediction() const { return m_selectedPrediction; }
  void selectPrediction(int prediction);
  double zoom() const { return m_zoom; }
  /// 1 = the whole image fits.
  void setZoom(double zoom, QPointF anchor = {-1, -1});
  QPointF pan() const { return m_pan; }
  /// Where normalised image point `p` is on the widget.
  QPointF toWidget(QPointF p) const;
  /// The normalised image point under widget point `w`.
  QPointF toImage(QPointF w) const;
  /// The image's rect on the widget.
  QRectF imageRect() const;
  /// Milliseconds the last paint took.
  double lastPaintMs() const { return m_paintMs; }

  QSize sizeHint() const override { return {900, 650}; }
  QSize minimumSizeHint() const override { return {240, 180}; }

 signals:
  /// A gesture changed the boxes (drawn, moved, resized).
  void boxesEdited(const QVector<stave::studio::EditorBox>& before,
                   const QVector<stave::studio::EditorBox>& after, const QString& what);
  void selectionChanged(int box);
  void predictionSelected(int prediction);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  enum Handle { None = 0, Left = 1, Right = 2, Top = 4, Bottom = 8, Move = 16 };
  /// The box and the handle under widget point `w` (the selected box first).
  int hit(QPointF w, int* handle) const;
  int hitPrediction(QPointF w) const;
  void clampPan();
  QPixmap m_pixmap;
  QPixmap m_scaled;  // m_pixmap at the size on screen (rebuilt when the zoom changes)
  QVector<studio::EditorBox> m_boxes, m_predictions, m_issues;
  QStringList m_names;
  QString m_message;
  int m_selected = -1;
  int m_selectedPrediction = -1;
  int m_drawClass = 0;
  bool m_drafts = false;
  double m_zoom = 1;
  QPointF m_pan;  // offset of the image's centre from the widget's, in widget pixels
  // The gesture in progress.
  int m_handle = None;
  bool m_drawing = false, m_panning = false;
  QPointF m_press, m_pressPan;
  QVector<studio::EditorBox> m_before;
  QRectF m_startRect;
  double m_paintMs = 0;
};

}  // namespace stave::widgets
