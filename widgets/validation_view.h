#pragma once
// ValidationView: the validation views of one run, or two runs side by side (History's compare),
// from the files the engine writes after each validation (docs/validation.md):
// - Confusion matrix: counts or normalised; a click on a cell lists the images behind it, and
//   one chosen opens with its labels (dashed) and predictions (with confidence) drawn, the
//   boxes of the cell's classes highlighted;
// - Curves: precision–recall, F1, precision or recall over confidence, per class and their
//   mean, the best-F1 confidence marked; a second run dashed;
// - Gallery: labels beside predictions for the first validation images (a second run's
//   predictions in a third column);
// - Per class: images, instances, P, R, mAP50, mAP50-95 (and the second run's, with the change).
// The files are read on a background thread; showing a folder again re-reads it.
#include <QStringList>
#include <QVector>
#include <QWidget>

#include "core/studio/models/validation_data.h"

class QCheckBox;
class QColor;
class QComboBox;
class QCustomPlot;
class QGridLayout;
class QLabel;
class QListWidget;
class QTableWidget;
class QTabWidget;

namespace stave::studio {
class BackgroundJob;
}

namespace stave::widgets {

class BoxImageView;
class ConfusionMatrixView;
class LabelEditor;

class ValidationView : public QWidget {
  Q_OBJECT
 public:
  explicit ValidationView(QWidget* parent = nullptr);

  /// Reads and shows the views in `dirs` (one run, or two compared), titled `titles`.
  void showFolders(const QStringList& dirs, const QStringList& titles);
  /// Shows nothing but `message`.
  void clear(const QString& message);
  /// The folders shown (or being read).
  QStringList folders() const { return m_dirs; }
  /// Whether files are being read.
  bool busy() const;
  /// What was read for run k (0, or 1 when comparing).
  const studio::ValidationData& data(int k) const { return m_data.at(k); }
  int runCount() const { return static_cast<int>(m_data.size()); }

  QTabWidget* tabs() const { return m_tabs; }
  QLabel* statusLabel() const { return m_status; }
  QCheckBox* normalisedBox() const { return m_normalised; }
  ConfusionMatrixView* matrix(int k) const { return m_matrix[k]; }
  QListWidget* cellImages() const { return m_cellImages; }
  BoxImageView* imageView() const { return m_image; }
  QComboBox* curveKind() const { return m_curveKind; }
  QComboBox* curveClass() const { return m_curveClass; }
  QCustomPlot* curvePlot() const { return m_curves; }
  QTableWidget* classTable() const { return m_table; }
  /// The gallery's cells: row k holds the labels, predictions (and second run's) images.
  QGridLayout* galleryGrid() const { return m_galleryGrid; }

  /// Lists the images behind a cell of run k's matrix (what a click does).
  void showCell(int k, int predicted, int truth);
  /// Opens the listed image at `row` with its boxes.
  void openListedImage(int row);
  /// Opens the label editor on the cell's listed images, at the one shown, with the model's
  /// predictions to accept (double-click an image, or Edit labels…).
  LabelEditor* editListedImages();
  /// Opens the label editor on the gallery's images (the first run's), at gallery row `row`,
  /// with that run's predictions to accept (each gallery row's Edit labels… button).
  LabelEditor* editGalleryImage(int row);

 signals:
  /// The files were read and are shown.
  void loaded();
  /// An image was opened (its boxes are set).
  void imageOpened();

 private:
  struct Loaded;
  /// The constructor's tabs, in order (each with its own connections).
  void buildMatrixTab();
  void buildCurvesTab();
  void buildGalleryTab();
  void buildPerClassTab();
  void setLoaded(const Loaded& loaded);
  void updateMatrices();
  void updateCurves();
  /// updateCurves()'s parts: one graph; run `d`'s per-class curves of `kind` (only class
  /// `only`, or each when there are few); its mean over classes (the best F1 marked).
  void addCurve(const QVector<double>& x, const QVector<double>& y, const QString& name,
                const QColor& color, double width, bool dashed);
  void plotClassCurves(const studio::ValidationData& d, int kind, int only,
                       const QVector<double>& x, const QString& prefix, bool dashed);
  void plotMeanCurve(const studio::ValidationData& d, int kind, const QVector<double>& x,
                     const QString& prefix, bool dashed);
  void updateTable();
  void updateGallery(const QVector<QVector<QImage>>& pictures);
  QString runName(int k) const;
  /// The matrix's names as shown: the classes, then "background" in the user's language.
  QStringList shownNames(const studio::ValidationData& d) const;

  QStringList m_dirs, m_titles;
  QVector<studio::ValidationData> m_data;
  studio::BackgroundJob* m_job;
  studio::BackgroundJob* m_imageJob;
  QLabel* m_status = nullptr;
  QTabWidget* m_tabs = nullptr;
  QCheckBox* m_normalised = nullptr;
  ConfusionMatrixView* m_matrix[2] = {nullptr, nullptr};
  QListWidget* m_cellImages = nullptr;
  BoxImageView* m_image = nullptr;
  QLabel* m_imageCaption = nullptr;
  int m_cellRun = 0;  ///< the run whose cell is listed
  QPair<int, int> m_cell{-1, -1};
  QComboBox* m_curveKind = nullptr;
  QComboBox* m_curveClass = nullptr;
  QCustomPlot* m_curves = nullptr;
  QTableWidget* m_table = nullptr;
  QWidget* m_gallery = nullptr;
  QGridLayout* m_galleryGrid = nullptr;
};

}  // namespace stave::widgets
