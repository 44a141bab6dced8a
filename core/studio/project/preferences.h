#pragma once
// The studio's preferences: every one declared once here (its QSettings key and default), read
// and written through QSettings. Run state belongs in the project file, not here.

#include <QByteArray>
#include <QMargins>
#include <QRect>
#include <QSize>
#include <QString>
#include <QStringList>

#include "core/config/run_config.h"
#include "core/studio/project/cluster_profile.h"

namespace stave::studio {

/// User preferences of the studio (QSettings, per user).
struct Preferences {
  /// Interface language: "" = the system's, "en", "zh_CN". Read at start-up by the studio.
  QString language;
  /// Seconds between GPU/system samples of runs started from the studio (`sample_period_s`).
  double samplePeriodS = 0.5;
  /// Prometheus port of runs started from the studio (`metrics_port`); 0 = no endpoint.
  int metricsPort = 0;
  /// GPUs for runs started from the studio (`devices`): "" = all visible, "cpu", or "0,1".
  QString devices;
  /// The clusters runs can be sent to ("Run on cluster"), in the order the Run page lists them.
  QList<ClusterProfile> clusters;
  /// The profile named `name`, or nullptr.
  const ClusterProfile* cluster(const QString& name) const;

  /// The stored preferences (defaults where nothing is stored or a stored value is invalid).
  static Preferences load();
  /// Stores them; validate() first.
  void save() const;
  /// What is wrong with the values (schema ranges of the run keys they map to), one per line.
  QStringList validate() const;
  /// The key=value overrides for a run of `config`: a preference applies to a run key that the
  /// config leaves at its schema default (a value set in the project wins), and only when the
  /// preference differs from that default.
  QStringList runOverrides(const config::RunConfig& config) const;
  /// The languages offered: code and native name (code "" = the system's, no name).
  static QList<QPair<QString, QString>> languages();
};

/// Recently opened project files, newest first (at most `kMaxRecent`).
class RecentProjects {
 public:
  static constexpr int kMaxRecent = 10;
  static QStringList list();
  /// Moves `path` (made absolute) to the front.
  static void add(const QString& path);
  static void remove(const QString& path);
  static void clear();
};

/// Where the Run page sent `projectFile`'s last run: "" = this machine (also for a project that
/// never ran), else a cluster profile's name. Kept per project, with the settings.
QString lastRunTarget(const QString& projectFile);
void setLastRunTarget(const QString& projectFile, const QString& target);

/// Window geometry and state of the main window, kept between sessions.
struct WindowState {
  QByteArray geometry;
  QByteArray state;
  QString openProject;  ///< the project open when the window closed ("" = none)
  static WindowState load();
  void save() const;
};

/// Where a window of client rect `window` (its frame adds `frame` around it) goes so that all
/// of it, frame included, is inside `available` (a screen's available geometry): no larger than
/// the room (and no smaller than `minimum` where the room allows), moved as little as needed.
QRect fitWindowOnScreen(const QRect& window, const QMargins& frame, const QRect& available,
                        const QSize& minimum = {});

}  // namespace stave::studio
