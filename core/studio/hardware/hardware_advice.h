#pragma once
// DoctorAdvice: the doctor's latest diagnosis of the followed run, read from its events, and
// the one path from a finding to a new named config of the project: the run's own config (its
// run_start event; else the project's active config) with the finding's key=value changes,
// checked by the schema like any command-line override. The Run page's banner and the Hardware
// page both use it. QtCore only.

#include <QObject>
#include <QString>
#include <vector>

#include "core/config/run_config.h"
#include "core/studio/models/run_event.h"
#include "core/telemetry/events.h"

namespace stave::studio {

class ProjectDocument;

/// The latest `diagnosis` event of one run and what applying its advice makes.
class DoctorAdvice : public QObject {
  Q_OBJECT
 public:
  explicit DoctorAdvice(QObject* parent = nullptr);

  /// Forgets the run (no run followed, or another one follows). Emits changed() when there was
  /// something to forget.
  void clear();
  /// Reads events [first, end) of the followed run, as its reader decoded them: run_start
  /// gives the base config, each diagnosis replaces the latest; other events are ignored. A
  /// diagnosis that does not decode leaves the previous one and is reported by problem().
  /// Emits changed() once if anything did.
  void consider(const std::vector<RunEvent>& events, size_t first);

  /// Whether a diagnosis was read.
  bool hasDiagnosis() const { return m_has; }
  /// The latest diagnosis (empty before the first).
  const telemetry::DiagnosisEvent& diagnosis() const { return m_diagnosis; }
  const std::vector<telemetry::Finding>& findings() const { return m_diagnosis.findings; }
  /// The most severe finding (the first of equals), -1 when there is none.
  int mostSevere() const;
  /// Why the latest diagnosis event could not be read ("" when it could).
  QString problem() const { return m_problem; }

  /// The config a new one starts from: the run's (from its run_start, without what names that
  /// one run), else the active config of `doc`, else the schema defaults.
  config::RunConfig baseConfig(const ProjectDocument* doc) const;
  /// Whether the base comes from the run itself.
  bool baseIsRunConfig() const { return m_haveRunConfig; }
  /// A name for the config applying finding `index`, not yet used in `doc`, e.g. "data_bound".
  QString suggestName(const ProjectDocument* doc, int index) const;
  /// Adds config `name` to `doc`: baseConfig() with finding `index`'s advice applied and the
  /// whole config validated. False with `error` (nothing added) when the project is not open,
  /// the name is empty or taken, the finding has no advice, or a value does not fit the schema.
  bool apply(ProjectDocument* doc, int index, const QString& name, QString* error) const;

  /// "info", "warning", "critical" in the user's language.
  static QString severityName(telemetry::Severity severity);

 signals:
  /// The diagnosis or the base config changed.
  void changed();

 private:
  bool m_has = false;
  telemetry::DiagnosisEvent m_diagnosis;
  QString m_problem;
  bool m_haveRunConfig = false;
  config::RunConfig m_runConfig = config::RunConfig::defaults();
};

}  // namespace stave::studio
