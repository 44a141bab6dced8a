#include "core/studio/run/draft_labels.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <filesystem>

#include "core/data/dataset.h"
#include "core/studio/background_job.h"

namespace stave::studio {

QVector<ImageAndLabel> imagesWithoutLabelFile(const QVector<ImageAndLabel>& candidates,
                                              const std::atomic<bool>* stop) {
  QVector<ImageAndLabel> out;
  for (const auto& c : candidates) {
    if (stop && stop->load()) break;
    const QString label = c.label.isEmpty()
                              ? QString::fromStdString(data::labelPathFor(c.image.toStdString()))
                              : c.label;
    // An empty label file is an image labelled as background: only a missing one is new.
    if (!QFileInfo::exists(label)) out.push_back({c.image, label});
  }
  return out;
}

QString defaultDraftCheckpoint(const QStringList& runDirsNewestFirst) {
  for (const QString& dir : runDirsNewestFirst)
    for (const char* w : {"weights/best.pt", "weights/last.pt"}) {
      const QString path = QDir(dir).filePath(QLatin1String(w));
      if (QFileInfo(path).isFile()) return path;
    }
  return {};
}

namespace {
// What the preparing thread hands back: the folder of links and which image each link is.
struct Prepared {
  std::shared_ptr<QTemporaryDir> dir;
  QMap<QString, QString> linkToImage;
  QMap<QString, QString> canonicalToImage;  ///< the image's resolved path → as given
  QString source;                           ///< the folder of links, resolved
  QString error;
};
}  // namespace

DraftPredictor::DraftPredictor(QObject* parent)
    : QObject(parent), m_prepare(new BackgroundJob(this)), m_job(new PredictJob(this)) {
  connect(m_job, &PredictJob::finished, this, &DraftPredictor::predicted);
}

DraftPredictor::~DraftPredictor() = default;

void DraftPredictor::setExecutable(const QString& exe) {
  m_job->setExecutable(exe);
}

bool DraftPredictor::start(const QString& weights, const QStringList& images, double conf,
                           QString* error) {
  if (isRunning()) {
    if (error) *error = tr("a prediction is running");
    return false;
  }
  if (images.isEmpty()) {
    if (error) *error = tr("no images to predict");
    return false;
  }
  m_weights = weights;
  m_conf = conf;
  m_detections.clear();
  m_names.clear();
  m_error.clear();
  m_outcome = Outcome::Running;
  // A folder holding links to just these images: predict reads a folder, and the dataset's own
  // folders hold every other image too.
  m_prepare->run<Prepared>(
      [images] {
        Prepared p;
        auto dir = std::make_shared<QTemporaryDir>(QDir::temp().filePath("stave-drafts-XXXXXX"));
        if (!dir->isValid()) {
          p.error = tr("cannot make a temporary folder: %1").arg(dir->errorString());
          return p;
        }
        const QDir links(dir->filePath(QStringLiteral("images")));
        if (!links.mkpath(QStringLiteral("."))) {
          p.error = tr("cannot make %1").arg(links.path());
          return p;
        }
        for (int i = 0; i < images.size(); ++i) {
          // Numbered: two images of the same name from different folders stay apart.
          const QString link =
              QDir::cleanPath(links.filePath(QStringLiteral("%1_%2")
                                                 .arg(i, 6, 10, QLatin1Char('0'))
                                                 .arg(QFileInfo(images[i]).fileName())));
          // A hard link (a copy across file systems), never a symbolic one: predict writes its
          // annotated copy under the name it reads, and a symbolic link's name can lead back
          // into the dataset — the user's image would be drawn over.
          std::error_code ec;
          std::filesystem::create_hard_link(images[i].toStdString(), link.toStdString(), ec);
          if (ec && !QFile::copy(images[i], link)) continue;  // predict names it as missing
          p.linkToImage.insert(QFileInfo(link).fileName(), images[i]);
          // Should predict name an image by its resolved path, that leads back to it too.
          const QString canonical = QFileInfo(images[i]).canonicalFilePath();
          if (!canonical.isEmpty()) p.canonicalToImage.insert(canonical, images[i]);
        }
        p.source = QFileInfo(links.path()).canonicalFilePath();
        QMap<QString, QString> byPath;  // the links by their path in the resolved folder
        for (auto it = p.linkToImage.cbegin(); it != p.linkToImage.cend(); ++it)
          byPath.insert(QDir::cleanPath(QDir(p.source).filePath(it.key())), it.value());
        p.linkToImage = std::move(byPath);
        p.dir = std::move(dir);
        return p;
      },
      [this](Prepared p) {
        if (!p.error.isEmpty()) {
          m_outcome = Outcome::Failed;
          m_error = p.error;
          emit finished();
          return;
        }
        m_dir = std::move(p.dir);  // removed once the predictions are read
        m_linkToImage = std::move(p.linkToImage);
        m_canonicalToImage = std::move(p.canonicalToImage);
        PredictOptions o;
        o.conf = m_conf;
        QString why;
        if (!m_job->start(m_weights, p.source, m_dir->filePath(QStringLiteral("out")), o, &why)) {
          m_outcome =
              m_job->outcome() == Outcome::FailedToStart ? Outcome::FailedToStart : Outcome::Failed;
          m_error = why;
          emit finished();
        }
      },
      [this](const QString& message) {
        m_outcome = Outcome::Failed;
        m_error = message;
        emit finished();
      });
  return true;
}

void DraftPredictor::cancel() {
  if (m_prepare->busy()) {
    m_prepare->stop();
    m_outcome = Outcome::Stopped;
    emit finished();
    return;
  }
  m_job->cancel();
}

void DraftPredictor::predicted() {
  m_outcome = m_job->outcome();
  m_error = m_job->errorText();
  m_names = m_job->names();
  if (m_outcome == Outcome::Completed)
    for (auto it = m_job->detections().cbegin(); it != m_job->detections().cend(); ++it) {
      QString image = m_linkToImage.value(it.key());
      if (image.isEmpty()) image = m_canonicalToImage.value(it.key());
      if (image.isEmpty()) continue;
      QVector<Detection> kept;
      for (const auto& d : it.value())
        if (d.conf >= m_conf) kept.push_back(d);
      if (!kept.isEmpty()) m_detections.insert(image, kept);
    }
  // The links and predict's annotated copies are of no further use; removing them is file work.
  if (auto dir = std::move(m_dir))
    m_prepare->run<int>(
        [dir]() mutable {
          dir.reset();
          return 0;
        },
        [](int) {});
  emit finished();
}

}  // namespace stave::studio
