#include "core/studio/models/dataset_scan.h"
#include "core/studio/engine_text.h"

#include <QDir>
#include <QHash>
#include <QPointer>
#include <algorithm>
#include <set>

#include "core/data/image_header.h"
#include "core/studio/background_job.h"
#include "core/data/rng.h"

namespace stave::studio {
namespace {
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}
// A scan that stopped on an exception, said in the studio's language (the exception's own
// words, the library's or the system's, kept as an argument).
QString stoppedOn(const std::exception& e) {
  return engineText(Text("data.scan_failed", {{"reason", e.what()}}));
}
void addKind(QStringList& kinds, const QString& kind) {
  if (!kinds.contains(kind)) kinds << kind;
}
}  // namespace

bool DatasetSummary::fromCache() const {
  if (splits.isEmpty()) return false;
  for (const auto& s : splits)
    if (!s.fromCache) return false;
  return true;
}

namespace {

using SplitIndexes = std::vector<std::shared_ptr<data::SplitIndex>>;

// Scans train, val and test (when the yaml names it) in turn into `indexes`. False when the scan
// was cancelled or a split cannot be read: `out` then says which.
bool scanSplits(const data::DataSpec& spec, const std::atomic<bool>* cancel,
                const ScanProgress& progress, bool useCache, DatasetSummary& out,
                SplitIndexes& indexes) {
  std::vector<std::string> splitNames{"train", "val"};
  if (!spec.test.empty()) splitNames.push_back("test");
  for (const auto& name : splitNames) {
    data::ScanOptions so;
    so.useCache = useCache;
    so.cancel = cancel;
    const QString qname = qs(name);
    if (progress)
      so.progress = [&progress, qname](int64_t done, int64_t total) {
        progress(qname, qint64(done), qint64(total));
      };
    auto index = data::scanSplit(spec, name, so);
    if (cancel && cancel->load()) {
      out.cancelled = true;
      return false;
    }
    if (!index) {
      out.error = errorsText(index.errors());
      return false;
    }
    indexes.push_back(std::make_shared<data::SplitIndex>(std::move(index.value())));
  }
  return true;
}

// Reduces the scanned splits to the summary: counts, the class histogram, the sampled scatters,
// the gallery and the problem rows.
//
// Every box counts in the histogram; the scatters take a sample of about 1 / stride of the
// boxes (at most kMaxPoints), so a 50 000-image dataset stays quick to plot. The sample is
// drawn by hashing the box's number, not every stride-th box, so a dataset whose files
// repeat a pattern is not sampled in step with it.
class SummaryBuilder {
 public:
  SummaryBuilder(DatasetSummary& out, std::vector<GalleryImage>& images,
                 const SplitIndexes& indexes)
      : m_out(out), m_images(images) {
    qint64 totalImages = 0;
    for (const auto& ix : indexes) {
      totalImages += qint64(ix->images.size());
      for (const auto& im : ix->images) out.boxes += qint64(im.boxes.size());
    }
    m_boxStride = std::max<qint64>(1, (out.boxes + out.kMaxPoints - 1) / out.kMaxPoints);
    m_imageStride = std::max<qint64>(1, (totalImages + out.kMaxPoints - 1) / out.kMaxPoints);
  }

  void addSplit(const data::SplitIndex& ix, int si) {
    DatasetSummary::Split s;
    s.name = qs(ix.split);
    s.images = qint64(ix.images.size());
    s.fromCache = ix.fromCache;
    s.problems = qint64(ix.problems.size());
    s.skipped = ix.skippedImages;
    // The split's images; the image and label paths of each lead back to it for problems.
    QHash<QString, int> byFile;
    for (const auto& im : ix.images) addImage(im, si, s, byFile);
    s.background = s.images - s.labelled;
    m_out.splits.push_back(s);
    for (const auto& p : ix.problems) addProblem(p, si, s.name, byFile);
  }

  void finish() {
    for (const auto& k : m_kinds) m_out.problemKinds << k;
  }

 private:
  void addImage(const data::ImageRecord& im, int si, DatasetSummary::Split& s,
                QHash<QString, int>& byFile) {
    if (!im.boxes.empty()) ++s.labelled;
    s.instances += qint64(im.boxes.size());
    for (const auto& b : im.boxes) {
      if (b.cls >= 0 && b.cls < m_out.instancesPerClass.size()) ++m_out.instancesPerClass[b.cls];
      if (data::splitMix64(uint64_t(m_boxNo++)) % uint64_t(m_boxStride) == 0 &&
          m_out.boxSizes.size() < m_out.kMaxPoints) {
        m_out.boxSizes.push_back(QPointF(b.w, b.h));
        const double ph = double(b.h) * im.height;
        m_out.boxAspects.push_back(ph > 0 ? double(b.w) * im.width / ph : 0.0);
      }
    }
    if (data::splitMix64(uint64_t(m_imageNo++)) % uint64_t(m_imageStride) == 0 &&
        m_out.imageSizes.size() < m_out.kMaxPoints)
      m_out.imageSizes.push_back(QPointF(im.width, im.height));
    GalleryImage g;
    g.path = qs(im.imagePath);
    g.labelPath = qs(im.labelPath);
    g.split = si;
    g.width = im.width;
    g.height = im.height;
    g.boxes = im.boxes;
    byFile.insert(g.path, int(m_images.size()));
    byFile.insert(g.labelPath, int(m_images.size()));
    m_images.push_back(std::move(g));
  }

  void addProblem(const data::Problem& p, int si, const QString& split,
                  QHash<QString, int>& byFile) {
    DatasetSummary::ProblemRow row{split,  qs(p.file),   qs(p.kind), engineText(p.text, p.message),
                                   p.line, p.skipsImage, -1};
    auto it = byFile.constFind(row.file);
    if (it == byFile.constEnd() && p.skipsImage && data::hasImageExtension(p.file)) {
      // An image the scan left out: in the gallery too, marked as unusable.
      GalleryImage g;
      g.path = row.file;
      g.labelPath = qs(data::labelPathFor(p.file));
      g.split = si;
      g.usable = false;
      it = byFile.insert(row.file, int(m_images.size()));
      m_images.push_back(std::move(g));
    }
    if (it != byFile.constEnd()) {
      row.image = it.value();
      addKind(m_images[size_t(row.image)].problemKinds, row.kind);
    }
    m_kinds.insert(row.kind);
    m_out.problems.push_back(std::move(row));
  }

  DatasetSummary& m_out;
  std::vector<GalleryImage>& m_images;
  qint64 m_boxStride = 1, m_imageStride = 1;
  qint64 m_boxNo = 0, m_imageNo = 0;
  std::set<QString> m_kinds;
};

}  // namespace

DatasetSummary scanDataset(const QString& dataYaml, const std::atomic<bool>* cancel,
                           const ScanProgress& progress, bool useCache) {
  DatasetSummary out;
  out.yaml = dataYaml;
  auto images = std::make_shared<std::vector<GalleryImage>>();
  out.images = images;
  try {
    auto spec = data::loadDataYaml(dataYaml.toStdString());
    if (!spec) {
      out.error = errorsText(spec.errors());
      return out;
    }
    for (const auto& n : spec->names) out.names << qs(n);
    out.instancesPerClass = QVector<qint64>(spec->nc(), 0);
    SplitIndexes indexes;
    if (!scanSplits(spec.value(), cancel, progress, useCache, out, indexes)) return out;
    SummaryBuilder builder(out, *images, indexes);
    for (size_t si = 0; si < indexes.size(); ++si) builder.addSplit(*indexes[si], int(si));
    builder.finish();
    if (!indexes.empty() && indexes.front()->split == "train") out.train = indexes.front();
  } catch (const std::exception& e) {
    out.error = stoppedOn(e);
  }
  return out;
}

DatasetScan::DatasetScan(QObject* parent)
    : QObject(parent), m_job(new BackgroundJob(this)), m_post(std::make_shared<Post>()) {
  m_post->owner = this;
}

DatasetScan::~DatasetScan() {
  // The scan is told to stop; m_job (a child) then waits a bounded time and lets a scan that
  // does not end go (a hung mount). From here on its progress reaches no one.
  cancel();
  std::lock_guard<std::mutex> lock(m_post->mutex);
  m_post->owner = nullptr;
}

void DatasetScan::cancel() {
  if (m_cancel) m_cancel->store(true);
}

void DatasetScan::start(const QString& dataYaml, bool useCache) {
  // The scan in flight is told to stop and never waited for: a file that blocks (a FIFO, a
  // hung network mount) must not freeze the window. A newer start() makes its results stale.
  cancel();
  const quint64 gen = ++m_generation;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  m_running = true;
  auto flag = m_cancel;
  auto post = m_post;
  m_job->run<std::shared_ptr<const DatasetSummary>>(
      [gen, flag, post, dataYaml, useCache] {
        // Posted under the lock the destructor takes to clear `owner`; Qt drops calls queued
        // for a deleted object.
        auto onProgress = [gen, post](const QString& split, qint64 done, qint64 total) {
          std::lock_guard<std::mutex> lock(post->mutex);
          if (DatasetScan* owner = post->owner)
            QMetaObject::invokeMethod(
                owner,
                [owner, gen, split, done, total] {
                  if (gen == owner->m_generation) emit owner->progress(split, done, total);
                },
                Qt::QueuedConnection);
        };
        auto result = std::make_shared<DatasetSummary>();
        try {
          *result = scanDataset(dataYaml, flag.get(), onProgress, useCache);
        } catch (const std::exception& e) {
          result->yaml = dataYaml;
          result->error = stoppedOn(e);
        }
        return std::shared_ptr<const DatasetSummary>(std::move(result));
      },
      [this, gen](std::shared_ptr<const DatasetSummary> result) {
        if (gen != m_generation) return;
        m_running = false;
        m_summary = std::move(result);
        emit finished();
      });
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
  if (role == ImageRole) return r.image;
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
