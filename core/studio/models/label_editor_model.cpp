#include "core/studio/models/label_editor_model.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>

#include "core/base/atomic_file.h"
#include "core/data/image_header.h"
#include "core/studio/background_job.h"
#include "core/studio/engine_text.h"

namespace stave::studio {

namespace {

data::Box toBox(const EditorBox& b) {
  const QRectF& r = b.rect;
  return data::Box{b.cls, float(r.center().x()), float(r.center().y()), float(r.width()),
                   float(r.height())};
}

EditorBox fromBox(const data::Box& b, int row) {
  EditorBox e;
  e.cls = b.cls;
  e.rect = QRectF(double(b.cx) - double(b.w) / 2, double(b.cy) - double(b.h) / 2, double(b.w),
                  double(b.h));
  e.row = row;
  return e;
}

// What a load reads on its thread.
struct Loaded {
  data::LabelFileState file;
  Thumbnail picture;
  QSize size;
  QString error;
};

QString labelPathOf(const EditorImage& im) {
  return im.label.isEmpty() ? QString::fromStdString(data::labelPathFor(im.image.toStdString()))
                            : im.label;
}

}  // namespace

const std::string& labelEditSession() {
  static const std::string s = data::newSessionId();
  return s;
}

QString labelTextWith(const std::vector<data::LabelRow>& rows, const QVector<EditorBox>& boxes) {
  std::vector<std::string> out;
  std::vector<bool> used(size_t(boxes.size()), false);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].isBox) {
      out.push_back(rows[i].text);
      continue;
    }
    for (int j = 0; j < boxes.size(); ++j) {
      if (used[size_t(j)] || boxes[j].row != int(i)) continue;
      used[size_t(j)] = true;
      const EditorBox original = fromBox(rows[i].box, int(i));
      out.push_back(boxes[j] == original ? rows[i].text : data::formatBoxRow(toBox(boxes[j])));
      break;
    }
  }
  for (int j = 0; j < boxes.size(); ++j)
    if (!used[size_t(j)]) out.push_back(data::formatBoxRow(toBox(boxes[j])));
  return QString::fromStdString(data::joinRows(out));
}

QString datasetRootOf(const QString& imagePath) {
  const int at = imagePath.lastIndexOf(QStringLiteral("/images/"));
  if (at > 0) return imagePath.left(at);
  return QFileInfo(imagePath).absolutePath();
}

std::shared_ptr<SharedLabelStore> sharedLabelStore(const QString& root) {
  static std::mutex mutex;
  static std::map<QString, std::weak_ptr<SharedLabelStore>> stores;
  const QString key = QDir::cleanPath(QFileInfo(root).absoluteFilePath());
  std::lock_guard<std::mutex> lock(mutex);
  if (auto s = stores[key].lock()) return s;
  auto s = std::make_shared<SharedLabelStore>(key.toStdString());
  stores[key] = s;
  return s;
}

LabelEditorModel::LabelEditorModel(QObject* parent)
    : QObject(parent),
      m_elsewhereJob(new BackgroundJob(this)),
      m_loadJob(new BackgroundJob(this)),
      m_saveJob(new BackgroundJob(this)) {}

LabelEditorModel::~LabelEditorModel() = default;

void LabelEditorModel::setDataset(const QString& root, const QStringList& names) {
  m_root = root;
  m_names = names;
  m_store = sharedLabelStore(root);
}

QString LabelEditorModel::session() const {
  return QString::fromStdString(labelEditSession());
}

void LabelEditorModel::setImages(const QVector<EditorImage>& images, int current) {
  m_images = images;
  m_current = -1;
  m_kept.clear();
  m_elsewhere.clear();
  m_boxes.clear();
  m_savedBoxes.clear();
  if (!m_images.isEmpty()) load(std::clamp(current, 0, int(m_images.size()) - 1));
}

const EditorImage* LabelEditorModel::currentImage() const {
  return m_current >= 0 && m_current < m_images.size() ? &m_images[m_current] : nullptr;
}

bool LabelEditorModel::busy() const {
  return m_loadJob->busy() || m_saveJob->busy();
}

bool LabelEditorModel::open(int index) {
  if (index < 0 || index >= m_images.size()) return false;
  if (m_saveJob->busy()) {
    m_pendingOpen = index;
    return true;
  }
  if (m_loaded && dirty()) {
    m_pendingOpen = index;
    save();
    return true;
  }
  load(index);
  return true;
}

int LabelEditorModel::nextIssue() const {
  for (int i = m_current + 1; i < m_images.size(); ++i)
    if (!m_images[i].issues.isEmpty()) return i;
  return -1;
}

void LabelEditorModel::load(int index) {
  m_current = index;
  m_loaded = false;
  m_pendingOpen = -1;
  const EditorImage im = m_images[index];
  const QString labelPath = labelPathOf(im);
  const quint64 seq = ++m_loadSeq;
  m_loadJob->run<Loaded>(
      [im, labelPath] {
        Loaded l;
        l.file.path = labelPath.toStdString();  // where a save goes, even when unreadable
        auto file = data::readLabelFile(labelPath.toStdString());
        if (!file)
          l.error = errorsText(file.errors());
        else
          l.file = std::move(file.value());
        const auto h = data::readImageHeader(im.image.toStdString());
        if (h.ok) l.size = QSize(h.displayWidth(), h.displayHeight());
        l.picture = ThumbnailLoader::decode(im.image, kDisplaySide);
        return l;
      },
      [this, seq](Loaded l) {
        if (seq != m_loadSeq) return;
        m_picture = std::move(l.picture);
        m_imageSize = l.size.isValid() ? l.size : QSize(m_picture.width, m_picture.height);
        m_file = std::move(l.file);
        m_rows = data::parseLabelRows(m_file.text);
        m_boxes.clear();
        for (size_t i = 0; i < m_rows.size(); ++i)
          if (m_rows[i].isBox) m_boxes.push_back(fromBox(m_rows[i].box, int(i)));
        m_savedBoxes = m_boxes;
        // Edits kept in memory (a read-only dataset) come back as they were left, on the file
        // as it was then.
        auto kept = m_kept.constFind(m_current);
        if (kept != m_kept.constEnd()) {
          m_file = kept->file;
          m_rows = kept->rows;
          m_savedBoxes.clear();
          for (size_t i = 0; i < m_rows.size(); ++i)
            if (m_rows[i].isBox) m_savedBoxes.push_back(fromBox(m_rows[i].box, int(i)));
          m_boxes = kept->boxes;
        }
        takePredictions();
        m_loaded = true;
        emit opened();
        emit boxesChanged();
        if (!l.error.isEmpty())
          emit failed(Failure::Read, l.error);
        else if (!m_picture.ok())
          emit failed(Failure::Read, m_picture.error);
      });
}

void LabelEditorModel::takePredictions() {
  const EditorImage& im = m_images[m_current];
  m_predictions = im.predictions;
  m_issues = im.issues;
  if (im.pixels && m_imageSize.width() > 0 && m_imageSize.height() > 0) {
    const double w = m_imageSize.width(), h = m_imageSize.height();
    for (auto* list : {&m_predictions, &m_issues})
      for (auto& b : *list)
        b.rect =
            QRectF(b.rect.left() / w, b.rect.top() / h, b.rect.width() / w, b.rect.height() / h);
  }
}

void LabelEditorModel::setDrafts(const QMap<QString, QVector<EditorBox>>& byImage) {
  for (auto& im : m_images) {
    auto it = byImage.constFind(im.image);
    if (it == byImage.constEnd()) continue;
    im.predictions = it.value();
    im.pixels = true;
    im.drafts = true;
  }
  if (m_loaded && currentImage() && byImage.contains(currentImage()->image)) {
    takePredictions();
    emit predictionsChanged();
  }
}

bool LabelEditorModel::showingDrafts() const {
  const auto* im = currentImage();
  return im && im->drafts;
}

void LabelEditorModel::setBoxes(const QVector<EditorBox>& boxes) {
  if (boxes == m_boxes) return;
  m_boxes = boxes;
  m_elsewhere.clear();  // edited since it was saved elsewhere
  emit boxesChanged();
}

QString LabelEditorModel::labelText() const {
  return labelTextWith(m_rows, m_boxes);
}

void LabelEditorModel::save() {
  if (!m_loaded || !m_store || m_saveJob->busy()) return;
  if (m_readOnly && dirty()) {
    // Not tried again on every image: the edits join the kept ones and the user moves on.
    keepCurrent();
    emit failed(Failure::Write, m_readOnlyWhy);
    if (m_pendingOpen >= 0) load(m_pendingOpen);
    return;
  }
  if (!dirty()) {
    emit saved({});
    if (m_pendingOpen >= 0) load(m_pendingOpen);
    return;
  }
  struct Outcome {
    bool ok = false;
    QString edit, error;
    Failure failure = Failure::None;
    data::LabelFileState file;
  };
  const std::string text = labelText().toStdString();
  const QVector<EditorBox> written = m_boxes;
  auto store = m_store;
  data::LabelFileState base = m_file;
  m_saveJob->run<Outcome>(
      [store, base, text]() mutable {
        Outcome o;
        std::lock_guard<std::mutex> lock(store->mutex);
        auto e = store->store.write(base, text);
        if (!e) {
          o.error = errorsText(e.errors());
          // Told apart by the store's words (English), not by what the UI language shows.
          o.failure = e.errorText().find("changed on disk") != std::string::npos ? Failure::Conflict
                                                                                 : Failure::Write;
          return o;
        }
        o.ok = true;
        o.edit = QString::fromStdString(e->id);
        o.file = std::move(base);
        return o;
      },
      [this, written](Outcome o) {
        if (!o.ok) {
          if (o.failure == Failure::Write) {
            // A dataset that cannot be written: the edits are kept in memory, this image's and
            // those of the images that follow, until saved elsewhere or discarded.
            m_readOnly = true;
            m_readOnlyWhy = o.error;
            keepCurrent();
            emit failed(o.failure, o.error);
            if (m_pendingOpen >= 0) load(m_pendingOpen);
            return;
          }
          m_pendingOpen = -1;  // stay on the image: its edits are only in memory
          emit failed(o.failure, o.error);
          return;
        }
        // The file as written becomes the base: its rows, and the boxes they hold now.
        m_file = std::move(o.file);
        m_rows = data::parseLabelRows(m_file.text);
        QVector<EditorBox> boxes;
        for (size_t i = 0; i < m_rows.size(); ++i)
          if (m_rows[i].isBox) boxes.push_back(fromBox(m_rows[i].box, int(i)));
        const bool editedMeanwhile = m_boxes != written;
        m_savedBoxes = boxes;
        if (!editedMeanwhile) m_boxes = boxes;
        emit saved(o.edit);
        emit boxesChanged();
        if (m_pendingOpen >= 0) load(m_pendingOpen);
      });
}

void LabelEditorModel::reload() {
  if (m_current >= 0) load(m_current);
}

void LabelEditorModel::keepCurrent() {
  if (!m_loaded || m_current < 0) return;
  if (dirty())
    m_kept[m_current] = Kept{m_rows, m_file, m_boxes};
  else
    m_kept.remove(m_current);
}

int LabelEditorModel::keptCount() const {
  const bool current = m_loaded && dirty() && !m_kept.contains(m_current);
  return int(m_kept.size()) + (current ? 1 : 0);
}

namespace {
// Where a label file goes under another folder: its path relative to the dataset root, or its
// name when it lies outside the root.
QString relativeLabelPath(const QString& root, const std::string& file) {
  const QString abs = QString::fromStdString(file);
  const QString rel = QDir(root).relativeFilePath(abs);
  return rel.startsWith(QLatin1String("..")) || QDir::isAbsolutePath(rel)
             ? QStringLiteral("labels/") + QFileInfo(abs).fileName()
             : rel;
}
}  // namespace

QStringList LabelEditorModel::keptFiles() const {
  QStringList files;
  for (auto it = m_kept.cbegin(); it != m_kept.cend(); ++it)
    if (it.key() != m_current || !m_loaded) files << relativeLabelPath(m_root, it->file.path);
  if (m_loaded && m_current >= 0 && dirty()) files << relativeLabelPath(m_root, m_file.path);
  return files;
}

void LabelEditorModel::discardKept() {
  m_kept.clear();
  m_elsewhere.clear();
  reload();
}

void LabelEditorModel::saveElsewhere(const QString& folder) {
  keepCurrent();
  struct File {
    QString rel;
    std::string text;
  };
  std::vector<File> files;
  for (const auto& k : m_kept)
    files.push_back(
        {relativeLabelPath(m_root, k.file.path), labelTextWith(k.rows, k.boxes).toStdString()});
  const QString root = QDir::cleanPath(QFileInfo(m_root).absoluteFilePath());
  const QString dest = QDir::cleanPath(QFileInfo(folder).absoluteFilePath());
  struct Outcome {
    QStringList written;
    QString error;
  };
  m_elsewhereJob->run<Outcome>(
      [files, root, dest] {
        Outcome o;
        // Into the dataset itself would bypass its edit log (and it cannot be written anyway).
        if (dest == root || dest.startsWith(root + QLatin1Char('/'))) {
          o.error = tr("%1 is inside the dataset; choose a folder outside it").arg(dest);
          return o;
        }
        for (const auto& f : files) {
          const QString target = QDir(dest).filePath(f.rel);
          if (auto st = writeFileAtomic(target.toStdString(), f.text); !st) {
            o.error = tr("cannot write to %1: %2").arg(dest, errorsText(st.errors()));
            return o;
          }
          o.written << target;
        }
        return o;
      },
      [this, dest](Outcome o) {
        if (!o.error.isEmpty()) {
          emit failed(Failure::Elsewhere, o.error);
          return;
        }
        m_elsewhere = dest;
        emit savedElsewhere(dest, o.written);
      },
      [this](const QString& message) { emit failed(Failure::Elsewhere, message); });
}

}  // namespace stave::studio
