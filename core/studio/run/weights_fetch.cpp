#include "core/studio/run/weights_fetch.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/cluster/mirror.h"
#include "core/cluster/remote_job.h"
#include "core/cluster/ssh.h"
#include "core/studio/background_job.h"
#include "core/studio/engine_text.h"
#include "core/studio/project/preferences.h"
#include "core/studio/run/slurm_job.h"

namespace stave::studio {

/// What the fetch's thread tells the GUI thread while it copies.
struct WeightsFetch::Shared {
  std::mutex mutex;
  QString file, destination;  ///< under the mutex
  std::atomic<qint64> done{0}, total{-1};
};

namespace {

struct Outcome {
  QStringList fetched;
  QString error;
};

/// The copy of one file, its temporary file's size read every 200 ms while it grows.
TextParts copyWithProgress(cluster::Mirror& mirror, const std::string& rel, const std::string& part,
                           std::atomic<qint64>& done, const std::atomic<bool>* stop) {
  std::atomic<bool> ended{false};
  TextParts why;
  std::thread copy([&] {
    why = mirror.fetchFileText(rel, stop);
    ended = true;
  });
  while (!ended) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::error_code ec;
    const auto size = std::filesystem::file_size(part, ec);
    if (!ec) done = static_cast<qint64>(size);
  }
  copy.join();
  return why;
}

Outcome fetchFiles(const QString& runDir, const QStringList& files, bool anyOf,
                   WeightsFetch::Shared* shared, const std::atomic<bool>* stop);

}  // namespace

WeightsFetch::WeightsFetch(QObject* parent)
    : QObject(parent), m_shared(std::make_shared<Shared>()), m_job(new BackgroundJob(this)) {
  m_tick.setInterval(250);
  connect(&m_tick, &QTimer::timeout, this,
          [this] { emit progress(currentFile(), bytesDone(), bytesTotal()); });
}

WeightsFetch::~WeightsFetch() = default;

bool WeightsFetch::mayBeRemote(const QString& runDir) {
  return !runDir.isEmpty() && QFileInfo::exists(QDir(runDir).filePath(clusterJobFileName()));
}

QString WeightsFetch::remoteRunOf(const QString& checkpoint) {
  const QFileInfo f(checkpoint);
  if (f.fileName() != QLatin1String("best.pt") && f.fileName() != QLatin1String("last.pt"))
    return {};
  if (f.dir().dirName() != QLatin1String("weights") || f.exists()) return {};
  const QString run = QFileInfo(f.absolutePath()).absolutePath();
  return mayBeRemote(run) ? run : QString();
}

bool WeightsFetch::busy() const {
  return m_job->busy();
}

QString WeightsFetch::currentFile() const {
  std::lock_guard<std::mutex> lock(m_shared->mutex);
  return m_shared->file;
}

qint64 WeightsFetch::bytesDone() const {
  return m_shared->done;
}
qint64 WeightsFetch::bytesTotal() const {
  return m_shared->total;
}

QString WeightsFetch::progressText() const {
  QString file, destination;
  {
    std::lock_guard<std::mutex> lock(m_shared->mutex);
    file = m_shared->file;
    destination = m_shared->destination;
  }
  if (file.isEmpty()) return tr("Asking the cluster for this run's checkpoints…");
  const qint64 done = bytesDone(), total = bytesTotal();
  const QLocale locale;
  if (total <= 0) return tr("Fetching %1 from %2…").arg(file, destination);
  return tr("Fetching %1 from %2: %3% (%4 of %5)…")
      .arg(file, destination)
      .arg(static_cast<int>(100.0 * done / total))
      .arg(locale.formattedDataSize(done), locale.formattedDataSize(total));
}

bool WeightsFetch::start(const QString& runDir, const QStringList& files, bool anyOf) {
  if (busy()) return false;
  m_runDir = runDir;
  {
    std::lock_guard<std::mutex> lock(m_shared->mutex);
    m_shared->file.clear();
    m_shared->destination.clear();
  }
  m_shared->done = 0;
  m_shared->total = -1;
  const std::shared_ptr<Shared> shared = m_shared;
  m_job->run<Outcome>(
      [runDir, files, anyOf, shared, stop = m_job->stopFlag()] {
        return fetchFiles(runDir, files, anyOf, shared.get(), stop);
      },
      [this](Outcome o) {
        m_tick.stop();
        emit finished(o.fetched, o.error);
      },
      [this](QString error) {
        m_tick.stop();
        emit finished({}, error);
      });
  m_tick.start();
  return true;
}

void WeightsFetch::cancel() {
  m_job->stop();
}

namespace {

Outcome fetchFiles(const QString& runDir, const QStringList& files, bool anyOf,
                   WeightsFetch::Shared* shared, const std::atomic<bool>* stop) {
  Outcome o;
  const auto record = cluster::readRunRecord(runDir.toStdString());
  if (!record) {
    o.error = errorsText(record.errors());
    return o;
  }
  if (!record->overSsh) {
    o.error =
        WeightsFetch::tr(
            "%1 is not a run on a cluster behind SSH: its checkpoints are written into its own "
            "folder")
            .arg(QDir::toNativeSeparators(runDir));
    return o;
  }
  // The profile as this studio has it now (never a destination from the run's record).
  const Preferences prefs = Preferences::load();
  const QString profileName = QString::fromStdString(record->profile);
  const ClusterProfile* p = prefs.cluster(profileName);
  if (!p || !p->remote()) {
    o.error = WeightsFetch::tr(
                  "The cluster profile '%1' of this run is not in Settings ▸ Clusters with a "
                  "destination: its checkpoints cannot be fetched")
                  .arg(profileName);
    return o;
  }
  const cluster::Profile profile = p->toCore();
  const cluster::SshEndpoint endpoint = profile.endpoint();
  const QString destination = QString::fromStdString(profile.destination);
  {
    std::lock_guard<std::mutex> lock(shared->mutex);
    shared->destination = destination;
  }
  cluster::Mirror mirror(cluster::sshRunner(endpoint), record->remoteDir, runDir.toStdString());
  QStringList missing;
  for (const QString& file : files) {
    const std::string remote = record->remoteDir + "/" + file.toStdString();
    const QString where = QStringLiteral("%1:%2").arg(destination, QString::fromStdString(remote));
    cluster::ProcessOptions options;
    options.stop = stop;
    options.timeoutMs = 60000;
    const cluster::RemoteResult size =
        cluster::runRemote(endpoint, {"stat", "-c", "%s", "--", remote}, options);
    if (stop && stop->load()) {
      o.error = WeightsFetch::tr("Stopped: %1 was not fetched").arg(where);
      return o;
    }
    if (!size.reached()) {
      o.error =
          WeightsFetch::tr("Cannot fetch %1: %2").arg(where, engineText(size.text, size.message));
      return o;
    }
    if (!size.process.ok()) {
      if (anyOf) {
        missing << where;
        continue;
      }
      o.error = WeightsFetch::tr("Cannot fetch %1: it is not on the cluster (%2)")
                    .arg(where, QString::fromStdString(size.process.err).trimmed());
      return o;
    }
    {
      std::lock_guard<std::mutex> lock(shared->mutex);
      shared->file = file;
    }
    shared->done = 0;
    shared->total = QString::fromStdString(size.process.out).trimmed().toLongLong();
    const std::string local = QDir(runDir).filePath(file).toStdString();
    const TextParts why =
        copyWithProgress(mirror, file.toStdString(), local + ".part", shared->done, stop);
    if (stop && stop->load()) {
      std::error_code ec;
      std::filesystem::remove(local + ".part", ec);
      o.error = WeightsFetch::tr("Stopped: %1 was not fetched").arg(where);
      return o;
    }
    if (!why.empty()) {
      o.error = WeightsFetch::tr("Cannot fetch %1: %2").arg(where, engineText(why, english(why)));
      return o;
    }
    shared->done = shared->total.load();
    o.fetched << QString::fromStdString(local);
  }
  if (o.fetched.isEmpty() && !missing.isEmpty())
    o.error = WeightsFetch::tr("The cluster has no checkpoint of this run yet (none of %1)")
                  .arg(missing.join(QStringLiteral(", ")));
  return o;
}

}  // namespace

}  // namespace stave::studio
