#pragma once
// The Dataset page's Gallery tab: every image as a thumbnail with its boxes (a virtualised list:
// only the cells on screen ask for thumbnails), filtered by split, class and problem, and a
// large preview of the selected image whose boxes can be hidden class by class.
#include <QSet>
#include <QWidget>

#include "core/studio/models/dataset_scan.h"

class QComboBox;
class QLabel;
class QListView;
class QListWidget;
class QPushButton;
class QTimer;
class QVBoxLayout;

namespace stave::studio {
class GalleryModel;
class GalleryFilterModel;
class ThumbnailLoader;
}  // namespace stave::studio

namespace stave::widgets {
class BoxImageView;
class GalleryDelegate;

class DatasetGallery : public QWidget {
  Q_OBJECT
 public:
  explicit DatasetGallery(QWidget* parent = nullptr);
  ~DatasetGallery() override;
  /// Shows the images of a scan (the filters are reset).
  void setSummary(const studio::DatasetSummary& summary);
  /// Selects the image of `sourceRow` of the model and previews it.
  void select(int sourceRow);

  studio::GalleryModel* model() const { return m_model; }
  studio::GalleryFilterModel* filter() const { return m_filter; }
  QListView* view() const { return m_view; }
  studio::ThumbnailLoader* thumbnails() const { return m_thumbs; }
  QComboBox* splitBox() const { return m_splitBox; }
  QComboBox* classBox() const { return m_classBox; }
  QComboBox* problemBox() const { return m_problemBox; }
  QListWidget* classToggles() const { return m_classes; }
  BoxImageView* preview() const { return m_preview; }
  /// The image the large preview shows ("" when none is shown yet).
  QString previewPath() const { return m_previewShown; }
  /// Cells on screen whose thumbnail is not decoded yet (0 = the screen is complete).
  int missingVisibleThumbnails() const;
  /// Cells on screen.
  int visibleCells() const;
  /// The source rows the view shows, in its order (what the label editor goes through).
  QVector<int> shownRows() const;
  /// The source row selected (-1 when none).
  int selectedRow() const { return m_selected; }
  /// "Edit labels…" (the label editor on the images shown, from the selected one).
  QPushButton* editButton() const { return m_edit; }

 signals:
  /// Edit labels… was pressed or an image double-clicked: open the editor at `sourceRow`.
  void editRequested(int sourceRow);

 private:
  /// The constructor's parts: the split/class/problem filters and the count, the thumbnails
  /// beside the large preview and its class toggles, then the connections.
  void buildFilterBar(QVBoxLayout* layout);
  void buildBrowser(QVBoxLayout* layout);
  void connectSignals();
  void applyFilters();
  void showPreview();
  void updateHidden();
  void updateCount();
  studio::GalleryModel* m_model;
  studio::GalleryFilterModel* m_filter;
  studio::ThumbnailLoader* m_thumbs;
  studio::ThumbnailLoader* m_large;
  GalleryDelegate* m_delegate;
  QListView* m_view = nullptr;
  QComboBox* m_splitBox = nullptr;
  QComboBox* m_classBox = nullptr;
  QComboBox* m_problemBox = nullptr;
  QLabel* m_count = nullptr;
  QPushButton* m_edit = nullptr;
  QListWidget* m_classes = nullptr;
  BoxImageView* m_preview = nullptr;
  QLabel* m_info = nullptr;
  QTimer* m_repaint = nullptr;
  int m_selected = -1;  // source row
  QString m_previewShown;
  QSet<int> m_hidden;
};

}  // namespace stave::widgets
