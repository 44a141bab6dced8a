#pragma once
// WeightsFetch: the checkpoints of a run on a cluster behind SSH, copied into its local mirror
// only when asked (Fetch weights, Export Model, Predict): the mirror never copies weights/ by
// itself. core/cluster's fetch does the copy (over the run's shared connection, into a
// temporary file renamed when whole) on a thread of its own; its progress (bytes of the file
// so far against the size the cluster gave) is read by a timer here, and a failure names the
// remote path and the destination. QtCore only.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>

namespace stave::studio {

class BackgroundJob;

class WeightsFetch : public QObject {
  Q_OBJECT
 public:
  /// What the fetch's thread shares with this object (weights_fetch.cpp).
  struct Shared;

  explicit WeightsFetch(QObject* parent = nullptr);
  ~WeightsFetch() override;

  /// Whether `runDir` has a cluster record (a stat: the record is read on the fetch's thread,
  /// which refuses a run that is not behind SSH).
  static bool mayBeRemote(const QString& runDir);
  /// The run folder of `checkpoint` when it is a run's weights/best.pt or last.pt that may be
  /// fetched (its run has a cluster record) and is not here yet; "" otherwise. Stats only.
  static QString remoteRunOf(const QString& checkpoint);

  /// Fetches `files` (relative to the run folder, e.g. "weights/best.pt") of `runDir`. With
  /// `anyOf`, a file the cluster does not have is left out (an error only when none is there).
  /// False (and nothing started) while another fetch runs.
  bool start(const QString& runDir, const QStringList& files, bool anyOf = false);
  /// Fetches best.pt and last.pt, whichever the cluster has (Fetch weights).
  bool startWeights(const QString& runDir) {
    return start(runDir, {QStringLiteral("weights/best.pt"), QStringLiteral("weights/last.pt")},
                 true);
  }
  /// Stops the fetch: the copy ends, its temporary file is removed, finished() says stopped.
  void cancel();
  bool busy() const;
  QString runDir() const { return m_runDir; }

  /// The file being copied (relative), its bytes so far and its size (-1 while not known).
  QString currentFile() const;
  qint64 bytesDone() const;
  qint64 bytesTotal() const;
  /// "Fetching weights/best.pt from alice@login: 45% (12.0 of 26.5 MiB)…" while it runs.
  QString progressText() const;

 signals:
  /// Every quarter second while a file is copied.
  void progress(const QString& file, qint64 done, qint64 total);
  /// Done: `fetched` are the local paths written; `error` says what went wrong ("" = none),
  /// naming the remote path and the destination.
  void finished(const QStringList& fetched, const QString& error);

 private:
  std::shared_ptr<Shared> m_shared;
  BackgroundJob* m_job;
  QTimer m_tick;
  QString m_runDir;
};

}  // namespace stave::studio
