#pragma once
// The images of a scanned dataset split as the commands that read predictions CSVs see them
// (eval-preds, label-issues): every name a CSV row may use for an image, and its ground truth
// in pixels.
#include <filesystem>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/train/pred_eval.h"

namespace stave::cli {

/// Every name a CSV row may use for the image: absolute path, path relative to a source folder
/// of the split, path relative to the dataset root.
inline std::vector<std::string> imageKeys(const std::string& imagePath, const data::DataSpec& spec,
                                          const std::vector<std::string>& sources) {
  namespace fs = std::filesystem;
  const fs::path img = fs::path(imagePath).lexically_normal();
  std::vector<std::string> keys{img.generic_string()};
  auto addRelative = [&](const std::string& base) {
    if (base.empty()) return;
    const fs::path rel = img.lexically_relative(fs::path(base).lexically_normal());
    const std::string s = rel.generic_string();
    if (!s.empty() && s != "." && s.rfind("..", 0) != 0) keys.push_back(s);
  };
  for (const auto& src : sources) {
    std::error_code ec;
    if (fs::is_directory(src, ec)) addRelative(src);
  }
  addRelative(spec.root);
  return keys;
}

/// The split's images with their keys, stems and label boxes in pixels, in the index's order.
inline std::vector<train::EvalImage> splitEvalImages(const data::DataSpec& spec,
                                                     const data::SplitIndex& index,
                                                     const std::vector<std::string>& sources) {
  std::vector<train::EvalImage> images;
  images.reserve(index.images.size());
  for (const auto& rec : index.images) {
    train::EvalImage im;
    im.keys = imageKeys(rec.imagePath, spec, sources);
    im.stem = std::filesystem::path(rec.imagePath).stem().string();
    for (const auto& b : rec.boxes) {
      const double w = rec.width, h = rec.height;
      im.truths.push_back({float((b.cx - b.w / 2.0) * w), float((b.cy - b.h / 2.0) * h),
                           float((b.cx + b.w / 2.0) * w), float((b.cy + b.h / 2.0) * h), b.cls});
    }
    images.push_back(std::move(im));
  }
  return images;
}

}  // namespace stave::cli
