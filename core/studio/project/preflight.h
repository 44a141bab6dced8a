#pragma once
// Pre-flight: what the studio checks before it starts a run, so that a run known to fail never
// leaves a run folder behind (a missing dataset, a config that does not validate, a data.yaml
// whose splits are missing) and a run that may fail late is started only when the user says so
// (little free disk for checkpoints).

#include <QList>
#include <QString>
#include <QStringList>

#include "core/config/project.h"

namespace stave::studio {

struct PreflightItem {
  bool blocking = false;  ///< the run cannot start (else: a warning the user may accept)
  QString text;           ///< what is wrong, naming the file and key
};

/// Checks `configName` of `project` with `overrides` applied. Reads the data.yaml and stats its
/// split paths (small, local work: called when Start is pressed).
QList<PreflightItem> preflight(const config::Project& project, const QString& configName,
                               const QStringList& overrides);

/// The blocking items only.
QStringList preflightBlocking(const QList<PreflightItem>& items);
/// The warnings only.
QStringList preflightWarnings(const QList<PreflightItem>& items);

}  // namespace stave::studio
