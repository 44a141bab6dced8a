// The training metrics events: step, epoch_end, validation, and their metric names.
#include "core/telemetry/events.h"
#include "core/telemetry/event_codec.h"
#include <cmath>
#include <cstdlib>
#include <string>

namespace stave::telemetry {

using nlohmann::json;
using namespace codec;

Event toEvent(const StepEvent& e, int rank) {
  json d{{"epoch", e.epoch},
         {"iter", e.iter},
         {"iters_per_epoch", e.itersPerEpoch},
         {"box_loss", e.boxLoss},
         {"cls_loss", e.clsLoss},
         {"dfl_loss", e.dflLoss},
         {"lr", e.lr},
         {"samples_per_s", e.samplesPerSec},
         {"timing", timingToJson(e.timing)}};
  return makeEvent(event_type::kStep, rank, std::move(d));
}

Result<StepEvent> stepFromEvent(const Event& ev) {
  return readTyped<StepEvent>(ev, event_type::kStep, [](FieldReader& r, StepEvent& e) {
    r.integer("epoch", e.epoch);
    r.integer("iter", e.iter);
    r.integer("iters_per_epoch", e.itersPerEpoch);
    r.num("box_loss", e.boxLoss);
    r.num("cls_loss", e.clsLoss);
    r.num("dfl_loss", e.dflLoss);
    r.num("lr", e.lr);
    r.num("samples_per_s", e.samplesPerSec);
    readTiming(r, "timing", e.timing);
  });
}

Event toEvent(const EpochEndEvent& e, int rank) {
  json d{{"epoch", e.epoch},
         {"epochs", e.epochs},
         {"box_loss", e.boxLoss},
         {"cls_loss", e.clsLoss},
         {"dfl_loss", e.dflLoss},
         {"epoch_time", e.epochTime},
         {"lr", e.lr}};
  return makeEvent(event_type::kEpochEnd, rank, std::move(d));
}

Result<EpochEndEvent> epochEndFromEvent(const Event& ev) {
  return readTyped<EpochEndEvent>(ev, event_type::kEpochEnd, [](FieldReader& r, EpochEndEvent& e) {
    r.integer("epoch", e.epoch);
    r.integer("epochs", e.epochs);
    r.num("box_loss", e.boxLoss);
    r.num("cls_loss", e.clsLoss);
    r.num("dfl_loss", e.dflLoss);
    r.num("epoch_time", e.epochTime);
    r.numList("lr", e.lr);
  });
}

Event toEvent(const ValidationEvent& e, int rank) {
  json d{{"epoch", e.epoch},      {"precision", e.precision}, {"recall", e.recall},
         {"map50", e.map50},      {"map50_95", e.map5095},    {"box_loss", e.boxLoss},
         {"cls_loss", e.clsLoss}, {"dfl_loss", e.dflLoss},    {"val_time", e.valTime}};
  if (!e.perClass.empty()) {
    json rows = json::array();
    for (const auto& c : e.perClass) {
      rows.push_back({{"cls", c.cls},
                      {"name", c.name},
                      {"images", c.images},
                      {"instances", c.instances},
                      {"precision", c.precision},
                      {"recall", c.recall},
                      {"map50", c.map50},
                      {"map50_95", c.map5095}});
    }
    d["per_class"] = std::move(rows);
  }
  return makeEvent(event_type::kValidation, rank, std::move(d));
}

Result<ValidationEvent> validationFromEvent(const Event& ev) {
  return readTyped<ValidationEvent>(
      ev, event_type::kValidation, [](FieldReader& r, ValidationEvent& e) {
        r.integer("epoch", e.epoch);
        r.num("precision", e.precision);
        r.num("recall", e.recall);
        r.num("map50", e.map50);
        r.num("map50_95", e.map5095);
        r.num("box_loss", e.boxLoss, false);
        r.num("cls_loss", e.clsLoss, false);
        r.num("dfl_loss", e.dflLoss, false);
        r.num("val_time", e.valTime);
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
            s.integer("cls", c.cls);
            s.str("name", c.name, false);
            s.integer("images", c.images, false);
            s.integer("instances", c.instances, false);
            s.num("precision", c.precision);
            s.num("recall", c.recall);
            s.num("map50", c.map50);
            s.num("map50_95", c.map5095);
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
