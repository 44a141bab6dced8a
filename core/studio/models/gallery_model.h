#pragma once
// The Dataset page's gallery: one row per image of a scan (GalleryModel) and the filter the
// gallery shows it through (GalleryFilterModel: split, class, problem).

#include <QAbstractListModel>
#include <QSortFilterProxyModel>
#include <QStringList>
#include <memory>
#include <vector>

#include "core/studio/models/dataset_scan.h"

namespace stave::studio {

/// The images of a DatasetSummary as a list; DisplayRole is the file name.
class GalleryModel : public QAbstractListModel {
  Q_OBJECT
 public:
  enum Roles {
    PathRole = Qt::UserRole + 1,  ///< QString: the image, absolute
    LabelPathRole,                ///< QString: its label file
    SplitRole,                    ///< QString: "train", "val" or "test"
    SizeRole,                     ///< QSize: displayed size in pixels (invalid when unusable)
    BoxesRole,                    ///< QList<QRectF>: boxes, normalised (left, top, width, height)
    BoxClassesRole,               ///< QList<int>: the class of each box of BoxesRole
    ClassesRole,                  ///< QList<int>: the distinct classes, ascending
    ProblemKindsRole,             ///< QStringList: kinds of the image's problems
    UsableRole,                   ///< bool: false when the scan left the image out
  };
  using QAbstractListModel::QAbstractListModel;
  /// Shows the images of `summary` (no images when it has none).
  void setSummary(const DatasetSummary& summary);
  /// The image of `row` (0 <= row < rowCount()).
  const GalleryImage& image(int row) const { return (*m_images)[size_t(row)]; }
  /// Split names, by GalleryImage::split.
  const QStringList& splitNames() const { return m_splits; }
  /// Class names, by class id.
  const QStringList& classNames() const { return m_names; }
  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;

 private:
  std::shared_ptr<const std::vector<GalleryImage>> m_images =
      std::make_shared<std::vector<GalleryImage>>();
  QStringList m_splits, m_names;
};

/// Filters a GalleryModel by split, class and problem (all three together).
class GalleryFilterModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  /// setProblemFilter values besides a problem kind.
  static inline const QString kAnyProblem = QStringLiteral("*");  ///< images with any problem
  static inline const QString kNoProblem = QStringLiteral("-");   ///< images without problems
  using QSortFilterProxyModel::QSortFilterProxyModel;
  /// Only images of split `name` ("" = every split).
  void setSplitFilter(const QString& name);
  /// Only images with at least one box of class `cls` (-1 = any, also background images).
  void setClassFilter(int cls);
  /// "" = every image; kAnyProblem, kNoProblem, or a problem kind such as "label-class".
  void setProblemFilter(const QString& kind);
  QString splitFilter() const { return m_split; }
  int classFilter() const { return m_class; }
  QString problemFilter() const { return m_problem; }

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  QString m_split, m_problem;
  int m_class = -1;
};

}  // namespace stave::studio
