#include "core/model/model_info.h"

#include <algorithm>
#include <cmath>

namespace stave::model {

const std::vector<std::string>& modelScales() {
  static const std::vector<std::string> scales{"n", "s", "m", "l", "x"};
  return scales;
}

Result<ScaleSpec> scaleSpec(const std::string& scale) {
  std::string s = scale;
  if (s.rfind("yolov8", 0) == 0) s = s.substr(6);
  if (s.size() > 3 && s.compare(s.size() - 3, 3, ".pt") == 0) s = s.substr(0, s.size() - 3);
  // Ultralytics' architecture file names (yolov8n.yaml), as the config schema accepts them.
  if (s.size() > 5 && s.compare(s.size() - 5, 5, ".yaml") == 0) s = s.substr(0, s.size() - 5);
  if (s == "n") return ScaleSpec{0.33, 0.25, 1024};
  if (s == "s") return ScaleSpec{0.33, 0.50, 1024};
  if (s == "m") return ScaleSpec{0.67, 0.75, 768};
  if (s == "l") return ScaleSpec{1.00, 1.00, 512};
  if (s == "x") return ScaleSpec{1.00, 1.25, 512};
  return Error{"", 0, "model",
               "unknown scale '" + scale + "' (valid: n, s, m, l, x or yolov8n..yolov8x)"};
}

int64_t scaledChannels(const ScaleSpec& spec, int64_t channels) {
  const double c = static_cast<double>(std::min<int64_t>(channels, spec.maxChannels)) * spec.width;
  return static_cast<int64_t>(std::ceil(c / 8.0)) * 8;
}

int64_t scaledDepth(const ScaleSpec& spec, int64_t repeats) {
  if (repeats <= 1) return repeats;
  // Python's round() (banker's rounding) never matters here: n * depth is never exactly x.5.
  return std::max<int64_t>(static_cast<int64_t>(std::lround(repeats * spec.depth)), 1);
}

namespace {

// Walks the architecture in the same order as yolo.cpp builds it, accumulating parameters, MACs
// and modules. Kept as a separate walk (not a query of the torch model) so that the unit test can
// check one against the other.
class Counter {
 public:
  int64_t params = 0;
  double macs = 0;
  int modules = 0;

  // Conv block: Conv2d (no bias) + BN + the shared SiLU (counted once for the model).
  void conv(int64_t c1, int64_t c2, int64_t k, int64_t hw) {
    params += c2 * c1 * k * k + 2 * c2;
    macs += static_cast<double>(hw) * hw * c2 * c1 * k * k;
    modules += 3;
  }
  // Plain Conv2d with bias (detect head outputs).
  void conv2d(int64_t c1, int64_t c2, int64_t hw) {
    params += c2 * c1 + c2;
    macs += static_cast<double>(hw) * hw * c2 * (c1 + 1);
    modules += 1;
  }
  void c2f(int64_t c1, int64_t c2, int64_t n, int64_t hw) {
    const int64_t c = c2 / 2;
    conv(c1, 2 * c, 1, hw);
    for (int64_t i = 0; i < n; ++i) {
      conv(c, c, 3, hw);
      conv(c, c, 3, hw);
      modules += 1;  // Bottleneck
    }
    conv((2 + n) * c, c2, 1, hw);
    modules += 2;  // C2f, ModuleList m
  }
  void sppf(int64_t c1, int64_t c2, int64_t hw) {
    const int64_t c = c1 / 2;
    conv(c1, c, 1, hw);
    conv(4 * c, c2, 1, hw);
    modules += 2;  // SPPF, MaxPool2d
  }
};

}  // namespace

ModelInfo modelInfo(const std::string& scale, int nc, int imgsz) {
  auto specResult = scaleSpec(scale);
  if (!specResult.ok() || nc < 1 || imgsz < 32 || imgsz % 32 != 0) {
    throw InternalError("modelInfo: bad arguments (scale '" + scale + "', nc " +
                        std::to_string(nc) + ", imgsz " + std::to_string(imgsz) + ")");
  }
  const ScaleSpec& spec = specResult.value();
  auto ch = [&](int64_t c) { return scaledChannels(spec, c); };
  auto dep = [&](int64_t n) { return scaledDepth(spec, n); };
  const int64_t s = imgsz;
  const int regMax = 16;
  Counter k;

  const int64_t c0 = ch(64), c1 = ch(128), c3 = ch(256), c5 = ch(512), c7 = ch(1024);
  k.conv(3, c0, 3, s / 2);        // 0
  k.conv(c0, c1, 3, s / 4);       // 1
  k.c2f(c1, c1, dep(3), s / 4);   // 2
  k.conv(c1, c3, 3, s / 8);       // 3
  k.c2f(c3, c3, dep(6), s / 8);   // 4 (P3)
  k.conv(c3, c5, 3, s / 16);      // 5
  k.c2f(c5, c5, dep(6), s / 16);  // 6 (P4)
  k.conv(c5, c7, 3, s / 32);      // 7
  k.c2f(c7, c7, dep(3), s / 32);  // 8
  k.sppf(c7, c7, s / 32);         // 9 (P5)
  const int64_t c12 = ch(512), c15 = ch(256), c18 = ch(512), c21 = ch(1024);
  k.modules += 2;                         // 10 upsample, 11 concat
  k.c2f(c7 + c5, c12, dep(3), s / 16);    // 12
  k.modules += 2;                         // 13, 14
  k.c2f(c12 + c3, c15, dep(3), s / 8);    // 15 (out P3)
  k.conv(c15, c15, 3, s / 16);            // 16
  k.modules += 1;                         // 17
  k.c2f(c15 + c12, c18, dep(3), s / 16);  // 18 (out P4)
  k.conv(c18, c18, 3, s / 32);            // 19
  k.modules += 1;                         // 20
  k.c2f(c18 + c7, c21, dep(3), s / 32);   // 21 (out P5)

  // 22 Detect
  const int64_t chs[3] = {c15, c18, c21};
  const int64_t hws[3] = {s / 8, s / 16, s / 32};
  const int64_t cBox = std::max<int64_t>({16, chs[0] / 4, 4 * regMax});
  const int64_t cCls = std::max<int64_t>(chs[0], std::min(nc, 100));
  int64_t anchors = 0;
  for (int i = 0; i < 3; ++i) {
    k.conv(chs[i], cBox, 3, hws[i]);
    k.conv(cBox, cBox, 3, hws[i]);
    k.conv2d(cBox, 4 * regMax, hws[i]);
    k.conv(chs[i], cCls, 3, hws[i]);
    k.conv(cCls, cCls, 3, hws[i]);
    k.conv2d(cCls, nc, hws[i]);
    k.modules += 2;  // the two Sequentials
    anchors += hws[i] * hws[i];
  }
  // DFL's fixed 1x1 conv (regMax -> 1) over the 4 sides of every anchor.
  k.params += regMax;
  k.macs += static_cast<double>(anchors) * 4 * regMax;
  k.modules += 1 + 2 + 2;  // Detect, cv2/cv3 ModuleLists, DFL + its conv

  ModelInfo info;
  info.params = k.params;
  info.gflops = 2.0 * k.macs / 1e9;
  info.layers = k.modules + 3;  // DetectionModel, its Sequential, the shared SiLU
  return info;
}

}  // namespace stave::model
