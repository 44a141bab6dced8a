#include "core/studio/hardware/hardware_advice.h"

#include <QStringList>

#include "core/studio/engine_text.h"
#include "core/studio/project/project_document.h"

namespace stave::studio {

namespace tel = telemetry;

DoctorAdvice::DoctorAdvice(QObject* parent) : QObject(parent) {}

void DoctorAdvice::clear() {
  const bool had = m_has || m_haveRunConfig || !m_problem.isEmpty();
  m_has = false;
  m_diagnosis = {};
  m_problem.clear();
  m_haveRunConfig = false;
  m_runConfig = config::RunConfig::defaults();
  if (had) emit changed();
}

void DoctorAdvice::consider(const std::vector<RunEvent>& events, size_t first) {
  bool any = false;
  RunEventDispatch dispatch;
  dispatch
      .on<tel::DiagnosisEvent>([&](const RunEvent&, const tel::DiagnosisEvent& d) {
        m_diagnosis = d;
        m_has = true;
        m_problem.clear();
        any = true;
      })
      .on<tel::RunStartEvent>([&](const RunEvent& e, const tel::RunStartEvent&) {
        if (!e.runConfig) return;  // none, or a run of another version: the project's config is the base
        m_runConfig = *e.runConfig;
        m_haveRunConfig = true;
        any = true;
      })
      .invalid([&](const RunEvent& e, const std::string&) {
        if (e.type != tel::event_type::kDiagnosis) return;  // an unreadable run_start: the project's config
        m_problem = tr("An unreadable diagnosis event was skipped: %1")
                        .arg(engineText(e.invalidText, e.invalid));
        any = true;
      });
  for (size_t i = first; i < events.size(); ++i) dispatch(events[i]);
  if (any) emit changed();
}

int DoctorAdvice::mostSevere() const {
  int best = -1;
  for (size_t i = 0; i < m_diagnosis.findings.size(); ++i) {
    if (best < 0 || m_diagnosis.findings[i].severity >
                        m_diagnosis.findings[static_cast<size_t>(best)].severity)
      best = static_cast<int>(i);
  }
  return best;
}

config::RunConfig DoctorAdvice::baseConfig(const ProjectDocument* doc) const {
  if (m_haveRunConfig) return m_runConfig;
  if (doc && doc->isOpen())
    if (const auto* cfg = doc->config(doc->activeConfig())) return *cfg;
  return config::RunConfig::defaults();
}

QString DoctorAdvice::suggestName(const ProjectDocument* doc, int index) const {
  QString stem = QStringLiteral("advice");
  if (index >= 0 && static_cast<size_t>(index) < findings().size() &&
      !findings()[static_cast<size_t>(index)].rule.empty())
    stem = QString::fromStdString(findings()[static_cast<size_t>(index)].rule);
  const QStringList taken = doc ? doc->configNames() : QStringList{};
  QString name = stem;
  for (int k = 2; taken.contains(name); ++k) name = QStringLiteral("%1-%2").arg(stem).arg(k);
  return name;
}

bool DoctorAdvice::apply(ProjectDocument* doc, int index, const QString& nameIn,
                         QString* error) const {
  auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  if (!doc || !doc->isOpen()) return fail(tr("Open the run's project first."));
  if (index < 0 || static_cast<size_t>(index) >= findings().size())
    return fail(tr("There is no such finding."));
  const tel::Finding& f = findings()[static_cast<size_t>(index)];
  if (f.advice.empty()) return fail(tr("This finding advises no config change."));
  const QString name = nameIn.trimmed();
  if (name.isEmpty()) return fail(tr("The new config needs a name."));
  if (doc->configNames().contains(name))
    return fail(tr("There is already a config called %1").arg(name));
  config::RunConfig cfg = baseConfig(doc);
  std::vector<std::string> overrides;
  for (const auto& a : f.advice) overrides.push_back(a.key + "=" + a.value);
  if (auto st = config::applyOverrides(cfg, overrides); !st)
    return fail(tr("The advice does not fit the config: %1").arg(errorsText(st.errors())));
  if (const auto problems = config::validate(cfg); !problems.empty())
    return fail(tr("The config with this advice is not valid: %1").arg(errorsText(problems)));
  doc->setConfig(name, cfg);
  return true;
}

QString DoctorAdvice::severityName(tel::Severity severity) {
  switch (severity) {
    case tel::Severity::Info:
      return tr("info");
    case tel::Severity::Warning:
      return tr("warning");
    case tel::Severity::Critical:
      return tr("critical");
  }
  return {};
}

}  // namespace stave::studio
