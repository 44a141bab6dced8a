#pragma once
// The Dataset page: the project's dataset scanned in the background (progress per image,
// Cancel; the scan cache makes reopening quick). Summary: per-split counts, a class histogram,
// box size and aspect, image sizes. Problems: every problem found — selecting one shows the
// image with its label rows drawn and the offending row named (file:line). Gallery: thumbnails
// with boxes, filters and a large preview. Augmentation: a batch as the trainer's loader
// renders it.
#include <QList>
#include <QPointer>
#include <QWidget>
#include <memory>

#include "core/studio/models/dataset_scan.h"
#include "core/studio/run/draft_labels.h"

class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTableView;
class QTableWidget;
class QVBoxLayout;

namespace stave::studio {
class ProjectDocument;
class ThumbnailLoader;
}  // namespace stave::studio

namespace stave::widgets {
class AugmentView;
class BoxImageView;
class DatasetGallery;
class DraftLabelsDialog;
class LabelEditor;
class LabelIssuesView;

class DatasetPage : public QWidget {
  Q_OBJECT
 public:
  explicit DatasetPage(studio::ProjectDocument* doc, QWidget* parent = nullptr);
  ~DatasetPage() override;
  /// Scans the project's dataset again (the scan cache answers for unchanged splits).
  void rescan();
  /// Stops the scan in flight (within an image or two).
  void cancel();
  bool scanning() const;
  /// The last scan's result.
  const studio::DatasetSummary& summary() const { return *m_summary; }
  studio::DatasetScan* scanner() const { return m_scan; }
  studio::ProblemsModel* problems() const { return m_problems; }
  QTableView* problemView() const { return m_problemView; }
  QTableWidget* countsTable() const { return m_counts; }
  QCustomPlot* histogram() const { return m_histogram; }
  QTabWidget* tabs() const { return m_tabs; }
  DatasetGallery* gallery() const { return m_gallery; }
  AugmentView* augmentation() const { return m_augment; }
  /// The Label issues tab.
  LabelIssuesView* labelIssues() const { return m_issues; }
  /// Opens the label editor on the gallery's images shown, at its source row `row`; the
  /// dataset is scanned again when the editor is closed.
  LabelEditor* editLabels(int row);
  /// The label editor on the images of the Problems list, at problem `row`'s (double-click);
  /// null when that problem has no usable image.
  LabelEditor* editProblemImage(int row);
  /// Label new images… : a dialog that finds the images without a label file and picks the
  /// model whose predictions are their draft labels; accepting it opens the editor on them.
  DraftLabelsDialog* labelNewImages();
  /// The label editor on `images` (no label file yet), with `weights`' predictions of
  /// confidence >= `conf` as drafts ("" weights: no drafts).
  LabelEditor* editNewImages(const QVector<studio::ImageAndLabel>& images, const QString& weights,
                             double conf);
  QPushButton* labelNewButton() const { return m_labelNew; }
  /// The dataset root of the last scan ("" before one).
  QString datasetRoot() const;
  QProgressBar* progressBar() const { return m_progress; }
  QPushButton* cancelButton() const { return m_cancelButton; }
  /// The message line (errors, "from the scan cache", cancelled).
  QLabel* messageLabel() const { return m_message; }
  /// Shows problem `row`: the image with its boxes, the offending label row named.
  void showProblem(int row);
  /// What the problem preview says ("file:line: kind: message", or why there is no image).
  QString previewText() const;
  /// The image the problem preview shows ("" when none, or while it loads).
  QString previewImage() const { return m_previewImage; }
  /// The problem preview.
  BoxImageView* problemPreview() const { return m_preview; }

 signals:
  /// A scan finished: the train split's images and the classes (what optimizer=auto needs).
  void datasetSized(qint64 trainImages, int nc);

 private:
  /// The constructor's parts: the path/progress/Cancel/Rescan row and the message line, the
  /// Summary and Problems tabs, then the scan's and the project's signals.
  void buildHeader(QVBoxLayout* layout);
  void buildSummaryTab();
  void buildProblemsTab();
  void connectSignals();
  void showSummary();
  /// showSummary()'s parts: the problems table and preview, the counts table and the message
  /// line, the class histogram, the box and image size scatters, the box aspect histogram.
  void showProblemList(const studio::DatasetSummary& s);
  void showCounts(const studio::DatasetSummary& s);
  void plotClassHistogram(const studio::DatasetSummary& s);
  void plotSizes(const studio::DatasetSummary& s);
  void plotAspects(const studio::DatasetSummary& s);
  void showProblemImage();
  void setMessage(const QString& text, bool error);
  /// Rescans when `editor` closes (not once this page is gone).
  void watchEditor(LabelEditor* editor);
  studio::ProjectDocument* m_doc;
  studio::DatasetScan* m_scan;
  std::shared_ptr<const studio::DatasetSummary> m_summary;
  studio::ProblemsModel* m_problems;
  studio::ThumbnailLoader* m_previewLoader;
  QLabel* m_path = nullptr;
  QLabel* m_message = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_rescan = nullptr;
  QPushButton* m_labelNew = nullptr;
  QPushButton* m_cancelButton = nullptr;
  QTabWidget* m_tabs = nullptr;
  QTableWidget* m_counts = nullptr;
  QCustomPlot* m_histogram = nullptr;
  QCustomPlot* m_boxes = nullptr;
  QCustomPlot* m_aspects = nullptr;
  QCustomPlot* m_sizes = nullptr;
  QTableView* m_problemView = nullptr;
  BoxImageView* m_preview = nullptr;
  QLabel* m_previewInfo = nullptr;
  DatasetGallery* m_gallery = nullptr;
  AugmentView* m_augment = nullptr;
  LabelIssuesView* m_issues = nullptr;
  QList<QPointer<LabelEditor>> m_editors;  ///< the editors this page opened
  int m_problemRow = -1;
  QString m_problemImage;  // the image of the selected problem ("" when none)
  QString m_previewImage;
  QString m_scannedYaml;
};

}  // namespace stave::widgets
