#include "core/model/yolo.h"

#include <algorithm>
#include <cmath>

#include "core/base/result.h"

namespace stave::model {

namespace nn = torch::nn;

ConvImpl::ConvImpl(int64_t c1, int64_t c2, int64_t k, int64_t s) {
  conv = register_module(
      "conv", nn::Conv2d(nn::Conv2dOptions(c1, c2, k).stride(s).padding(k / 2).bias(false)));
  // Ultralytics' initialize_weights(): BN eps 1e-3, momentum 0.03; conv keeps PyTorch's default
  // init.
  bn = register_module("bn", nn::BatchNorm2d(nn::BatchNorm2dOptions(c2).eps(1e-3).momentum(0.03)));
  act = register_module("act", nn::SiLU());
}

torch::Tensor ConvImpl::forward(torch::Tensor x) {
  if (is_training() && bnSync) return act(syncBatchNorm(conv(x), *bn, bnSync));
  if (!is_training() && folded.defined()) {
    // Inference with the BatchNorm folded into the convolution (foldBatchNorm()).
    const auto& o = conv->options;
    return act(torch::conv2d(x, folded, foldedBias, o.stride(),
                             std::get<torch::ExpandingArray<2>>(o.padding())));
  }
  return act(bn(conv(x)));
}

void ConvImpl::foldBatchNorm() {
  torch::NoGradGuard noGrad;
  const auto w = conv->weight;
  auto scale = (bn->running_var.to(torch::kFloat) + bn->options.eps()).rsqrt();
  if (bn->options.affine()) scale = scale * bn->weight.to(torch::kFloat);
  auto shift = -bn->running_mean.to(torch::kFloat) * scale;
  if (bn->options.affine()) shift = shift + bn->bias.to(torch::kFloat);
  // The folded weight keeps the convolution weight's memory format (channels_last stays NHWC).
  folded = (w.to(torch::kFloat) * scale.view({-1, 1, 1, 1})).to(w.scalar_type());
  foldedBias = shift.to(w.scalar_type());
}

void ConvImpl::unfoldBatchNorm() {
  folded = torch::Tensor();
  foldedBias = torch::Tensor();
}

namespace {

/// Per-channel view (1, C, 1, 1) for broadcasting against NCHW.
torch::Tensor channelView(const torch::Tensor& t) {
  return t.view({1, -1, 1, 1});
}

/// The autograd function behind syncBatchNorm. Inputs: x, weight, bias (tensors); the BN module
/// (running stats, eps, momentum) and the sync hook ride along as non-tensor arguments.
struct SyncBatchNormFunction : public torch::autograd::Function<SyncBatchNormFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& weight, const torch::Tensor& bias,
                               torch::nn::BatchNorm2dImpl* bn, BatchNormSync* sync) {
    // Statistics in float64: E[x^2] - mean^2 over a global batch cancels badly in float32, and
    // under autocast x may be bf16/fp16.
    const auto xf = x.to(torch::kFloat);
    const int64_t c = x.size(1);
    const double localCount = static_cast<double>(x.numel() / std::max<int64_t>(c, 1));
    auto packed = torch::cat({xf.sum({0, 2, 3}, false, torch::kDouble),
                              (xf * xf).sum({0, 2, 3}, false, torch::kDouble),
                              torch::full({1}, localCount, xf.options().dtype(torch::kDouble))});
    std::vector<torch::Tensor> one{packed};
    sync->allReduceSum(one);
    packed = one[0];
    const double count = packed[2 * c].item<double>();
    STAVE_CHECK(count > 0, "syncBatchNorm: empty batch on every rank");
    const auto mean = packed.narrow(0, 0, c) / count;
    const auto var = (packed.narrow(0, c, c) / count - mean * mean).clamp_min(0.0);
    const double eps = bn->options.eps();
    const auto invstd = (var + eps).rsqrt();

    {
      torch::NoGradGuard noGrad;
      if (bn->options.track_running_stats() && bn->running_mean.defined()) {
        bn->num_batches_tracked.add_(1);
        double m = 0.0;
        if (bn->options.momentum().has_value())
          m = *bn->options.momentum();
        else  // cumulative moving average, as PyTorch does with momentum=None
          m = 1.0 / static_cast<double>(bn->num_batches_tracked.item<int64_t>());
        const auto unbiased = count > 1 ? var * (count / (count - 1)) : var;
        bn->running_mean.mul_(1.0 - m).add_(mean.to(bn->running_mean.dtype()), m);
        bn->running_var.mul_(1.0 - m).add_(unbiased.to(bn->running_var.dtype()), m);
      }
    }

    const auto meanF = mean.to(torch::kFloat), invstdF = invstd.to(torch::kFloat);
    auto y = (xf - channelView(meanF)) * channelView(invstdF);
    if (weight.defined()) y = y * channelView(weight.to(torch::kFloat));
    if (bias.defined()) y = y + channelView(bias.to(torch::kFloat));
    ctx->save_for_backward({x, weight, meanF, invstdF});
    ctx->saved_data["count"] = count;
    ctx->saved_data["sync"] = reinterpret_cast<int64_t>(sync);
    ctx->saved_data["hasBias"] = bias.defined();
    return y.to(x.scalar_type());
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& x = saved[0];
    const auto& weight = saved[1];
    const auto& mean = saved[2];
    const auto& invstd = saved[3];
    const double count = ctx->saved_data["count"].toDouble();
    auto* sync = reinterpret_cast<BatchNormSync*>(ctx->saved_data["sync"].toInt());
    const int64_t c = x.size(1);

    const auto dy = grads[0].to(torch::kFloat);
    const auto xmu = x.to(torch::kFloat) - channelView(mean);
    const auto sumDy = dy.sum({0, 2, 3});
    const auto sumDyXmu = (dy * xmu).sum({0, 2, 3});
    // Always all-reduce (even when x needs no gradient): whether backward runs at all is decided
    // by the graph, which is the same on every rank, so the collectives stay in step.
    auto packed = torch::cat({sumDy.to(torch::kDouble), sumDyXmu.to(torch::kDouble)});
    std::vector<torch::Tensor> one{packed};
    sync->allReduceSum(one);
    packed = one[0];
    const auto meanDy = (packed.narrow(0, 0, c) / count).to(torch::kFloat);
    const auto meanDyXmu = (packed.narrow(0, c, c) / count).to(torch::kFloat);

    torch::Tensor gradInput;
    if (ctx->needs_input_grad(0)) {
      auto scale = invstd;
      if (weight.defined()) scale = scale * weight.to(torch::kFloat);
      gradInput = (dy - channelView(meanDy) - xmu * channelView(invstd * invstd * meanDyXmu)) *
                  channelView(scale);
      gradInput = gradInput.to(x.scalar_type());
    }
    // Local sums: gradient sync averages them like any other parameter gradient.
    torch::Tensor gradWeight, gradBias;
    if (weight.defined() && ctx->needs_input_grad(1))
      gradWeight = (sumDyXmu * invstd).to(weight.scalar_type());
    if (ctx->saved_data["hasBias"].toBool() && ctx->needs_input_grad(2))
      gradBias = sumDy.to(weight.defined() ? weight.scalar_type() : torch::kFloat);
    return {gradInput, gradWeight, gradBias, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

torch::Tensor syncBatchNorm(const torch::Tensor& x, torch::nn::BatchNorm2dImpl& bn,
                            const std::shared_ptr<BatchNormSync>& sync) {
  STAVE_CHECK(sync != nullptr, "syncBatchNorm without a BatchNormSync");
  STAVE_CHECK(x.dim() == 4, "syncBatchNorm expects NCHW input");
  const torch::Tensor weight = bn.options.affine() ? bn.weight : torch::Tensor();
  const torch::Tensor bias = bn.options.affine() ? bn.bias : torch::Tensor();
  return SyncBatchNormFunction::apply(x, weight, bias, &bn, sync.get());
}

BottleneckImpl::BottleneckImpl(int64_t c1, int64_t c2, bool shortcut) {
  cv1 = register_module("cv1", Conv(c1, c2, 3, 1));
  cv2 = register_module("cv2", Conv(c2, c2, 3, 1));
  add = shortcut && c1 == c2;
}

torch::Tensor BottleneckImpl::forward(torch::Tensor x) {
  auto y = cv2(cv1(x));
  return add ? x + y : y;
}

C2fImpl::C2fImpl(int64_t c1, int64_t c2, int64_t n, bool shortcut) {
  const int64_t c = c2 / 2;
  cv1 = register_module("cv1", Conv(c1, 2 * c, 1, 1));
  cv2 = register_module("cv2", Conv((2 + n) * c, c2, 1, 1));
  m = register_module("m", nn::ModuleList());
  for (int64_t i = 0; i < n; ++i) {
    m_blocks.emplace_back(c, c, shortcut);
    m->push_back(m_blocks.back());
  }
}

torch::Tensor C2fImpl::forward(torch::Tensor x) {
  std::vector<torch::Tensor> ys = cv1(x).chunk(2, 1);
  ys.reserve(2 + m_blocks.size());
  for (auto& block : m_blocks) ys.push_back(block(ys.back()));
  return cv2(torch::cat(ys, 1));
}

SPPFImpl::SPPFImpl(int64_t c1, int64_t c2, int64_t k) {
  const int64_t c = c1 / 2;
  cv1 = register_module("cv1", Conv(c1, c, 1, 1));
  cv2 = register_module("cv2", Conv(c * 4, c2, 1, 1));
  m = register_module("m", nn::MaxPool2d(nn::MaxPool2dOptions(k).stride(1).padding(k / 2)));
}

torch::Tensor SPPFImpl::forward(torch::Tensor x) {
  auto y0 = cv1(x);
  auto y1 = m(y0);
  auto y2 = m(y1);
  auto y3 = m(y2);
  return cv2(torch::cat({y0, y1, y2, y3}, 1));
}

torch::Tensor ConcatImpl::forward(const std::vector<torch::Tensor>& xs) {
  return torch::cat(xs, 1);
}

DFLImpl::DFLImpl(int64_t bins) : regMax(bins) {
  conv = register_module("conv", nn::Conv2d(nn::Conv2dOptions(bins, 1, 1).bias(false)));
  torch::NoGradGuard noGrad;
  conv->weight.copy_(torch::arange(bins, torch::kFloat).view({1, bins, 1, 1}));
  conv->weight.set_requires_grad(false);
}

torch::Tensor DFLImpl::forward(torch::Tensor x) {
  const int64_t b = x.size(0), a = x.size(2);
  // (B, 4*R, A) -> (B, R, 4, A): softmax over bins, then the conv takes the expectation.
  auto p = x.view({b, 4, regMax, a}).transpose(2, 1).softmax(1);
  return conv(p.to(conv->weight.dtype())).view({b, 4, a});
}

DetectImpl::DetectImpl(int64_t numClasses, int64_t bins, const std::vector<int64_t>& ch,
                       const std::vector<int64_t>& levelStrides)
    : nc(numClasses), regMax(bins), strides(levelStrides) {
  const int64_t cBox = std::max<int64_t>({16, ch[0] / 4, 4 * regMax});
  const int64_t cCls = std::max<int64_t>(ch[0], std::min<int64_t>(nc, 100));
  cv2 = register_module("cv2", nn::ModuleList());
  cv3 = register_module("cv3", nn::ModuleList());
  for (int64_t c : ch) {
    m_box.emplace_back(Conv(c, cBox, 3), Conv(cBox, cBox, 3),
                       nn::Conv2d(nn::Conv2dOptions(cBox, 4 * regMax, 1)));
    m_cls.emplace_back(Conv(c, cCls, 3), Conv(cCls, cCls, 3),
                       nn::Conv2d(nn::Conv2dOptions(cCls, nc, 1)));
    cv2->push_back(m_box.back());
    cv3->push_back(m_cls.back());
  }
  dfl = register_module("dfl", DFL(regMax));
  initBiases();
}

void DetectImpl::initBiases() {
  torch::NoGradGuard noGrad;
  for (size_t i = 0; i < m_box.size(); ++i) {
    // Box logits start at 2.0 as in Ultralytics 8.4 (8.0-8.3: 1.0). The DFL softmax over each
    // side's bins ignores a constant added to all of them, so this changes no output.
    m_box[i][2]->as<nn::Conv2dImpl>()->bias.fill_(2.0);
    // Prior: about 5 objects per 640x640 image spread over nc classes and this level's cells.
    const double cells = std::pow(640.0 / static_cast<double>(strides[i]), 2.0);
    m_cls[i][2]->as<nn::Conv2dImpl>()->bias.fill_(std::log(5.0 / static_cast<double>(nc) / cells));
  }
}

namespace {
/// A branch of the head: its two Conv blocks as autocast chooses, then the prediction
/// convolution in float32. The logits feed the DFL softmax and the class BCE directly; in bf16
/// (8 significant bits) they would be rounded by about 0.4% of their size.
torch::Tensor branchForward(nn::Sequential& branch, const torch::Tensor& x) {
  auto h = branch[1]->as<ConvImpl>()->forward(branch[0]->as<ConvImpl>()->forward(x));
  AutocastOff off;
  return branch[2]->as<nn::Conv2dImpl>()->forward(h.to(torch::kFloat));
}
}  // namespace

std::vector<torch::Tensor> DetectImpl::forward(const std::vector<torch::Tensor>& xs) {
  std::vector<torch::Tensor> out;
  out.reserve(xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    out.push_back(torch::cat({branchForward(m_box[i], xs[i]), branchForward(m_cls[i], xs[i])}, 1));
  return out;
}

YoloImpl::YoloImpl(const ModelOptions& options) : m_options(options) {
  auto specResult = scaleSpec(options.scale);
  if (!specResult.ok()) throw InternalError("Yolo: " + specResult.errorText());
  if (options.nc < 1 || options.regMax < 2) {
    throw InternalError("Yolo: nc must be >= 1 and regMax >= 2 (nc " + std::to_string(options.nc) +
                        ", regMax " + std::to_string(options.regMax) + ")");
  }
  const ScaleSpec spec = specResult.value();
  auto ch = [&](int64_t c) { return scaledChannels(spec, c); };
  auto dep = [&](int64_t n) { return scaledDepth(spec, n); };
  const int64_t c0 = ch(64), c1 = ch(128), c3 = ch(256), c5 = ch(512), c7 = ch(1024);
  const int64_t c12 = ch(512), c15 = ch(256), c18 = ch(512), c21 = ch(1024);
  auto up = [] {
    return nn::Upsample(
        nn::UpsampleOptions().scale_factor(std::vector<double>{2.0, 2.0}).mode(torch::kNearest));
  };

  m_l0 = Conv(3, c0, 3, 2);
  m_l1 = Conv(c0, c1, 3, 2);
  m_l2 = C2f(c1, c1, dep(3), true);
  m_l3 = Conv(c1, c3, 3, 2);
  m_l4 = C2f(c3, c3, dep(6), true);
  m_l5 = Conv(c3, c5, 3, 2);
  m_l6 = C2f(c5, c5, dep(6), true);
  m_l7 = Conv(c5, c7, 3, 2);
  m_l8 = C2f(c7, c7, dep(3), true);
  m_l9 = SPPF(c7, c7, 5);
  m_l10 = up();
  m_l11 = Concat();
  m_l12 = C2f(c7 + c5, c12, dep(3), false);
  m_l13 = up();
  m_l14 = Concat();
  m_l15 = C2f(c12 + c3, c15, dep(3), false);
  m_l16 = Conv(c15, c15, 3, 2);
  m_l17 = Concat();
  m_l18 = C2f(c15 + c12, c18, dep(3), false);
  m_l19 = Conv(c18, c18, 3, 2);
  m_l20 = Concat();
  m_l21 = C2f(c18 + c7, c21, dep(3), false);
  m_detect = Detect(options.nc, options.regMax, std::vector<int64_t>{c15, c18, c21}, m_strides);

  m_layers = register_module("model", nn::ModuleList());
  m_layers->push_back(m_l0);
  m_layers->push_back(m_l1);
  m_layers->push_back(m_l2);
  m_layers->push_back(m_l3);
  m_layers->push_back(m_l4);
  m_layers->push_back(m_l5);
  m_layers->push_back(m_l6);
  m_layers->push_back(m_l7);
  m_layers->push_back(m_l8);
  m_layers->push_back(m_l9);
  m_layers->push_back(m_l10);
  m_layers->push_back(m_l11);
  m_layers->push_back(m_l12);
  m_layers->push_back(m_l13);
  m_layers->push_back(m_l14);
  m_layers->push_back(m_l15);
  m_layers->push_back(m_l16);
  m_layers->push_back(m_l17);
  m_layers->push_back(m_l18);
  m_layers->push_back(m_l19);
  m_layers->push_back(m_l20);
  m_layers->push_back(m_l21);
  m_layers->push_back(m_detect);
  freeze(0);
}

std::vector<torch::Tensor> YoloImpl::forward(torch::Tensor x) {
  STAVE_CHECK(x.dim() == 4 && x.size(1) == 3 && x.size(2) % 32 == 0 && x.size(3) % 32 == 0 &&
                  x.size(2) > 0 && x.size(3) > 0,
              "Yolo::forward: input must be (B, 3, H, W) with H and W multiples of 32");
  auto x2 = m_l2(m_l1(m_l0(x)));
  auto p3 = m_l4(m_l3(x2));
  auto p4 = m_l6(m_l5(p3));
  auto p5 = m_l9(m_l8(m_l7(p4)));
  auto x12 = m_l12(m_l11->forward({m_l10(p5), p4}));
  auto x15 = m_l15(m_l14->forward({m_l13(x12), p3}));
  auto x18 = m_l18(m_l17->forward({m_l16(x15), x12}));
  auto x21 = m_l21(m_l20->forward({m_l19(x18), p5}));
  return m_detect->forward({x15, x18, x21});
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
