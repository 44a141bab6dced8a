#pragma once
// The Dataset page: the project's dataset scanned in the background (progress, Cancel; the scan
// cache makes reopening quick): per-split counts, a class histogram, box and image size
// scatters, and every problem found — selecting one shows the image with its label boxes drawn
// and the offending row named (file:line).
#include <QWidget>
#include <atomic>
#include <memory>

#include "core/studio/dataset_scan.h"

class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;
class QTableWidget;

namespace stave::studio {
class BackgroundJob;
class ProjectDocument;
}  // namespace stave::studio

namespace stave::widgets {

class DatasetPage : public QWidget {
  Q_OBJECT
 public:
  explicit DatasetPage(studio::ProjectDocument* doc, QWidget* parent = nullptr);
  ~DatasetPage() override;
  /// Scans the project's dataset again.
  void rescan();
  /// Stops the scan in flight (between splits).
  void cancel();
  bool scanning() const;
  /// The last scan's result.
  const studio::DatasetSummary& summary() const { return m_summary; }
  studio::ProblemsModel* problems() const { return m_problems; }
  QTableView* problemView() const { return m_problemView; }
  QCustomPlot* histogram() const { return m_histogram; }
  /// The message line (errors, "from cache", cancelled).
  QLabel* messageLabel() const { return m_message; }
  /// Shows problem `row`: the image with its boxes, the offending label row named.
  void showProblem(int row);
  /// What the preview shows ("file:line: kind: message", or why the image cannot be shown).
  QString previewText() const;
  /// The image shown in the preview ("" when none).
  QString previewImage() const { return m_previewImage; }

 private:
  void showSummary();
  studio::ProjectDocument* m_doc;
  studio::BackgroundJob* m_job;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  studio::DatasetSummary m_summary;
  studio::ProblemsModel* m_problems;
  QLabel* m_path = nullptr;
  QLabel* m_message = nullptr;
  QProgressBar* m_progress = nullptr;
  QPushButton* m_rescan = nullptr;
  QPushButton* m_cancelButton = nullptr;
  QTableWidget* m_counts = nullptr;
  QCustomPlot* m_histogram = nullptr;
  QCustomPlot* m_boxes = nullptr;
  QCustomPlot* m_sizes = nullptr;
  QTableView* m_problemView = nullptr;
  QLabel* m_preview = nullptr;
  QLabel* m_previewInfo = nullptr;
  QString m_previewImage;
  QString m_scannedYaml;
};

}  // namespace stave::widgets
