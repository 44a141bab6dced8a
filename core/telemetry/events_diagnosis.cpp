// The diagnosis events: straggler and the doctor's diagnosis.
#include "core/telemetry/events.h"
#include "core/telemetry/event_codec.h"
#include "core/telemetry/event_tables.h"

namespace stave::telemetry {

using nlohmann::json;
using namespace codec;

Event toEvent(const StragglerEvent& e, int rank) {
  json d = config::membersToJson(stragglerFields(), e);
  d["waits_on"] = toString(e.waitsOn);
  if (e.slowNode >= 0) d["slow_node"] = e.slowNode;
  if (!e.text.empty()) d["message_text"] = textToJson(e.text);
  return makeEvent(event_type::kStraggler, rank, std::move(d));
}

Result<StragglerEvent> stragglerFromEvent(const Event& ev) {
  return readTyped<StragglerEvent>(ev, event_type::kStraggler,
                                   [](FieldReader& r, StragglerEvent& e) {
                                     readMembers(r, stragglerFields(), e);
                                     readEnum(r, "waits_on", kStepPhases, e.waitsOn);
                                     r.integer("slow_node", e.slowNode, false);
                                     r.text("message_text", e.text);
                                   });
}

Event toEvent(const DiagnosisEvent& e, int rank) {
  json findings = json::array();
  for (const auto& f : e.findings) {
    json advice = json::array();
    for (const auto& a : f.advice) advice.push_back({{"key", a.key}, {"value", a.value}});
    json evidence = json::object();
    for (const auto& [k, v] : f.evidence) evidence[k] = std::isfinite(v) ? json(v) : json(nullptr);
    json finding{{"rule", f.rule},
                 {"severity", toString(f.severity)},
                 {"rank", f.rank},
                 {"title", f.title},
                 {"message", f.message},
                 {"advice", advice},
                 {"advice_text", adviceText(f.advice)},
                 {"evidence", evidence}};
    if (!f.titleText.empty()) finding["title_text"] = textToJson(f.titleText);
    if (!f.text.empty()) finding["message_text"] = textToJson(f.text);
    findings.push_back(std::move(finding));
  }
  json d{{"final", e.final},         {"period_s", e.periodS}, {"steps", e.steps},
         {"warmup_steps", e.warmupSteps}, {"findings", findings}, {"summary", e.summary}};
  if (!e.summaryText.empty()) d["summary_text"] = textToJson(e.summaryText);
  return makeEvent(event_type::kDiagnosis, rank, std::move(d));
}

Result<DiagnosisEvent> diagnosisFromEvent(const Event& ev) {
  return readTyped<DiagnosisEvent>(ev, event_type::kDiagnosis, [](FieldReader& r, DiagnosisEvent& e) {
    r.boolean("final", e.final, false);
    r.num("period_s", e.periodS, false);
    r.integer("steps", e.steps, false);
    r.integer("warmup_steps", e.warmupSteps, false);
    r.str("summary", e.summary, false);
    r.text("summary_text", e.summaryText);
    const json* findings = r.array("findings");
    if (!findings) return;
    for (size_t i = 0; i < findings->size(); ++i) {
      const std::string at = "findings[" + std::to_string(i) + "]";
      if (!(*findings)[i].is_object()) {
        r.error(at, Text("event.must_be_only", {{"expected", Text("event.json.object")}}));
        continue;
      }
      FieldReader f((*findings)[i], r.path(at + "."));
      Finding x;
      f.str("rule", x.rule);
      readEnum(f, "severity", kSeverities, x.severity);
      f.integer("rank", x.rank, false);
      f.str("title", x.title, false);
      f.str("message", x.message);
      f.text("title_text", x.titleText);
      f.text("message_text", x.text);
      if (const json* advice = f.array("advice", false)) {
        for (size_t k = 0; k < advice->size(); ++k) {
          const json& a = (*advice)[k];
          if (!a.is_object() || !a.contains("key") || !a["key"].is_string() ||
              !a.contains("value") || !a["value"].is_string()) {
            f.error("advice[" + std::to_string(k) + "]", Text("event.advice_shape"));
            continue;
          }
          x.advice.push_back({a["key"].get<std::string>(), a["value"].get<std::string>()});
        }
      }
      if (const json* evidence = f.object("evidence", false)) {
        for (auto it = evidence->begin(); it != evidence->end(); ++it) {
          if (it.value().is_number())
            x.evidence[it.key()] = it.value().get<double>();
          else if (it.value().is_null())
            x.evidence[it.key()] = std::numeric_limits<double>::quiet_NaN();
          else
            f.error("evidence." + it.key(), Text("event.must_be_only", {{"expected", Text("event.json.number")}}));
        }
      }
      r.append(f.errors());
      e.findings.push_back(std::move(x));
    }
  });
}

}  // namespace stave::telemetry
