#include "core/studio/models/gallery_model.h"

#include <QFileInfo>
#include <QRectF>
#include <QSize>
#include <algorithm>

namespace stave::studio {

void GalleryModel::setSummary(const DatasetSummary& summary) {
  beginResetModel();
  m_images = summary.images ? summary.images : std::make_shared<std::vector<GalleryImage>>();
  m_splits.clear();
  for (const auto& s : summary.splits) m_splits << s.name;
  m_names = summary.names;
  endResetModel();
}

int GalleryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_images->size());
}

QVariant GalleryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() < 0 || index.row() >= rowCount()) return {};
  const GalleryImage& im = image(index.row());
  switch (role) {
    case Qt::DisplayRole:
      return QFileInfo(im.path).fileName();
    case Qt::ToolTipRole: {
      QString tip = im.path;
      if (im.usable) tip += QStringLiteral("\n%1 × %2").arg(im.width).arg(im.height);
      if (!im.problemKinds.isEmpty()) tip += QLatin1Char('\n') + im.problemKinds.join(", ");
      return tip;
    }
    case PathRole:
      return im.path;
    case LabelPathRole:
      return im.labelPath;
    case SplitRole:
      return im.split >= 0 && im.split < m_splits.size() ? m_splits[im.split] : QString();
    case SizeRole:
      return im.usable ? QSize(im.width, im.height) : QSize();
    case BoxesRole: {
      QList<QRectF> boxes;
      boxes.reserve(qsizetype(im.boxes.size()));
      for (const auto& b : im.boxes) boxes << QRectF(b.cx - b.w / 2, b.cy - b.h / 2, b.w, b.h);
      return QVariant::fromValue(boxes);
    }
    case BoxClassesRole: {
      QList<int> classes;
      for (const auto& b : im.boxes) classes << b.cls;
      return QVariant::fromValue(classes);
    }
    case ClassesRole: {
      QList<int> classes;
      for (const auto& b : im.boxes)
        if (!classes.contains(b.cls)) classes << b.cls;
      std::sort(classes.begin(), classes.end());
      return QVariant::fromValue(classes);
    }
    case ProblemKindsRole:
      return im.problemKinds;
    case UsableRole:
      return im.usable;
    default:
      return {};
  }
}

void GalleryFilterModel::setSplitFilter(const QString& name) {
  if (name == m_split) return;
  m_split = name;
  invalidateRowsFilter();
}

void GalleryFilterModel::setClassFilter(int cls) {
  if (cls == m_class) return;
  m_class = cls;
  invalidateRowsFilter();
}

void GalleryFilterModel::setProblemFilter(const QString& kind) {
  if (kind == m_problem) return;
  m_problem = kind;
  invalidateRowsFilter();
}

bool GalleryFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const auto* model = qobject_cast<const GalleryModel*>(sourceModel());
  if (!model || sourceParent.isValid()) return true;
  const GalleryImage& im = model->image(sourceRow);
  if (!m_split.isEmpty()) {
    const auto& splits = model->splitNames();
    if (im.split < 0 || im.split >= splits.size() || splits[im.split] != m_split) return false;
  }
  if (m_class >= 0 && std::none_of(im.boxes.begin(), im.boxes.end(),
                                   [this](const data::Box& b) { return b.cls == m_class; }))
    return false;
  if (m_problem == kAnyProblem) return !im.problemKinds.isEmpty();
  if (m_problem == kNoProblem) return im.problemKinds.isEmpty();
  if (!m_problem.isEmpty()) return im.problemKinds.contains(m_problem);
  return true;
}

}  // namespace stave::studio
