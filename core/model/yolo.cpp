#include "core/model/yolo.h"

#include <algorithm>
#include <cmath>

#include "core/base/result.h"

namespace stave::model {

namespace nn = torch::nn;

namespace {

std::shared_ptr<const Architecture> resolveArchitecture(const ModelOptions& options) {
  if (options.architecture) return options.architecture;
  auto arch = architectureFor(options.scale, options.nc);
  if (!arch.ok()) throw InternalError("Yolo: " + arch.errorText());
  if (options.regMax < 2)
    throw InternalError("Yolo: regMax must be >= 2 (regMax " + std::to_string(options.regMax) +
                        ")");
  auto out = std::make_shared<Architecture>(std::move(arch).value());
  if (out->regMax != options.regMax) {
    out->regMax = options.regMax;
    auto& d = out->layers.back();
    d.c2 = 4 * out->regMax + out->nc;
    d.args[1] = out->regMax;
    out->yaml["reg_max"] = out->regMax;
  }
  return out;
}

}  // namespace

YoloImpl::YoloImpl(const ModelOptions& options)
    : m_options(options), m_arch(resolveArchitecture(options)) {
  const Architecture& a = *m_arch;
  if (a.nc < 1 || a.regMax < 2 || a.layers.empty() || a.layers.back().module != "Detect") {
    throw InternalError("Yolo: nc must be >= 1 and regMax >= 2, Detect last (nc " +
                        std::to_string(a.nc) + ", regMax " + std::to_string(a.regMax) + ")");
  }
  m_options.nc = a.nc;
  m_options.regMax = a.regMax;
  m_strides = a.strides;

  // Layers are constructed in index order: the random initialisation draws follow it, so a
  // seed gives the same weights as the hand-wired YOLOv8 before.
  m_layers = register_module("model", nn::ModuleList());
  std::vector<bool> keep(a.layers.size(), false);
  for (int s : a.save) keep[s] = true;
  for (const LayerSpec& l : a.layers) {
    if (l.module == "Detect") {
      std::vector<int64_t> ch(l.inChannels.begin(), l.inChannels.end());
      m_detect = Detect(a.nc, a.regMax, ch, m_strides, a.legacyHead);
      m_layers->push_back(m_detect);
      break;
    }
    Layer r;
    r.spec = &l;
    r.keep = keep[l.index];
    if (l.module == "Conv") {
      r.conv = Conv(l.c1, l.c2, l.kernel, l.stride, l.groups, l.act);
      m_layers->push_back(r.conv);
    } else if (l.module == "C2f" || l.module == "C3k2") {
      const auto blocks = l.module == "C2f" ? C2fImpl::Blocks::C2f
                          : l.c3k           ? C2fImpl::Blocks::C3k
                                            : C2fImpl::Blocks::Bottleneck;
      r.c2f = C2f(l.c1, l.c2, l.repeats, l.shortcut, l.groups, l.expansion, blocks);
      m_layers->push_back(r.c2f);
    } else if (l.module == "SPPF") {
      r.sppf = SPPF(l.c1, l.c2, l.kernel);
      m_layers->push_back(r.sppf);
    } else if (l.module == "C2PSA") {
      r.c2psa = C2PSA(l.c1, l.repeats, l.expansion);
      m_layers->push_back(r.c2psa);
    } else if (l.module == "nn.Upsample") {
      const auto f = static_cast<double>(l.stride);
      r.upsample = nn::Upsample(
          nn::UpsampleOptions().scale_factor(std::vector<double>{f, f}).mode(torch::kNearest));
      m_layers->push_back(r.upsample);
    } else if (l.module == "Concat") {
      r.concat = Concat();
      m_layers->push_back(r.concat);
    } else {
      throw InternalError("Yolo: layer " + std::to_string(l.index) + ": no builder for module '" +
                          l.module + "'");
    }
    m_run.push_back(std::move(r));
  }
  freeze(0);
}

std::vector<torch::Tensor> YoloImpl::forward(torch::Tensor x) {
  const int64_t s = m_strides.empty() ? 32 : *std::max_element(m_strides.begin(), m_strides.end());
  STAVE_CHECK(
      x.dim() == 4 && x.size(1) == 3 && x.size(2) % s == 0 && x.size(3) % s == 0 && x.size(2) > 0 &&
          x.size(3) > 0,
      "Yolo::forward: input must be (B, 3, H, W) with H and W multiples of " + std::to_string(s));
  // Ultralytics' _predict_once: each layer reads the previous output or saved ones; only the
  // outputs a later layer reads again (the architecture's `save`) are kept.
  std::vector<torch::Tensor> saved(m_run.size() + 1);
  torch::Tensor last = x;
  auto input = [&](int from, int i) { return from < 0 || from == i - 1 ? last : saved[from]; };
  for (size_t i = 0; i < m_run.size(); ++i) {
    Layer& r = m_run[i];
    const LayerSpec& l = *r.spec;
    const int idx = static_cast<int>(i);
    if (!r.concat.is_empty()) {
      std::vector<torch::Tensor> xs;
      xs.reserve(l.from.size());
      for (int f : l.from) xs.push_back(input(f, idx));
      last = r.concat->forward(xs);
    } else {
      const auto in = input(l.from[0], idx);
      if (!r.conv.is_empty())
        last = r.conv->forward(in);
      else if (!r.c2f.is_empty())
        last = r.c2f->forward(in);
      else if (!r.sppf.is_empty())
        last = r.sppf->forward(in);
      else if (!r.c2psa.is_empty())
        last = r.c2psa->forward(in);
      else
        last = r.upsample->forward(in);
    }
    if (r.keep) saved[i] = last;
  }
  std::vector<torch::Tensor> levels;
  const int detectIdx = static_cast<int>(m_run.size());
  for (int f : m_arch->detectFrom) levels.push_back(input(f, detectIdx));
  return m_detect->forward(levels);
}

void YoloImpl::setBatchNormSync(std::shared_ptr<BatchNormSync> sync) {
  for (const auto& m : modules(/*include_self=*/false))
    if (auto* conv = m->as<ConvImpl>()) conv->bnSync = sync;
}

void YoloImpl::foldBatchNorm() {
  for (const auto& m : modules(/*include_self=*/false))
    if (auto* conv = m->as<ConvImpl>()) conv->foldBatchNorm();
}

void YoloImpl::unfoldBatchNorm() {
  for (const auto& m : modules(/*include_self=*/false))
    if (auto* conv = m->as<ConvImpl>()) conv->unfoldBatchNorm();
}

void YoloImpl::freeze(int n) {
  for (auto& item : named_parameters(true)) {
    const std::string& name = item.key();
    bool frozen = name.find(".dfl") != std::string::npos;
    for (int i = 0; i < n && !frozen; ++i)
      frozen = name.rfind("model." + std::to_string(i) + ".", 0) == 0;
    item.value().set_requires_grad(!frozen);
  }
}

std::pair<torch::Tensor, torch::Tensor> makeAnchors(const std::vector<torch::Tensor>& feats,
                                                    const std::vector<int64_t>& strides,
                                                    double offset) {
  STAVE_CHECK(feats.size() == strides.size(), "makeAnchors: one stride per level");
  std::vector<torch::Tensor> points, strideParts;
  const auto opts = torch::TensorOptions().dtype(torch::kFloat).device(feats.at(0).device());
  for (size_t i = 0; i < feats.size(); ++i) {
    const int64_t h = feats[i].size(2), w = feats[i].size(3);
    auto sx = torch::arange(w, opts) + offset;
    auto sy = torch::arange(h, opts) + offset;
    auto grid = torch::meshgrid({sy, sx}, "ij");
    points.push_back(torch::stack({grid[1], grid[0]}, -1).view({-1, 2}));
    strideParts.push_back(torch::full({h * w, 1}, static_cast<double>(strides[i]), opts));
  }
  return {torch::cat(points, 0), torch::cat(strideParts, 0)};
}

torch::Tensor distToBbox(const torch::Tensor& distance, const torch::Tensor& anchorPoints) {
  auto lt = distance.narrow(-1, 0, 2);
  auto rb = distance.narrow(-1, 2, 2);
  return torch::cat({anchorPoints - lt, anchorPoints + rb}, -1);
}

torch::Tensor decodePredictions(const YoloImpl& model, const std::vector<torch::Tensor>& feats) {
  STAVE_CHECK(feats.size() == model.strides().size(),
              "decodePredictions: expected one feature map per stride");
  AutocastOff autocastOff;
  const int64_t b = feats[0].size(0);
  const int64_t regMax = model.regMax();
  const int64_t no = 4 * regMax + model.nc();
  std::vector<torch::Tensor> flat;
  for (const auto& f : feats) flat.push_back(f.to(torch::kFloat).reshape({b, no, -1}));
  auto x = torch::cat(flat, 2);                                                // (B, no, A)
  auto dist = model.detect()->dfl.ptr()->forward(x.narrow(1, 0, 4 * regMax));  // (B, 4, A)
  auto [anchors, strideTensor] = makeAnchors(feats, model.strides(), 0.5);
  auto boxes = distToBbox(dist.transpose(1, 2), anchors.unsqueeze(0)) * strideTensor.unsqueeze(0);
  auto scores = x.narrow(1, 4 * regMax, model.nc()).transpose(1, 2).sigmoid();
  return torch::cat({boxes, scores}, 2);
}

}  // namespace stave::model
