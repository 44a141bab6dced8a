// The message catalog's third chapter: the dataset report (`stave-train check-dataset`, the new
// project wizard's check page) and the studio's failures around the dataset (a scan or an
// augmentation preview that stops on an exception). message.cpp joins it into the catalog.
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
  };
  return messages;
}

}  // namespace stave
