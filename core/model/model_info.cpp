#include "core/model/model_info.h"

#include <algorithm>
#include <cmath>

namespace stave::model {

const std::vector<std::string>& modelScales() {
  static const std::vector<std::string> scales{"n", "s", "m", "l", "x"};
  return scales;
}

Result<ScaleSpec> scaleSpec(const std::string& scale) {
  auto arch = architectureFor(scale, 80);
  if (!arch.ok()) return arch.errors();
  return ScaleSpec{arch->depth, arch->width, static_cast<int>(arch->maxChannels)};
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

// Walks the architecture module by module as Ultralytics builds it, accumulating parameters,
// MACs and modules. Kept apart from the torch model (not a query of it) so that the unit test
// can check one against the other.
class Counter {
 public:
  int64_t params = 0;
  double macs = 0;
  int modules = 0;     // every module once (containers too), the shared SiLU counted at the end
  int leaves = 0;      // modules without children
  int convBlocks = 0;  // Conv blocks (a BatchNorm each)
  int64_t convChannels = 0;  // their output channels (the BatchNorms' size)

  // Conv block: Conv2d (no bias, g groups) + BN + the shared SiLU, or its own nn.Identity when
  // act=False.
  void conv(int64_t c1, int64_t c2, int64_t k, int64_t hw, int64_t g = 1, bool act = true) {
    params += c2 * (c1 / g) * k * k + 2 * c2;
    macs += static_cast<double>(hw) * hw * c2 * (c1 / g) * k * k;
    modules += act ? 3 : 4;
    leaves += act ? 2 : 3;
    convBlocks += 1;
    convChannels += c2;
  }
  // Plain Conv2d with bias (detect head outputs).
  void conv2d(int64_t c1, int64_t c2, int64_t hw) {
    params += c2 * c1 + c2;
    macs += static_cast<double>(hw) * hw * c2 * (c1 + 1);
    modules += 1;
    leaves += 1;
  }
  // Bottleneck(c1, c2, shortcut, g, (k1, k2), e).
  void bottleneck(int64_t c1, int64_t c2, int64_t g, int64_t k1, int64_t k2, double e, int64_t hw) {
    const auto c = static_cast<int64_t>(static_cast<double>(c2) * e);
    conv(c1, c, k1, hw);
    conv(c, c2, k2, hw, g);
    modules += 1;
  }
  void c3k(int64_t c1, int64_t c2, int64_t n, int64_t g, int64_t hw) {
    const int64_t c = c2 / 2;
    conv(c1, c, 1, hw);
    conv(c1, c, 1, hw);
    conv(2 * c, c2, 1, hw);
    for (int64_t i = 0; i < n; ++i) bottleneck(c, c, g, 3, 3, 1.0, hw);
    modules += 2;  // C3k, Sequential m
  }
  // C2f and C3k2 (blocks: 0 = C2f's bottlenecks, 1 = half-width bottlenecks, 2 = C3k).
  void c2f(const LayerSpec& l, int blocks, int64_t hw) {
    const auto c = static_cast<int64_t>(static_cast<double>(l.c2) * l.expansion);
    conv(l.c1, 2 * c, 1, hw);
    conv((2 + l.repeats) * c, l.c2, 1, hw);
    for (int64_t i = 0; i < l.repeats; ++i) {
      if (blocks == 2)
        c3k(c, c, 2, l.groups, hw);
      else
        bottleneck(c, c, l.groups, 3, 3, blocks == 0 ? 1.0 : 0.5, hw);
    }
    modules += 2;  // the block, ModuleList m
  }
  void sppf(int64_t c1, int64_t c2, int64_t hw) {
    const int64_t c = c1 / 2;
    conv(c1, c, 1, hw);
    conv(4 * c, c2, 1, hw);
    modules += 2;  // SPPF, MaxPool2d
    leaves += 1;
  }
  void attention(int64_t dim, int64_t heads, int64_t hw) {
    const int64_t keyDim = static_cast<int64_t>(static_cast<double>(dim / heads) * 0.5);
    conv(dim, dim + 2 * keyDim * heads, 1, hw, 1, false);
    conv(dim, dim, 1, hw, 1, false);
    conv(dim, dim, 3, hw, dim, false);
    modules += 1;
    // The two matrix products over the N = hw^2 cells (thop 2.2 counts them; softmax is free):
    // q^T k (keyDim per pair) and v attn^T (headDim per pair), per head.
    const double cells = static_cast<double>(hw) * hw;
    macs += static_cast<double>(heads) * cells * cells * (keyDim + dim / heads);
  }
  void c2psa(const LayerSpec& l, int64_t hw) {
    const auto c = static_cast<int64_t>(static_cast<double>(l.c1) * l.expansion);
    conv(l.c1, 2 * c, 1, hw);
    conv(2 * c, l.c1, 1, hw);
    for (int64_t i = 0; i < l.repeats; ++i) {
      attention(c, std::max<int64_t>(c / 64, 1), hw);
      conv(c, 2 * c, 1, hw);
      conv(2 * c, c, 1, hw, 1, false);
      modules += 2;  // PSABlock, Sequential ffn
    }
    modules += 2;  // C2PSA, Sequential m
  }
  void detect(const Architecture& a, int64_t imgsz) {
    const auto& ch = a.detect().inChannels;
    const int64_t nc = a.nc, regMax = a.regMax;
    const int64_t cBox = std::max<int64_t>({16, ch[0] / 4, 4 * regMax});
    const int64_t cCls = std::max<int64_t>(ch[0], std::min<int64_t>(nc, 100));
    int64_t anchors = 0;
    for (size_t i = 0; i < ch.size(); ++i) {
      const int64_t hw = imgsz / a.strides[i];
      conv(ch[i], cBox, 3, hw);
      conv(cBox, cBox, 3, hw);
      conv2d(cBox, 4 * regMax, hw);
      if (a.legacyHead) {
        conv(ch[i], cCls, 3, hw);
        conv(cCls, cCls, 3, hw);
      } else {
        conv(ch[i], ch[i], 3, hw, ch[i]);  // DWConv
        conv(ch[i], cCls, 1, hw);
        conv(cCls, cCls, 3, hw, cCls);  // DWConv
        conv(cCls, cCls, 1, hw);
        modules += 2;  // the two inner Sequentials
      }
      conv2d(cCls, nc, hw);
      modules += 2;  // the two Sequentials
      anchors += hw * hw;
    }
    // DFL's fixed 1x1 conv (regMax -> 1) over the 4 sides of every anchor.
    params += regMax;
    macs += static_cast<double>(anchors) * 4 * regMax;
    modules += 1 + 2 + 2;  // Detect, cv2/cv3 ModuleLists, DFL + its conv
    leaves += 1;           // DFL's conv
  }
};

}  // namespace

ModelInfo modelInfo(const Architecture& a, int imgsz) {
  const int64_t maxStride =
      a.strides.empty() ? 32 : *std::max_element(a.strides.begin(), a.strides.end());
  if (imgsz < maxStride || imgsz % maxStride != 0 || a.layers.empty())
    throw InternalError("modelInfo: bad arguments (" + a.name + ", imgsz " + std::to_string(imgsz) +
                        ")");
  Counter k;
  for (const LayerSpec& l : a.layers) {
    const int64_t hw = imgsz / l.outStride;
    if (l.module == "Conv") {
      k.conv(l.c1, l.c2, l.kernel, hw, l.groups, l.act);
    } else if (l.module == "C2f") {
      k.c2f(l, 0, hw);
    } else if (l.module == "C3k2") {
      k.c2f(l, l.c3k ? 2 : 1, hw);
    } else if (l.module == "SPPF") {
      k.sppf(l.c1, l.c2, hw);
    } else if (l.module == "C2PSA") {
      k.c2psa(l, hw);
    } else if (l.module == "nn.Upsample" || l.module == "Concat") {
      k.modules += 1;
      k.leaves += 1;
    } else if (l.module == "Detect") {
      k.detect(a, imgsz);
    } else {
      throw InternalError("modelInfo: no count for module '" + l.module + "'");
    }
  }
  ModelInfo info;
  info.params = k.params;
  info.gflops = 2.0 * k.macs / 1e9;
  info.layers = k.modules + 3;     // DetectionModel, its Sequential, the shared SiLU
  info.leafLayers = k.leaves + 1;  // the shared SiLU
  // fuse(): each BatchNorm (2 x c2 parameters, a module) goes, its conv gains a bias (c2).
  info.fusedParams = k.params - k.convChannels;
  info.fusedLeafLayers = info.leafLayers - k.convBlocks;
  return info;
}

ModelInfo modelInfo(const std::string& scale, int nc, int imgsz) {
  auto arch = architectureFor(scale, nc);
  if (!arch.ok() || nc < 1 || imgsz < 32 || imgsz % 32 != 0) {
    throw InternalError("modelInfo: bad arguments (scale '" + scale + "', nc " +
                        std::to_string(nc) + ", imgsz " + std::to_string(imgsz) + ")");
  }
  return modelInfo(arch.value(), imgsz);
}

}  // namespace stave::model
