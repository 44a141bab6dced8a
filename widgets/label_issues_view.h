#pragma once
// The Label issues view: the ranked list of an issues CSV (`stave-train label-issues`), each row
// with its image's thumbnail, kind, class and confidence, the selected issue's image and box
// beside it, each issue one key from its fix —
//   Enter: the usual fix (overlooked: accept the prediction, swapped: take the predicted class,
//   spurious: delete the box) · Delete: delete the label box · C: take the predicted class ·
//   E or double-click: open the image in the label editor · N: not an issue (remembered for
//   this dataset, not shown again).
// After a fix the next open issue is selected.
#include <QWidget>

#include "core/studio/models/label_issues_model.h"

class QLabel;
class QPushButton;
class QTableView;

namespace stave::studio {
class BackgroundJob;
class ThumbnailLoader;
}  // namespace stave::studio

namespace stave::widgets {

class BoxImageView;
class LabelEditor;

class LabelIssuesView : public QWidget {
  Q_OBJECT
 public:
  /// The long side of the list's thumbnails, in pixels.
  static constexpr int kThumbnailSide = 48;
  explicit LabelIssuesView(QWidget* parent = nullptr);
  /// Reads the issues CSV `csv` of the dataset at `root` (classes `names`).
  void load(const QString& csv, const QString& root, const QStringList& names);
  /// The dataset used when a CSV is chosen with the Open button.
  void setDataset(const QString& root, const QStringList& names);

  studio::LabelIssuesModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  BoxImageView* preview() const { return m_preview; }
  QLabel* messageLabel() const { return m_message; }
  /// The list's thumbnails (decoded off the GUI thread, cached with a bound in bytes).
  studio::ThumbnailLoader* thumbnails() const { return m_thumbs; }
  /// The editor opened last from this view (null when none is open).
  LabelEditor* editor() const { return m_editor; }

  /// The fixes of the selected issue.
  void fixSelected();
  void fixSelected(data::IssueFix fix);
  void notAnIssue();
  /// Opens the selected issue's image in the label editor, with every issue of the list on it.
  LabelEditor* editSelected();

 signals:
  /// The preview shows the selected issue.
  void previewShown();

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void showSelected();
  void selectNextOpen(int after);
  int selectedRow() const;
  studio::LabelIssuesModel* m_model;
  QTableView* m_table;
  BoxImageView* m_preview;
  QLabel* m_summary;
  QLabel* m_message;
  QPushButton* m_open;
  studio::ThumbnailLoader* m_thumbs;
  studio::BackgroundJob* m_imageJob;
  LabelEditor* m_editor = nullptr;
  QString m_root;
  QStringList m_names;
};

}  // namespace stave::widgets
