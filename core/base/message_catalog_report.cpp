// The message catalog's third chapter: the dataset report (`stave-train check-dataset`, the new
// project wizard's check page) and the studio's failures around the dataset (a scan or an
// augmentation preview that stops on an exception), and why an event cannot be read. message.cpp
// joins it into the catalog.
#include "core/base/message_catalog.h"

namespace stave {

const std::vector<MessageDef>& datasetReportMessages() {
  static const std::vector<MessageDef> messages = {
      // --- the dataset report (core/data/dataset_report.cpp) ----------------------------------
      {"data.report.error", "error: {where}{message}"},
      {"data.report.unusable", "the dataset cannot be used"},
      {"data.report.dataset", "dataset {path} ({classes} classes)"},
      {"data.report.split",
       "[{split}] {images} images ({labelled} labelled, {background} background), {instances} "
       "instances"},
      {"data.report.images_left_out", ", {count} images left out"},
      {"data.report.rows_left_out", ", {count} label rows left out"},
      {"data.report.per_class", "per class: {counts}"},
      {"data.report.stat", "{what}: min {min}  mean {mean}  max {max}"},
      {"data.report.box_width", "box width"},
      {"data.report.box_height", "box height"},
      {"data.report.box_aspect", "box aspect"},
      {"data.report.image_width", "image width"},
      {"data.report.image_height", "image height"},
      {"data.report.problems", "{count} problems:"},
      {"data.report.problem", "{where}{kind}: {message}"},
      {"data.report.ok", "ok: no problems found"},
      {"data.report.problems_found", "problems found (training leaves out what is unusable)"},
      {"data.report.headers_only",
       "images were checked by their headers and end markers only; --verify decodes every image "
       "(training warns about each image it cannot decode and fails past max_bad_images)"},

      // --- the studio's dataset work that stopped on an exception -----------------------------
      {"data.scan_failed", "the dataset scan stopped: {reason}"},
      {"data.check_failed", "the dataset check stopped: {reason}"},
      {"data.preview_failed", "the augmentation preview stopped: {reason}"},

      // --- the label issues' companion file (core/data/label_fix_batch.cpp: Label issues) ----
      {"labels.companion.not_one", "not an issues companion file (no csv_hash)"},
      {"labels.companion.not_object", "not an object"},
      {"labels.companion.not_string", "{image}: not a string"},
      {"labels.companion.bad_box", "'{line}': expected a CSV line number and four numbers"},
      {"labels.companion.other_version",
       "belongs to another version of {csv}; not used (changed label files are found by "
       "modification time, and badly located boxes cannot be fixed)"},

      // --- an event that cannot be read (core/telemetry: events.cpp, event_codec.h) ----------
      // The reasons inside the store's and the Hardware page's warnings about skipped events.
      {"event.missing", "missing"},
      {"event.must_be", "must be {expected}, got {got}"},
      {"event.must_be_only", "must be {expected}"},
      {"event.json.number", "a number"},
      {"event.json.integer", "an integer"},
      {"event.json.boolean", "true or false"},
      {"event.json.string", "a string"},
      {"event.json.strings", "an array of strings"},
      {"event.json.numbers", "an array of numbers"},
      {"event.json.object", "an object"},
      {"event.json.array", "an array"},
      {"event.advice_shape", "must be {{\"key\": string, \"value\": string}}"},
      {"event.at_least", "must be {min} or more, got {value}"},
      {"event.not_one_of", "\"{value}\" is not one of {valid}"},
      {"event.not_empty", "must not be empty"},
      {"event.expected_type", "expected a \"{expected}\" event, got \"{type}\""},
      {"event.empty_line", "not JSON: the line is empty"},
      {"event.not_json", "not JSON: {reason}"},
      {"event.number_out_of_range", "a number out of range"},
      {"event.not_an_object", "not an event: expected a JSON object, got {got}"},
      {"event.version_newer",
       "event version {version} is newer than this program reads (up to {max}); update Stave"},
  };
  return messages;
}

}  // namespace stave
