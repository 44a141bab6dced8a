#include "core/train/val_views.h"

#include <filesystem>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/base/atomic_file.h"
#include "core/data/image_source.h"
#include "core/data/png_check.h"
#include "core/train/inference.h"

namespace fs = std::filesystem;

namespace stave::train {
namespace {
using json = nlohmann::json;

std::string className(const std::vector<std::string>& names, int cls) {
  return cls >= 0 && cls < static_cast<int>(names.size()) ? names[static_cast<size_t>(cls)]
                                                          : std::to_string(cls);
}

json rounded(const std::vector<double>& v) {
  json out = json::array();
  for (double x : v) out.push_back(std::round(x * 1e6) / 1e6);
  return out;
}

Status writeJson(const fs::path& file, const json& j) {
  return writeFileAtomic(file.string(), j.dump() + "\n");
}

Status writeGalleryImage(const fs::path& file, const std::string& source, const ViewImage& v,
                         const std::vector<std::string>& names, bool predictions) {
  std::vector<uint8_t> encoded;
  if (!data::readFileBytes(source, encoded))
    return Error{source, 0, "", "cannot be read to draw the validation gallery"};
  // libpng would print a damaged PNG's problem to stderr, naming no file.
  if (data::isPng(encoded.data(), encoded.size()))
    if (std::string why = data::pngProblem(encoded.data(), encoded.size()); !why.empty())
      return Error{source, 0, "", why + "; not drawn in the validation gallery"};
  cv::Mat bgr = encoded.empty() ? cv::Mat() : cv::imdecode(encoded, cv::IMREAD_COLOR);
  if (bgr.empty()) return Error{source, 0, "", "cannot be read to draw the validation gallery"};
  if (predictions) {
    for (const auto& d : v.detections) {
      char label[160];
      std::snprintf(label, sizeof label, "%s %.2f", className(names, d.cls).c_str(), d.score);
      drawLabelledBox(bgr, d.x1, d.y1, d.x2, d.y2, d.cls, label);
    }
  } else {
    for (const auto& g : v.truths)
      drawLabelledBox(bgr, g.x1, g.y1, g.x2, g.y2, g.cls, className(names, g.cls));
  }
  std::vector<uchar> bytes;
  if (!cv::imencode(".jpg", bgr, bytes, {cv::IMWRITE_JPEG_QUALITY, 90}))
    return Error{file.string(), 0, "", "cannot encode the image"};
  return writeFileAtomic(file.string(), std::string(bytes.begin(), bytes.end()));
}

/// confusion_matrix.json: counts and the images behind each cell, predicted rows by true
/// columns, background last.
Status writeConfusionMatrix(const fs::path& dir, const ConfusionMatrix& m, int nc,
                            const json& labels) {
  json counts = json::array(), cells = json::array();
  for (int p = 0; p <= nc; ++p) {
    json row = json::array();
    for (int t = 0; t <= nc; ++t) {
      row.push_back(m.count(p, t));
      if (!m.images(p, t).empty())
        cells.push_back({{"predicted", p}, {"true", t}, {"images", m.images(p, t)}});
    }
    counts.push_back(row);
  }
  json j = {{"version", kValidationViewsVersion},
            {"names", labels},
            {"conf", m.conf()},
            {"iou", m.iou()},
            {"counts", counts},
            {"cells", cells}};
  return writeJson(dir / "confusion_matrix.json", j);
}

/// curves.json: each class's P/R/F1 and PR curves with its best F1, and the mean F1 curve.
Status writeCurves(const fs::path& dir, const ValidationViews& views,
                   const std::vector<std::string>& names) {
  json classes = json::array();
  for (const auto& c : views.curves.classes) {
    json row = {{"class", c.cls},
                {"name", className(names, c.cls)},
                {"precision", rounded(c.precision)},
                {"recall", rounded(c.recall)},
                {"f1", rounded(c.f1)},
                {"pr_precision", rounded(c.prPrecision)},
                {"best_f1", c.bestF1},
                {"best_f1_conf", c.bestF1Conf}};
    for (const auto& r : views.perClass)
      if (r.cls == c.cls) row["map50"] = r.map50;
    classes.push_back(row);
  }
  json recall = json::array();
  for (double r : cocoRecallThresholds()) recall.push_back(r);
  json j = {{"version", kValidationViewsVersion},
            {"conf", rounded(views.curves.conf)},
            {"mean_f1", rounded(views.curves.meanF1)},
            {"operating_conf", views.operatingConf},
            {"recall", recall},
            {"classes", classes}};
  return writeJson(dir / "curves.json", j);
}

/// per_class.csv: Ultralytics' per-class table, names quoted where CSV needs it.
Status writePerClassCsv(const fs::path& dir, const std::vector<ClassResult>& perClass,
                        const std::vector<std::string>& names) {
  std::ostringstream csv;
  csv << "class,name,images,instances,precision,recall,mAP50,mAP50-95\n" << std::setprecision(6);
  for (const auto& r : perClass) {
    std::string name = className(names, r.cls);
    if (name.find_first_of(",\"\n") != std::string::npos) {
      std::string q = "\"";
      for (char ch : name) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      name = q + "\"";
    }
    csv << r.cls << ',' << name << ',' << r.images << ',' << r.instances << ',' << r.precision
        << ',' << r.recall << ',' << r.map50 << ',' << r.map5095 << '\n';
  }
  return writeFileAtomic((dir / "per_class.csv").string(), csv.str());
}

/// images.json's images: each kept image's path, size, labels and predictions, by split index.
json imagesJson(const ValidationViews& views, const std::vector<std::string>& paths) {
  json images = json::object();
  for (const auto& [index, v] : views.images) {
    json l = json::array(), p = json::array();
    for (const auto& g : v.truths) l.push_back({g.cls, g.x1, g.y1, g.x2, g.y2});
    for (const auto& d : v.detections) p.push_back({d.cls, d.score, d.x1, d.y1, d.x2, d.y2});
    images[std::to_string(index)] = {
        {"path", index >= 0 && index < static_cast<int64_t>(paths.size())
                     ? paths[static_cast<size_t>(index)]
                     : ""},
        {"width", v.width},
        {"height", v.height},
        {"labels", l},
        {"predictions", p}};
  }
  return images;
}

/// gallery/NN_labels.jpg and NN_pred.jpg for the gallery's images; their entries go to `gallery`.
Status writeGallery(const fs::path& dir, const ValidationViews& views,
                    const std::vector<std::string>& paths, const std::vector<std::string>& names,
                    json& gallery) {
  for (size_t k = 0; k < views.gallery.size(); ++k) {
    const int64_t index = views.gallery[k];
    const auto it = views.images.find(index);
    if (it == views.images.end() || index < 0 || index >= static_cast<int64_t>(paths.size()))
      continue;
    char stem[32];
    std::snprintf(stem, sizeof stem, "%02zu", k);
    const fs::path lab = dir / "gallery" / (std::string(stem) + "_labels.jpg");
    const fs::path pred = dir / "gallery" / (std::string(stem) + "_pred.jpg");
    const std::string& source = paths[static_cast<size_t>(index)];
    if (auto st = writeGalleryImage(lab, source, it->second, names, false); !st) return st;
    if (auto st = writeGalleryImage(pred, source, it->second, names, true); !st) return st;
    gallery.push_back({{"image", index},
                       {"labels", "gallery/" + lab.filename().string()},
                       {"predictions", "gallery/" + pred.filename().string()}});
  }
  return Ok{};
}
}  // namespace

Status writeValidationViews(const ValidationViews& views, const std::string& dirPath,
                            const std::vector<std::string>& paths,
                            const std::vector<std::string>& names) {
  const fs::path dir(dirPath);
  std::error_code ec;
  fs::create_directories(dir / "gallery", ec);
  if (ec) return Error{(dir / "gallery").string(), 0, "", "cannot create: " + ec.message()};
  const int nc = views.matrix ? views.matrix->nc() : static_cast<int>(names.size());
  json labels = json::array();
  for (int c = 0; c < nc; ++c) labels.push_back(className(names, c));
  labels.push_back("background");

  if (views.matrix) {
    if (auto st = writeConfusionMatrix(dir, *views.matrix, nc, labels); !st) return st;
  }
  if (auto st = writeCurves(dir, views, names); !st) return st;
  if (auto st = writePerClassCsv(dir, views.perClass, names); !st) return st;
  json images = imagesJson(views, paths);
  json gallery = json::array();
  if (auto st = writeGallery(dir, views, paths, names, gallery); !st) return st;
  return writeJson(
      dir / "images.json",
      {{"version", kValidationViewsVersion}, {"images", images}, {"gallery", gallery}});
}

}  // namespace stave::train
