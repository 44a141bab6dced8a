#include "core/studio/project/preferences.h"
#include "core/studio/engine_text.h"

#include <QFileInfo>
#include <QSettings>
#include <QCryptographicHash>

#include <algorithm>

namespace stave::studio {
namespace {
// Every QSettings key of the studio, once.
constexpr const char* kLanguage = "ui/language";
constexpr const char* kSamplePeriod = "runs/sample_period_s";
constexpr const char* kMetricsPort = "runs/metrics_port";
constexpr const char* kDevices = "runs/devices";
constexpr const char* kRecent = "projects/recent";
constexpr const char* kGeometry = "window/geometry";
constexpr const char* kWindowState = "window/state";
constexpr const char* kOpenProject = "window/openProject";
constexpr const char* kRunTarget = "window/runTarget";
// The cluster profiles as earlier studios kept them: an array of groups, one key per field
// (clusterProfileFields()). Now read only when clusters.json is not there yet.
constexpr const char* kClusters = "clusters";

QString key(const char* k) {
  return QString::fromLatin1(k);
}

// The run key a preference maps to, with its value as an override; errors from the schema.
QStringList schemaErrors(const QStringList& overrides) {
  auto cfg = config::RunConfig::defaults();
  std::vector<std::string> kv;
  for (const auto& o : overrides) kv.push_back(o.toStdString());
  QStringList out;
  auto st = config::applyOverrides(cfg, kv);
  if (!st)
    for (const auto& e : st.errors()) out << QString::fromStdString(e.key + ": ") + engineText(e.text, e.message);
  for (const auto& e : config::validate(cfg))
    out << QString::fromStdString(e.key + ": ") + engineText(e.text, e.message);
  return out;
}

/// The profiles' one file, clusters.json beside the settings (for the studio's own settings:
/// ~/.config/Stave/clusters.json, where `stave-train cluster` reads them too).
QString clustersFile(const QSettings& s) {
  return QFileInfo(s.fileName()).absolutePath() + QStringLiteral("/clusters.json");
}

QList<ClusterProfile> loadClusters(QSettings& s) {
  QList<ClusterProfile> out;
  if (const QString file = clustersFile(s); QFileInfo::exists(file)) {
    // A hand-edited profile with bad values is left out (the Run page cannot send to it).
    for (const auto& p : cluster::readGoodProfiles(file.toStdString(), nullptr)) out << ClusterProfile::fromCore(p);
    return out;
  }
  // Profiles kept in the settings by an earlier studio: read there until they are saved.
  const int n = s.beginReadArray(key(kClusters));
  for (int i = 0; i < n; ++i) {
    s.setArrayIndex(i);
    const ClusterProfile c = clusterProfileFromSettings(s);
    // A hand-edited profile with bad values is left out (the Run page cannot send to it).
    if (c.problems().isEmpty()) out << c;
  }
  s.endArray();
  return out;
}

void saveClusters(QSettings& s, const QList<ClusterProfile>& clusters) {
  std::vector<cluster::Profile> core;
  for (const auto& c : clusters) core.push_back(c.toCore());
  // Written atomically; the settings' old copy goes once the file holds them.
  if (cluster::saveProfiles(clustersFile(s).toStdString(), core)) s.remove(key(kClusters));
}

QStringList allOverrides(const Preferences& p) {
  return {QStringLiteral("sample_period_s=%1").arg(p.samplePeriodS),
          QStringLiteral("metrics_port=%1").arg(p.metricsPort),
          QStringLiteral("devices=%1").arg(p.devices)};
}
}  // namespace

Preferences Preferences::load() {
  QSettings s;
  Preferences p;
  const Preferences defaults;
  p.language = s.value(key(kLanguage), defaults.language).toString();
  bool ok = false;
  const double period = s.value(key(kSamplePeriod), defaults.samplePeriodS).toDouble(&ok);
  if (ok) p.samplePeriodS = period;
  const int port = s.value(key(kMetricsPort), defaults.metricsPort).toInt(&ok);
  if (ok) p.metricsPort = port;
  p.devices = s.value(key(kDevices), defaults.devices).toString();
  p.clusters = loadClusters(s);
  // A hand-edited settings file with bad values: fall back to the defaults for those.
  for (const auto& problem : p.validate()) {
    if (problem.startsWith(QLatin1String("sample_period_s")))
      p.samplePeriodS = defaults.samplePeriodS;
    if (problem.startsWith(QLatin1String("metrics_port"))) p.metricsPort = defaults.metricsPort;
    if (problem.startsWith(QLatin1String("devices"))) p.devices = defaults.devices;
  }
  bool known = false;
  for (const auto& [code, name] : languages()) known = known || code == p.language;
  if (!known) p.language.clear();
  return p;
}

void Preferences::save() const {
  QSettings s;
  s.setValue(key(kLanguage), language);
  s.setValue(key(kSamplePeriod), samplePeriodS);
  s.setValue(key(kMetricsPort), metricsPort);
  s.setValue(key(kDevices), devices);
  saveClusters(s, clusters);
}

QStringList Preferences::validate() const {
  return schemaErrors(allOverrides(*this)) + clusterProfileProblems(clusters);
}

const ClusterProfile* Preferences::cluster(const QString& name) const {
  for (const auto& c : clusters)
    if (c.name == name) return &c;
  return nullptr;
}

QStringList Preferences::runOverrides(const config::RunConfig& config) const {
  QStringList out;
  const auto defaults = config::RunConfig::defaults();
  auto wanted = config::RunConfig::defaults();
  std::vector<std::string> kv;
  for (const auto& o : allOverrides(*this)) kv.push_back(o.toStdString());
  if (!config::applyOverrides(wanted, kv)) return out;  // invalid preferences change nothing
  for (const auto& o : allOverrides(*this)) {
    const std::string k = o.section(QLatin1Char('='), 0, 0).toStdString();
    if (config.isDefault(k) && !wanted.isDefault(k)) out << o;
  }
  return out;
}

QList<QPair<QString, QString>> Preferences::languages() {
  return {{QString(), QString()},  // the system's language: the dialog names it
          {QStringLiteral("en"), QStringLiteral("English")},
          {QStringLiteral("zh_CN"), QStringLiteral("简体中文")}};
}

QStringList RecentProjects::list() {
  return QSettings().value(key(kRecent)).toStringList();
}

void RecentProjects::add(const QString& path) {
  const QString abs = QFileInfo(path).absoluteFilePath();
  QStringList l = list();
  l.removeAll(abs);
  l.prepend(abs);
  while (l.size() > kMaxRecent) l.removeLast();
  QSettings().setValue(key(kRecent), l);
}

void RecentProjects::remove(const QString& path) {
  QStringList l = list();
  l.removeAll(path);
  QSettings().setValue(key(kRecent), l);
}

void RecentProjects::clear() {
  QSettings().remove(key(kRecent));
}

namespace {
/// One settings key per project: its absolute path, hashed (a path's '/' would make groups).
QString runTargetKey(const QString& projectFile) {
  const QByteArray path = QFileInfo(projectFile).absoluteFilePath().toUtf8();
  return key(kRunTarget) + QLatin1Char('/') +
         QString::fromLatin1(QCryptographicHash::hash(path, QCryptographicHash::Sha1).toHex());
}
}  // namespace

QString lastRunTarget(const QString& projectFile) {
  if (projectFile.isEmpty()) return {};
  return QSettings().value(runTargetKey(projectFile)).toString();
}

void setLastRunTarget(const QString& projectFile, const QString& target) {
  if (projectFile.isEmpty()) return;
  QSettings s;
  if (target.isEmpty())
    s.remove(runTargetKey(projectFile));  // this machine: the default, nothing to keep
  else
    s.setValue(runTargetKey(projectFile), target);
}

WindowState WindowState::load() {
  QSettings s;
  return {s.value(key(kGeometry)).toByteArray(), s.value(key(kWindowState)).toByteArray(),
          s.value(key(kOpenProject)).toString()};
}

void WindowState::save() const {
  QSettings s;
  s.setValue(key(kGeometry), geometry);
  s.setValue(key(kWindowState), state);
  s.setValue(key(kOpenProject), openProject);
}

QRect fitWindowOnScreen(const QRect& window, const QMargins& frame, const QRect& available,
                        const QSize& minimum) {
  const QRect room = available.marginsRemoved(frame);
  if (room.isEmpty() || room.contains(window)) return window;
  QRect g = window;
  g.setSize(g.size().boundedTo(room.size()).expandedTo(minimum.boundedTo(room.size())));
  g.moveLeft(std::clamp(g.left(), room.left(), room.right() - g.width() + 1));
  g.moveTop(std::clamp(g.top(), room.top(), room.bottom() - g.height() + 1));
  return g;
}

}  // namespace stave::studio
