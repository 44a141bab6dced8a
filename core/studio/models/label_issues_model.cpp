#include "core/studio/models/label_issues_model.h"

#include <QFileInfo>
#include <mutex>
#include "core/base/bounded_read.h"

#include "core/data/dataset.h"
#include "core/data/image_header.h"
#include "core/data/label_edits.h"
#include "core/data/label_fix_batch.h"
#include "core/studio/background_job.h"
#include "core/studio/engine_text.h"
#include "core/studio/models/label_editor_model.h"

namespace stave::studio {

QString issueKindText(data::IssueKind kind) {
  switch (kind) {
    case data::IssueKind::Overlooked:
      return LabelIssuesModel::tr("Overlooked");
    case data::IssueKind::Swapped:
      return LabelIssuesModel::tr("Swapped class");
    case data::IssueKind::BadlyLocated:
      return LabelIssuesModel::tr("Badly located");
    case data::IssueKind::Spurious:
      return LabelIssuesModel::tr("Spurious");
  }
  return {};
}

struct LabelIssuesModel::Store {
  std::shared_ptr<SharedLabelStore> shared;
};

LabelIssuesModel::LabelIssuesModel(QObject* parent)
    : QAbstractTableModel(parent),
      m_loadJob(new BackgroundJob(this)),
      m_fixJob(new BackgroundJob(this)),
      m_store(std::make_shared<Store>()) {}

LabelIssuesModel::~LabelIssuesModel() = default;

namespace {
struct LoadedIssues {
  std::vector<data::IssueRow> rows;
  QStringList problems;
  QString error;
  int dismissed = 0;
};
}  // namespace

void LabelIssuesModel::load(const QString& csv, const QString& root, const QStringList& names) {
  m_csv = csv;
  m_root = root;
  m_names = names;
  m_store->shared = sharedLabelStore(root);
  const std::string csvPath = csv.toStdString(), rootPath = root.toStdString();
  m_loadJob->run<LoadedIssues>(
      [csvPath, rootPath] {
        LoadedIssues l;
        auto r = data::readLabelIssuesCsv(csvPath);
        if (!r) {
          l.error = errorsText(r.errors());
          return l;
        }
        // The companion beside the CSV gives each badly located issue its predicted box, so
        // that one key takes it (as `stave-train labels fix` does).
        std::vector<Error> warnings = r->problems;
        data::IssuesCompanion companion;
        if (auto text = readFileCapped(csvPath, size_t{256} << 20)) {
          bool used = false;
          companion = data::companionFor(csvPath, text.value(), warnings, used);
        }
        for (const auto& p : warnings) l.problems << errorText(p);
        const auto dismissed = data::readDismissedIssues(rootPath);
        for (auto& row : r->rows) {
          if (dismissed.count(data::issueKey(row))) {
            ++l.dismissed;
            continue;
          }
          data::attachPredictedBox(companion, row);
          l.rows.push_back(std::move(row));
        }
        return l;
      },
      [this](LoadedIssues l) {
        beginResetModel();
        m_rows.clear();
        for (auto& r : l.rows) m_rows.push_back(Row{std::move(r), State::Open, {}});
        m_problems = l.problems;
        m_error = l.error;
        m_dismissed = l.dismissed;
        endResetModel();
        emit loaded();
      });
}

QString LabelIssuesModel::imagePath(int row) const {
  const QString image = QString::fromStdString(m_rows[row].issue.image);
  return QFileInfo(image).isAbsolute() ? image : m_root + QLatin1Char('/') + image;
}

QString LabelIssuesModel::labelPath(int row) const {
  return QString::fromStdString(data::labelPathFor(imagePath(row).toStdString()));
}

bool LabelIssuesModel::busy() const {
  return m_fixJob->busy();
}

void LabelIssuesModel::setState(int row, State state, const QString& note) {
  m_rows[row].state = state;
  m_rows[row].note = note;
  emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

void LabelIssuesModel::applyFix(int row, data::IssueFix fix) {
  if (row < 0 || row >= m_rows.size() || m_rows[row].state != State::Open || m_fixJob->busy())
    return;
  struct Outcome {
    QString edit, error;
  };
  const data::IssueRow issue = m_rows[row].issue;
  const std::string image = imagePath(row).toStdString(), label = labelPath(row).toStdString();
  auto store = m_store->shared;
  m_fixJob->run<Outcome>(
      [store, issue, image, label, fix] {
        Outcome o;
        const auto h = data::readImageHeader(image);
        if (!h.ok) {
          o.error = QString::fromStdString(image + ": ") + engineText({h.errorText}, h.error);
          return o;
        }
        std::lock_guard<std::mutex> lock(store->mutex);
        auto file = data::readLabelFile(label);
        if (!file) {
          o.error = errorsText(file.errors());
          return o;
        }
        auto text =
            data::applyIssueFix(file->text, label, issue, fix, h.displayWidth(), h.displayHeight());
        if (!text) {
          o.error = errorsText(text.errors());
          return o;
        }
        auto e = store->store.write(file.value(), text.value());
        if (!e)
          o.error = errorsText(e.errors());
        else
          o.edit = QString::fromStdString(e->id);
        return o;
      },
      [this, row](Outcome o) {
        if (!o.error.isEmpty()) {
          setState(row, State::Failed, o.error);
          emit failed(row, o.error);
          return;
        }
        setState(row, State::Fixed, o.edit);
        emit fixed(row, o.edit);
      });
}

void LabelIssuesModel::markNotAnIssue(int row) {
  if (row < 0 || row >= m_rows.size()) return;
  // A few hundred bytes written atomically; on a thread all the same (a hung mount).
  const data::IssueRow issue = m_rows[row].issue;
  const std::string root = m_root.toStdString();
  m_fixJob->run<QString>(
      [issue, root] {
        auto s = data::dismissIssue(root, issue);
        return s ? QString() : errorsText(s.errors());
      },
      [this, row](QString error) {
        if (!error.isEmpty()) {
          emit failed(row, error);
          return;
        }
        setState(row, State::NotAnIssue, {});
        emit fixed(row, {});
      });
}

int LabelIssuesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_rows.size());
}

int LabelIssuesModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant LabelIssuesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= m_rows.size()) return {};
  const Row& r = m_rows[index.row()];
  auto className = [&](int cls) -> QString {
    if (cls < 0) return QStringLiteral("—");
    return m_names.value(cls, QString::number(cls));
  };
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case ImageColumn:
          return QString::fromStdString(r.issue.image);
        case KindColumn:
          return issueKindText(r.issue.kind);
        case ClassColumn:
          return className(r.issue.labelClass);
        case PredictedColumn:
          return className(r.issue.predictedClass);
        case ScoreColumn:
          return QString::number(r.issue.score, 'f', 3);
        case StateColumn:
          switch (r.state) {
            case State::Open:
              return QString();
            case State::Fixed:
              return tr("fixed");
            case State::NotAnIssue:
              return tr("not an issue");
            case State::Failed:
              return tr("failed");
          }
      }
      return {};
    case Qt::ToolTipRole:
      if (!r.note.isEmpty()) return r.note;
      return imagePath(index.row());
    case ImagePathRole:
      return imagePath(index.row());
    case LabelPathRole:
      return labelPath(index.row());
    case KindRole:
      return QString::fromLatin1(data::issueKindName(r.issue.kind));
    case StateRole:
      return int(r.state);
    default:
      return {};
  }
}

QVariant LabelIssuesModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case ImageColumn:
      return tr("Image");
    case KindColumn:
      return tr("Issue");
    case ClassColumn:
      return tr("Label class");
    case PredictedColumn:
      return tr("Predicted class");
    case ScoreColumn:
      return tr("Score");
    case StateColumn:
      return tr("State");
  }
  return {};
}

}  // namespace stave::studio
