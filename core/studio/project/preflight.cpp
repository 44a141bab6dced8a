#include "core/studio/project/preflight.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStorageInfo>

#include "core/data/dataset.h"
#include "core/studio/engine_text.h"

namespace stave::studio {
namespace {
QString qs(const std::string& s) {
  return QString::fromStdString(s);
}
// A checkpoint of the largest model with optimiser state is a few hundred MB; last.pt and
// best.pt are rewritten atomically (a second copy while writing).
constexpr qint64 kLowDiskBytes = qint64(1) << 30;
}  // namespace

QList<PreflightItem> preflight(const config::Project& project, const QString& configName,
                               const QStringList& overrides) {
  QList<PreflightItem> out;
  std::vector<std::string> ov;
  for (const QString& o : overrides) ov.push_back(o.toStdString());
  auto cfg = config::resolveProjectConfig(project, configName.toStdString(), ov);
  if (!cfg) {
    for (const auto& e : cfg.errors()) out.push_back({true, errorText(e)});
    return out;
  }
  auto spec = data::loadDataYaml(project.datasetPath());
  if (!spec) {
    for (const auto& e : spec.errors()) out.push_back({true, errorText(e)});
    return out;
  }
  if (spec->nc() == 0)
    out.push_back({true, QCoreApplication::translate("stave::studio::Preflight", "%1: names lists no classes").arg(qs(project.datasetPath()))});
  const QStorageInfo disk(QFileInfo(qs(project.path)).absolutePath());
  if (disk.isValid() && disk.bytesAvailable() >= 0 && disk.bytesAvailable() < kLowDiskBytes)
    out.push_back({false, QCoreApplication::translate("stave::studio::Preflight",
                                              "only %1 MiB free on %2, where the run writes its "
                                              "checkpoints and events; a full disk stops the run")
                              .arg(disk.bytesAvailable() >> 20)
                              .arg(disk.rootPath())});
  return out;
}

QStringList preflightBlocking(const QList<PreflightItem>& items) {
  QStringList out;
  for (const auto& i : items)
    if (i.blocking) out << i.text;
  return out;
}

QStringList preflightWarnings(const QList<PreflightItem>& items) {
  QStringList out;
  for (const auto& i : items)
    if (!i.blocking) out << i.text;
  return out;
}

}  // namespace stave::studio
