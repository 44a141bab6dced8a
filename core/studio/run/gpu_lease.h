#pragma once
// GPU leases: one small file per GPU ("gpu0.lease", ...; "cpu.lease" on a machine without GPUs)
// in a per-user runtime folder, naming the run that uses it. Every Stave studio on this machine,
// whatever its project, takes leases before it starts a queued run, so two queues never start
// runs on the same GPU. A lease whose run is no longer alive (RunController::processAlive) is
// stale and free again: a killed run or a crashed studio never blocks a GPU for good.

#include <QString>
#include <QStringList>

namespace stave::studio {

class GpuLeases {
 public:
  /// Leases in `folder` ("" = defaultFolder()).
  explicit GpuLeases(const QString& folder = {});
  /// $STAVE_RUNTIME_DIR/gpus when set, else the user's runtime folder + "/stave/gpus".
  static QString defaultFolder();
  QString folder() const { return m_folder; }
  /// How long a lease counts as held before its run has written launcher.json, if the studio
  /// that took it is still alive (a run takes a moment to start).
  static constexpr int kStartGraceSeconds = 120;

  /// Takes every resource ("gpu0", "cpu", ...) for `runDir`, all or none (under a lock, so two
  /// studios cannot both take one). False with the busy resource and its holder in `why`.
  bool acquire(const QStringList& resources, const QString& runDir, QString* why = nullptr);
  /// Gives back the resources that `runDir` holds.
  void release(const QStringList& resources, const QString& runDir);
  /// The run folder holding `resource`, "" when free (stale leases are free).
  QString holder(const QString& resource) const;

 private:
  QString path(const QString& resource) const;
  QString m_folder;
};

}  // namespace stave::studio
