#pragma once
// The label editor: one image at a time with its label boxes and the model's predictions, a
// class list, and the keyboard doing most of the work —
//   drag on empty space: draw a box · drag a box: move · drag an edge or corner: resize
//   1..9, 0: class of the selected box (and of the next drawn) · Delete: delete the box
//   A: accept the selected prediction (none selected: the strongest one no label covers)
//   Shift+A: accept every draft label (an image without a label file; see predictDrafts)
//   Right / PageDown: next image · Left / PageUp: previous · I: next image with an issue
//   Ctrl+Z / Ctrl+Shift+Z: undo / redo · Ctrl+S: save · wheel, +/-: zoom · Ctrl+0: fit
//   right or middle drag: pan · Tab: next box · Esc: nothing selected
// Going to another image saves the edits first. Saving goes through LabelStore: a label file
// changed on disk meanwhile is not overwritten (Reload, or keep the edits), a dataset that cannot
// be written keeps the edits of every image in memory (Save elsewhere… writes just those label
// files to another folder, Discard drops them).
#include <QWidget>

#include "core/studio/models/label_editor_model.h"

class QLabel;
class QListWidget;
class QPushButton;
class QUndoStack;

namespace stave::studio {
class DraftPredictor;
}

namespace stave::widgets {

class LabelCanvas;

class LabelEditor : public QWidget {
  Q_OBJECT
 public:
  explicit LabelEditor(QWidget* parent = nullptr);
  ~LabelEditor() override;

  /// Shows `images` of the dataset at `root` (classes `names`), starting with `current`.
  void setImages(const QString& root, const QStringList& names,
                 const QVector<studio::EditorImage>& images, int current = 0);

  studio::LabelEditorModel* model() const { return m_model; }
  LabelCanvas* canvas() const { return m_canvas; }
  QUndoStack* undoStack() const { return m_undo; }
  QListWidget* classList() const { return m_classes; }
  /// The status line (image n of m, file, unsaved) and the message line (errors).
  QLabel* statusLabel() const { return m_status; }
  QLabel* messageLabel() const { return m_message; }
  QPushButton* reloadButton() const { return m_reload; }
  QPushButton* discardButton() const { return m_discard; }
  QPushButton* saveElsewhereButton() const { return m_saveElsewhere; }
  QPushButton* acceptAllButton() const { return m_acceptAll; }

  /// Model-assisted labelling: runs `weights` on the editor's images (`stave-train predict` as
  /// a child process, off the GUI thread) and shows its boxes of confidence >= `conf` as draft
  /// labels — meant for images without a label file. Nothing is written until one is accepted.
  void predictDrafts(const QString& weights, double conf = 0.25);
  /// The predictor behind predictDrafts (made on first use).
  studio::DraftPredictor* draftPredictor();
  /// Accepts every draft of the current image not accepted yet and writes the label file;
  /// false when there is none.
  bool acceptAllDrafts();
  /// Writes the label files with edits kept in memory (a read-only dataset) under `folder`.
  void saveElsewhere(const QString& folder);

  /// The edits as one undoable step (what every gesture and key goes through).
  void edit(const QVector<studio::EditorBox>& after, const QString& what);
  /// Sets the selected box's class (and the class of boxes drawn next).
  void setClass(int cls);
  void deleteSelected();
  /// Accepts the selected prediction, or the strongest one no label box covers; false if none.
  bool acceptPrediction();
  void next();
  void previous();
  void nextIssue();

 signals:
  /// An image was opened and drawn.
  void imageShown(int index);

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void showOpened();
  void updateStatus();
  void showFailure(studio::LabelEditorModel::Failure failure, const QString& message);
  void showDrafts();
  void draftsPredicted();
  studio::LabelEditorModel* m_model;
  LabelCanvas* m_canvas;
  QUndoStack* m_undo;
  QListWidget* m_classes;
  QLabel* m_status;
  QLabel* m_message;
  QPushButton* m_reload;
  QPushButton* m_discard;
  QPushButton* m_saveElsewhere;
  QPushButton* m_acceptAll;
  QLabel* m_draftHelp;  ///< the drafts' keys, shown on an image with drafts
  studio::DraftPredictor* m_drafts = nullptr;
  bool m_closeWhenSaved = false;
};

/// Opens a label editor window on `images` (deleted when closed).
LabelEditor* openLabelEditor(QWidget* parent, const QString& root, const QStringList& names,
                             const QVector<studio::EditorImage>& images, int current);

}  // namespace stave::widgets
