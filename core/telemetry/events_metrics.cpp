// The training metrics events: step, epoch_end, validation, and their metric names.
#include "core/telemetry/events.h"
#include "core/telemetry/event_codec.h"
#include "core/telemetry/event_tables.h"
#include <cmath>
#include <cstdlib>
#include <string>

namespace stave::telemetry {

using nlohmann::json;
using namespace codec;

Event toEvent(const StepEvent& e, int rank) {
  json d = config::membersToJson(stepFields(), e);
  d["timing"] = timingToJson(e.timing);
  return makeEvent(event_type::kStep, rank, std::move(d));
}

Result<StepEvent> stepFromEvent(const Event& ev) {
  return readTyped<StepEvent>(ev, event_type::kStep, [](FieldReader& r, StepEvent& e) {
    readMembers(r, stepFields(), e);
    readTiming(r, "timing", e.timing);
  });
}

Event toEvent(const EpochEndEvent& e, int rank) {
  return makeEvent(event_type::kEpochEnd, rank, config::membersToJson(epochEndFields(), e));
}

Result<EpochEndEvent> epochEndFromEvent(const Event& ev) {
  return readTyped<EpochEndEvent>(ev, event_type::kEpochEnd, [](FieldReader& r, EpochEndEvent& e) {
    readMembers(r, epochEndFields(), e);
  });
}

Event toEvent(const ValidationEvent& e, int rank) {
  json d = config::membersToJson(validationFields(), e);
  if (!e.perClass.empty()) {
    json rows = json::array();
    for (const auto& c : e.perClass) {
      rows.push_back(config::membersToJson(classMetricsFields(), c));
    }
    d["per_class"] = std::move(rows);
  }
  return makeEvent(event_type::kValidation, rank, std::move(d));
}

Result<ValidationEvent> validationFromEvent(const Event& ev) {
  return readTyped<ValidationEvent>(
      ev, event_type::kValidation, [](FieldReader& r, ValidationEvent& e) {
        readMembers(r, validationFields(), e);
        if (const json* rows = r.array("per_class", false)) {
          for (size_t i = 0; i < rows->size(); ++i) {
            const std::string prefix = r.path("per_class[" + std::to_string(i) + "].");
            const json& row = (*rows)[i];
            if (!row.is_object()) {
              r.mustBe("per_class[" + std::to_string(i) + "]", "event.json.object", row);
              continue;
            }
            FieldReader s(row, prefix);
            ClassMetricsRow c;
            readMembers(s, classMetricsFields(), c);
            r.append(s.errors());
            e.perClass.push_back(std::move(c));
          }
        }
      });
}

std::vector<std::pair<std::string, double>> metricsOf(const StepEvent& e) {
  return {{"step/box_loss", e.boxLoss},
          {"step/cls_loss", e.clsLoss},
          {"step/dfl_loss", e.dflLoss},
          {"step/lr", e.lr},
          {"step/samples_per_s", e.samplesPerSec}};
}

std::vector<std::pair<std::string, double>> metricsOf(const EpochEndEvent& e) {
  std::vector<std::pair<std::string, double>> out{{"train/box_loss", e.boxLoss},
                                                  {"train/cls_loss", e.clsLoss},
                                                  {"train/dfl_loss", e.dflLoss},
                                                  {"time/epoch_s", e.epochTime}};
  for (size_t g = 0; g < e.lr.size(); ++g) out.emplace_back("lr/pg" + std::to_string(g), e.lr[g]);
  return out;
}

std::vector<std::pair<std::string, double>> metricsOf(const ValidationEvent& e) {
  return {{"metrics/precision(B)", e.precision}, {"metrics/recall(B)", e.recall},
          {"metrics/mAP50(B)", e.map50},         {"metrics/mAP50-95(B)", e.map5095},
          {"val/box_loss", e.boxLoss},           {"val/cls_loss", e.clsLoss},
          {"val/dfl_loss", e.dflLoss}};
}

bool isSampleType(std::string_view type) {
  return type.size() > 7 && type.compare(type.size() - 7, 7, "_sample") == 0;
}

bool isHighRateType(std::string_view type) { return type == event_type::kStep || isSampleType(type); }

std::string_view typeAtLineEnd(std::string_view line) {
  const std::string_view tail = line.substr(line.size() > 64 ? line.size() - 64 : 0);
  const auto at = tail.rfind(R"("type":")");
  if (at == std::string_view::npos) return {};
  const auto end = tail.find('"', at + 8);
  if (end == std::string_view::npos) return {};
  return tail.substr(at + 8, end - at - 8);
}

/// The rank of `line` when it is a step event of a rank other than 0, judged from its end as
/// encodeEvent writes it (`...},"rank":3,"time":...,"type":"step","version":1}`); 0 for
/// anything else (another layout, a damaged line: decoded in full), -1 for a negative rank.
int otherRanksStep(std::string_view line) {
  if (telemetry::typeAtLineEnd(line) != telemetry::event_type::kStep) return 0;
  const std::string_view tail = line.substr(line.size() > 96 ? line.size() - 96 : 0);
  const auto at = tail.rfind(R"(,"rank":)");
  if (at == std::string_view::npos) return 0;
  size_t i = at + 8;
  if (i < tail.size() && tail[i] == '-') return -1;
  int rank = 0;
  bool digits = false;
  for (; i < tail.size() && tail[i] >= '0' && tail[i] <= '9'; ++i) {
    rank = rank * 10 + (tail[i] - '0');
    digits = true;
    if (rank > 1000000) return 0;
  }
  return digits && i < tail.size() && tail[i] == ',' ? rank : 0;
}

/// The number after `"samples_per_s":` in a step line (NaN when there is none).
double stepSamplesPerSec(std::string_view line) {
  constexpr std::string_view kKey = R"("samples_per_s":)";
  const auto at = line.find(kKey);
  if (at == std::string_view::npos) return std::nan("");
  const std::string number(line.substr(at + kKey.size(), 32));
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  return end == number.c_str() ? std::nan("") : v;
}

int64_t globalStep(const StepEvent& e) { return int64_t{e.epoch} * e.itersPerEpoch + e.iter; }

}  // namespace stave::telemetry
