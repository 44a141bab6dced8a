#include "core/studio/dataset_scan.h"

#include <QDir>
#include <QFileInfo>

#include "core/data/dataset.h"

namespace stave::studio {

DatasetSummary scanDataset(const QString& dataYaml, const std::atomic<bool>* cancel,
                           const std::function<void(int, int)>& progress) {
  DatasetSummary out;
  out.yaml = dataYaml;
  try {
    auto spec = data::loadDataYaml(dataYaml.toStdString());
    if (!spec) {
      out.error = QString::fromStdString(spec.errorText());
      return out;
    }
    for (const auto& n : spec->names) out.names << QString::fromStdString(n);
    out.instancesPerClass = QVector<qint64>(spec->nc(), 0);
    QStringList splits{QStringLiteral("train"), QStringLiteral("val")};
    if (!spec->test.empty()) splits << QStringLiteral("test");
    int done = 0;
    for (const QString& name : splits) {
      if (cancel && cancel->load()) {
        out.cancelled = true;
        return out;
      }
      auto index = data::scanSplit(spec.value(), name.toStdString());
      if (!index) {
        out.error = QString::fromStdString(index.errorText());
        return out;
      }
      DatasetSummary::Split s;
      s.name = name;
      s.images = qint64(index->images.size());
      s.fromCache = index->fromCache;
      s.problems = qint64(index->problems.size());
      for (const auto& im : index->images) {
        if (!im.boxes.empty()) ++s.labelled;
        s.instances += qint64(im.boxes.size());
        // Every box counts in the histogram; the scatters keep the first kMaxPoints.
        for (const auto& b : im.boxes) {
          if (b.cls >= 0 && b.cls < out.instancesPerClass.size()) ++out.instancesPerClass[b.cls];
          if (out.boxSizes.size() < DatasetSummary::kMaxPoints)
            out.boxSizes.push_back(QPointF(b.w, b.h));
        }
        if (out.imageSizes.size() < DatasetSummary::kMaxPoints)
          out.imageSizes.push_back(QPointF(im.width, im.height));
      }
      s.background = s.images - s.labelled;
      out.splits.push_back(s);
      for (const auto& p : index->problems)
        out.problems.push_back({name, QString::fromStdString(p.file),
                                QString::fromStdString(p.kind), QString::fromStdString(p.message),
                                p.line, p.skipsImage});
      if (progress) progress(++done, int(splits.size()));
    }
  } catch (const std::exception& e) {
    out.error = QString::fromUtf8(e.what());
  }
  return out;
}

void ProblemsModel::setProblems(QVector<DatasetSummary::ProblemRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

int ProblemsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_rows.size());
}

int ProblemsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProblemsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_rows.size()) return {};
  const auto& r = m_rows[index.row()];
  if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
    switch (index.column()) {
      case SplitColumn:
        return r.split;
      case FileColumn:
        return r.line > 0
                   ? QStringLiteral("%1:%2").arg(QDir::toNativeSeparators(r.file)).arg(r.line)
                   : QDir::toNativeSeparators(r.file);
      case KindColumn:
        return r.kind;
      case MessageColumn:
        return r.message;
      default:
        return {};
    }
  }
  if (role == FileRole) return r.file;
  if (role == LineRole) return r.line;
  if (role == KindRole) return r.kind;
  return {};
}

QVariant ProblemsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case SplitColumn:
      return tr("Split");
    case FileColumn:
      return tr("File");
    case KindColumn:
      return tr("Problem");
    case MessageColumn:
      return tr("Message");
    default:
      return {};
  }
}

}  // namespace stave::studio
