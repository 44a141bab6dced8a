#include "core/data/demo.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/data/image_source.h"
#include <opencv2/imgproc.hpp>

#include <yaml-cpp/yaml.h>

#include "core/base/atomic_file.h"
#include "core/config/yaml_emit.h"
#include "core/data/rng.h"

namespace stave::data {
namespace fs = std::filesystem;

const std::vector<std::string>& demoClassNames() {
  static const std::vector<std::string> names{"circle", "rectangle", "triangle", "ellipse",
                                              "cross"};
  return names;
}

namespace {
constexpr double kPi = 3.14159265358979323846;

cv::Scalar randomColour(Rng& rng) {
  // A saturated, reasonably bright colour from HSV, so shapes stand out of the texture.
  const double h = rng.uniform(0, 6), s = rng.uniform(0.45, 1.0), v = rng.uniform(0.35, 1.0);
  const int i = static_cast<int>(h) % 6;
  const double f = h - std::floor(h), p = v * (1 - s), q = v * (1 - s * f),
               t = v * (1 - s * (1 - f));
  double r, g, b;
  switch (i) {
    case 0:
      r = v, g = t, b = p;
      break;
    case 1:
      r = q, g = v, b = p;
      break;
    case 2:
      r = p, g = v, b = t;
      break;
    case 3:
      r = p, g = q, b = v;
      break;
    case 4:
      r = t, g = p, b = v;
      break;
    default:
      r = v, g = p, b = q;
      break;
  }
  return cv::Scalar(std::round(b * 255), std::round(g * 255), std::round(r * 255));
}

std::vector<cv::Point> rotated(const std::vector<cv::Point2d>& pts, cv::Point2d c, double angle) {
  const double ca = std::cos(angle), sa = std::sin(angle);
  std::vector<cv::Point> out;
  for (const auto& p : pts)
    out.emplace_back(static_cast<int>(std::lround(c.x + p.x * ca - p.y * sa)),
                     static_cast<int>(std::lround(c.y + p.x * sa + p.y * ca)));
  return out;
}

// Draws shape `cls` of size `size` at `c` into `dst` with `colour` (dst may be a mask).
void drawShape(cv::Mat& dst, int cls, cv::Point2d c, double size, double angle, double aspect,
               const cv::Scalar& colour) {
  const double r = size / 2;
  switch (cls) {
    case 0:
      cv::circle(dst, cv::Point(int(std::lround(c.x)), int(std::lround(c.y))), int(std::lround(r)),
                 colour, cv::FILLED, cv::LINE_8);
      break;
    case 1: {
      const double w = r, h = r * aspect;
      cv::fillConvexPoly(dst, rotated({{-w, -h}, {w, -h}, {w, h}, {-w, h}}, c, angle), colour,
                         cv::LINE_8);
      break;
    }
    case 2: {
      std::vector<cv::Point2d> p;
      for (int k = 0; k < 3; ++k)
        p.emplace_back(r * std::cos(2 * kPi * k / 3), r * std::sin(2 * kPi * k / 3));
      cv::fillConvexPoly(dst, rotated(p, c, angle), colour, cv::LINE_8);
      break;
    }
    case 3:
      cv::ellipse(dst, cv::Point(int(std::lround(c.x)), int(std::lround(c.y))),
                  cv::Size(int(std::lround(r)), int(std::lround(r * aspect * 0.6))),
                  angle * 180 / kPi, 0, 360, colour, cv::FILLED, cv::LINE_8);
      break;
    default: {
      const double t = r * 0.28;
      cv::fillConvexPoly(dst, rotated({{-r, -t}, {r, -t}, {r, t}, {-r, t}}, c, angle), colour,
                         cv::LINE_8);
      cv::fillConvexPoly(dst, rotated({{-t, -r}, {t, -r}, {t, r}, {-t, r}}, c, angle), colour,
                         cv::LINE_8);
      break;
    }
  }
}

double iou(const cv::Rect& a, const cv::Rect& b) {
  const double inter = (a & b).area();
  return inter / std::max(1.0, double(a.area() + b.area()) - inter);
}

// Background: a base colour, three random plane waves and a coarse blotch field.
cv::Mat renderBackground(Rng& rng, int W, int H, int imgsz) {
  cv::Mat canvas(H, W, CV_8UC3);
  double base[3], amp[3][3], fx[3], fy[3], ph[3];
  for (double& b : base) b = rng.uniform(40, 215);
  for (int k = 0; k < 3; ++k) {
    const double f = rng.uniform(1.0, 12.0) * 2 * kPi / imgsz, a = rng.uniform(0, 2 * kPi);
    fx[k] = f * std::cos(a);
    fy[k] = f * std::sin(a);
    ph[k] = rng.uniform(0, 2 * kPi);
    for (int ch = 0; ch < 3; ++ch) amp[k][ch] = rng.uniform(0, 28);
  }
  const int cell = std::max(4, imgsz / 16);
  const int gw = W / cell + 2, gh = H / cell + 2;
  std::vector<double> blotch(size_t(gw) * gh);
  for (double& b : blotch) b = rng.uniform(-18, 18);
  std::vector<double> wave(3);
  for (int y = 0; y < H; ++y) {
    auto* row = canvas.ptr<uint8_t>(y);
    for (int x = 0; x < W; ++x) {
      for (int k = 0; k < 3; ++k) wave[k] = std::sin(fx[k] * x + fy[k] * y + ph[k]);
      // Bilinear blotches give a cloudy low-frequency texture.
      const double gx = double(x) / cell, gy = double(y) / cell;
      const int ix = int(gx), iy = int(gy);
      const double tx = gx - ix, ty = gy - iy;
      const double bl =
          blotch[iy * gw + ix] * (1 - tx) * (1 - ty) + blotch[iy * gw + ix + 1] * tx * (1 - ty) +
          blotch[(iy + 1) * gw + ix] * (1 - tx) * ty + blotch[(iy + 1) * gw + ix + 1] * tx * ty;
      for (int ch = 0; ch < 3; ++ch) {
        double v = base[ch] + bl;
        for (int k = 0; k < 3; ++k) v += amp[k][ch] * wave[k];
        row[3 * x + ch] = cv::saturate_cast<uint8_t>(v);
      }
    }
  }
  return canvas;
}

// Objects: placed with limited overlap, some cut by the border; one label row each.
void placeObjects(Rng& rng, cv::Mat& canvas, int minObjects, int maxObjects, std::string& labels) {
  const int W = canvas.cols, H = canvas.rows;
  const int count = static_cast<int>(rng.range(minObjects, maxObjects));
  std::vector<cv::Rect> placed;
  char line[128];
  for (int o = 0; o < count; ++o) {
    for (int attempt = 0; attempt < 25; ++attempt) {
      const int cls = static_cast<int>(rng.below(5));
      const double size = rng.uniform(0.08, 0.40) * std::min(W, H) * 1.0;
      const cv::Point2d c(rng.uniform(-0.05, 1.05) * W, rng.uniform(-0.05, 1.05) * H);
      const double angle = rng.uniform(0, kPi), aspect = rng.uniform(0.5, 1.0);
      const cv::Scalar colour = randomColour(rng);
      // The object's own mask gives its exact pixel box, clipped to the image.
      cv::Mat mask = cv::Mat::zeros(H, W, CV_8U);
      drawShape(mask, cls, c, size, angle, aspect, cv::Scalar(255));
      const cv::Rect box = cv::boundingRect(mask);
      // Reject objects mostly outside the image or hidden behind earlier ones.
      const double fullArea = size * size * 0.5;
      if (box.width < 4 || box.height < 4 || cv::countNonZero(mask) < 0.3 * fullArea) continue;
      bool clash = false;
      for (const auto& p : placed)
        clash = clash || iou(p, box) > 0.35 || (p & box).area() > 0.6 * box.area();
      if (clash) continue;
      placed.push_back(box);
      canvas.setTo(colour, mask);
      std::snprintf(line, sizeof line, "%d %.6f %.6f %.6f %.6f\n", cls,
                    (box.x + box.width / 2.0) / W, (box.y + box.height / 2.0) / H,
                    double(box.width) / W, double(box.height) / H);
      labels += line;
      break;
    }
  }
}

// Sensor-like noise over everything, so objects are not flat colour.
void addNoise(Rng& rng, cv::Mat& canvas) {
  const int W = canvas.cols, H = canvas.rows;
  for (int y = 0; y < H; ++y) {
    auto* row = canvas.ptr<uint8_t>(y);
    for (int x = 0; x < 3 * W; ++x)
      row[x] = cv::saturate_cast<uint8_t>(row[x] + rng.uniform(-10, 10));
  }
}
}  // namespace

DemoImage renderDemoImage(uint64_t seed, int imgsz, int minObjects, int maxObjects) {
  Rng rng(seed);
  DemoImage img;
  const int shortSide =
      std::max(8, static_cast<int>(std::lround(imgsz * rng.uniform(0.75, 1.0))) & ~1);
  const bool landscape = rng.uniform() < 0.5;
  img.width = landscape ? imgsz : shortSide;
  img.height = landscape ? shortSide : imgsz;
  const int W = img.width, H = img.height;
  cv::Mat canvas = renderBackground(rng, W, H, imgsz);
  placeObjects(rng, canvas, minObjects, maxObjects, img.labels);
  addNoise(rng, canvas);
  img.bgr.assign(canvas.data, canvas.data + size_t(W) * H * 3);
  return img;
}

Status makeDemo(const DemoOptions& o) {
  std::vector<Error> errors;
  if (o.out.empty()) errors.push_back({"", 0, "out", "an output folder is required"});
  if (o.train < 1 || o.train > 1000000)
    errors.push_back({"", 0, "train", "must be in [1, 1000000]"});
  if (o.val < 1 || o.val > 1000000) errors.push_back({"", 0, "val", "must be in [1, 1000000]"});
  if (o.imgsz < 32 || o.imgsz > 8192) errors.push_back({"", 0, "imgsz", "must be in [32, 8192]"});
  if (o.quality < 1 || o.quality > 100) errors.push_back({"", 0, "quality", "must be in [1, 100]"});
  if (o.minObjects < 0 || o.maxObjects < o.minObjects || o.maxObjects > 64)
    errors.push_back({"", 0, "objects", "need 0 <= min <= max <= 64"});
  if (!errors.empty()) return errors;
  std::error_code ec;
  for (const char* sub : {"images/train", "images/val", "labels/train", "labels/val"}) {
    fs::create_directories(fs::path(o.out) / sub, ec);
    if (ec)
      return Error{(fs::path(o.out) / sub).string(), 0, "out",
                   "cannot create folder: " + ec.message()};
  }
  struct Job {
    const char* split;
    int index;
  };
  std::vector<Job> jobs;
  for (int i = 0; i < o.train; ++i) jobs.push_back({"train", i});
  for (int i = 0; i < o.val; ++i) jobs.push_back({"val", i});
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::string failure;
  std::mutex failureMutex;
  auto work = [&] {
    for (size_t j; !failed && (j = next.fetch_add(1)) < jobs.size();) {
      const Job& job = jobs[j];
      const uint64_t seed =
          mixSeed(o.seed, job.split[0] == 't' ? 1 : 2, static_cast<uint64_t>(job.index));
      DemoImage img = renderDemoImage(seed, o.imgsz, o.minObjects, o.maxObjects);
      cv::Mat m(img.height, img.width, CV_8UC3, img.bgr.data());
      const std::vector<uint8_t> jpg = encodeJpegBgr(m, o.quality);
      char name[32];
      std::snprintf(name, sizeof name, "%06d", job.index);
      const fs::path ip = fs::path(o.out) / "images" / job.split / (std::string(name) + ".jpg");
      const fs::path lp = fs::path(o.out) / "labels" / job.split / (std::string(name) + ".txt");
      std::ofstream fi(ip, std::ios::binary | std::ios::trunc),
          fl(lp, std::ios::binary | std::ios::trunc);
      fi.write(reinterpret_cast<const char*>(jpg.data()), static_cast<std::streamsize>(jpg.size()));
      fl << img.labels;
      if (!fi || !fl) {
        std::lock_guard<std::mutex> lock(failureMutex);
        failure = "cannot write " + ip.string();
        failed = true;
      }
    }
  };
  int threads = o.threads > 0 ? o.threads
                              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failed) return Error{o.out, 0, "out", failure};
  YAML::Emitter yaml;
  config::emitComment(yaml, "Stave demo dataset (make-demo --seed " + std::to_string(o.seed) +
                                " --imgsz " + std::to_string(o.imgsz) + ")");
  yaml << YAML::BeginMap;
  yaml << YAML::Key << "path" << YAML::Value << ".";
  yaml << YAML::Key << "train" << YAML::Value << "images/train";
  yaml << YAML::Key << "val" << YAML::Value << "images/val";
  yaml << YAML::Key << "nc" << YAML::Value << demoClassNames().size();
  yaml << YAML::Key << "names" << YAML::Value << YAML::BeginSeq;
  for (const auto& n : demoClassNames()) yaml << n;
  yaml << YAML::EndSeq << YAML::EndMap;
  return writeFileAtomic((fs::path(o.out) / "data.yaml").string(), config::emittedText(yaml));
}

}  // namespace stave::data
