#include "core/model/yolo_blocks.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/base/result.h"

namespace stave::model {

namespace nn = torch::nn;

ConvImpl::ConvImpl(int64_t c1, int64_t c2, int64_t k, int64_t s, int64_t g, bool activate) {
  conv = register_module(
      "conv",
      nn::Conv2d(nn::Conv2dOptions(c1, c2, k).stride(s).padding(k / 2).groups(g).bias(false)));
  // Ultralytics' initialize_weights(): BN eps 1e-3, momentum 0.03; conv keeps PyTorch's default
  // init.
  bn = register_module("bn", nn::BatchNorm2d(nn::BatchNorm2dOptions(c2).eps(1e-3).momentum(0.03)));
  if (activate) act = register_module("act", nn::SiLU());
}

torch::Tensor ConvImpl::forward(torch::Tensor x) {
  torch::Tensor y;
  if (is_training() && bnSync) {
    y = syncBatchNorm(conv(x), *bn, bnSync);
  } else if (!is_training() && folded.defined()) {
    // Inference with the BatchNorm folded into the convolution (foldBatchNorm()).
    const auto& o = conv->options;
    y = torch::conv2d(x, folded, foldedBias, o.stride(),
                      std::get<torch::ExpandingArray<2>>(o.padding()), o.dilation(), o.groups());
  } else {
    y = bn(conv(x));
  }
  return act.is_empty() ? y : act(y);
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

BottleneckImpl::BottleneckImpl(int64_t c1, int64_t c2, bool shortcut, int64_t g, int64_t k1,
                               int64_t k2, double e) {
  const auto c = static_cast<int64_t>(static_cast<double>(c2) * e);
  cv1 = register_module("cv1", Conv(c1, c, k1, 1));
  cv2 = register_module("cv2", Conv(c, c2, k2, 1, g));
  add = shortcut && c1 == c2;
}

torch::Tensor BottleneckImpl::forward(torch::Tensor x) {
  auto y = cv2(cv1(x));
  return add ? x + y : y;
}

C3kImpl::C3kImpl(int64_t c1, int64_t c2, int64_t n, bool shortcut, int64_t g, double e, int64_t k) {
  const auto c = static_cast<int64_t>(static_cast<double>(c2) * e);
  cv1 = register_module("cv1", Conv(c1, c, 1, 1));
  cv2 = register_module("cv2", Conv(c1, c, 1, 1));
  cv3 = register_module("cv3", Conv(2 * c, c2, 1));
  m = register_module("m", nn::Sequential());
  for (int64_t i = 0; i < n; ++i) {
    m_blocks.emplace_back(c, c, shortcut, g, k, k, 1.0);
    m->push_back(m_blocks.back());
  }
}

torch::Tensor C3kImpl::forward(torch::Tensor x) {
  auto y = cv1(x);
  for (auto& block : m_blocks) y = block(y);
  return cv3(torch::cat({y, cv2(x)}, 1));
}

C2fImpl::C2fImpl(int64_t c1, int64_t c2, int64_t n, bool shortcut, int64_t g, double e,
                 Blocks blocks) {
  const auto c = static_cast<int64_t>(static_cast<double>(c2) * e);
  cv1 = register_module("cv1", Conv(c1, 2 * c, 1, 1));
  cv2 = register_module("cv2", Conv((2 + n) * c, c2, 1, 1));
  m = register_module("m", nn::ModuleList());
  for (int64_t i = 0; i < n; ++i) {
    if (blocks == Blocks::C3k) {
      m_c3ks.emplace_back(c, c, 2, shortcut, g, 0.5, 3);
      m->push_back(m_c3ks.back());
    } else {
      m_bottlenecks.emplace_back(c, c, shortcut, g, 3, 3, blocks == Blocks::C2f ? 1.0 : 0.5);
      m->push_back(m_bottlenecks.back());
    }
  }
}

torch::Tensor C2fImpl::forward(torch::Tensor x) {
  std::vector<torch::Tensor> ys = cv1(x).chunk(2, 1);
  ys.reserve(2 + m_bottlenecks.size() + m_c3ks.size());
  for (auto& block : m_bottlenecks) ys.push_back(block(ys.back()));
  for (auto& block : m_c3ks) ys.push_back(block(ys.back()));
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

AttentionImpl::AttentionImpl(int64_t dim, int64_t heads, double attnRatio)
    : numHeads(heads),
      headDim(dim / heads),
      keyDim(static_cast<int64_t>(static_cast<double>(dim / heads) * attnRatio)),
      scale(std::pow(static_cast<double>(keyDim), -0.5)) {
  const int64_t h = dim + 2 * keyDim * numHeads;
  qkv = register_module("qkv", Conv(dim, h, 1, 1, 1, false));
  proj = register_module("proj", Conv(dim, dim, 1, 1, 1, false));
  pe = register_module("pe", Conv(dim, dim, 3, 1, dim, false));
}

torch::Tensor AttentionImpl::forward(torch::Tensor x) {
  const int64_t b = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const auto parts =
      qkv(x).view({b, numHeads, 2 * keyDim + headDim, h * w}).split({keyDim, keyDim, headDim}, 2);
  const auto& q = parts[0];
  const auto& k = parts[1];
  const auto& v = parts[2];
  const auto attn = torch::matmul((q * scale).transpose(-2, -1), k).softmax(-1);
  auto y =
      torch::matmul(v, attn.transpose(-2, -1)).view({b, c, h, w}) + pe(v.reshape({b, c, h, w}));
  return proj(y);
}

PSABlockImpl::PSABlockImpl(int64_t c, double attnRatio, int64_t numHeads, bool shortcut)
    : add(shortcut) {
  attn = register_module("attn", Attention(c, numHeads, attnRatio));
  m_ffn0 = Conv(c, 2 * c, 1);
  m_ffn1 = Conv(2 * c, c, 1, 1, 1, false);
  ffn = register_module("ffn", nn::Sequential(m_ffn0, m_ffn1));
}

torch::Tensor PSABlockImpl::forward(torch::Tensor x) {
  x = add ? x + attn(x) : attn(x);
  auto y = m_ffn1(m_ffn0(x));
  return add ? x + y : y;
}

C2PSAImpl::C2PSAImpl(int64_t c1, int64_t n, double e)
    : c(static_cast<int64_t>(static_cast<double>(c1) * e)) {
  cv1 = register_module("cv1", Conv(c1, 2 * c, 1, 1));
  cv2 = register_module("cv2", Conv(2 * c, c1, 1));
  m = register_module("m", nn::Sequential());
  for (int64_t i = 0; i < n; ++i) {
    m_blocks.emplace_back(c, 0.5, std::max<int64_t>(c / 64, 1));
    m->push_back(m_blocks.back());
  }
}

torch::Tensor C2PSAImpl::forward(torch::Tensor x) {
  const auto ab = cv1(x).split({c, c}, 1);
  auto b = ab[1];
  for (auto& block : m_blocks) b = block(b);
  return cv2(torch::cat({ab[0], b}, 1));
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
                       const std::vector<int64_t>& levelStrides, bool legacyHead)
    : nc(numClasses), regMax(bins), strides(levelStrides), legacy(legacyHead) {
  const int64_t cBox = std::max<int64_t>({16, ch[0] / 4, 4 * regMax});
  const int64_t cCls = std::max<int64_t>(ch[0], std::min<int64_t>(nc, 100));
  cv2 = register_module("cv2", nn::ModuleList());
  cv3 = register_module("cv3", nn::ModuleList());
  // Box and class branch of each level in turn (Stave's YOLOv8 order, kept so a seed gives the
  // same initial weights as before).
  for (int64_t c : ch) {
    // ModuleLists (not Sequentials, which cannot nest): the names are the same, "cv3.0.1".
    m_box.emplace_back(Conv(c, cBox, 3), Conv(cBox, cBox, 3),
                       nn::Conv2d(nn::Conv2dOptions(cBox, 4 * regMax, 1)));
    if (legacy) {
      m_cls.emplace_back(Conv(c, cCls, 3), Conv(cCls, cCls, 3),
                         nn::Conv2d(nn::Conv2dOptions(cCls, nc, 1)));
    } else {
      // Depthwise-separable: DWConv (groups gcd(c1, c2) = c) then a pointwise Conv, twice.
      m_cls.emplace_back(nn::ModuleList(Conv(c, c, 3, 1, c), Conv(c, cCls, 1)),
                         nn::ModuleList(Conv(cCls, cCls, 3, 1, cCls), Conv(cCls, cCls, 1)),
                         nn::Conv2d(nn::Conv2dOptions(cCls, nc, 1)));
    }
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
/// A Conv, or a ModuleList of Convs (the depthwise-separable pairs of YOLO11's class branch).
torch::Tensor convsForward(const std::shared_ptr<nn::Module>& m, torch::Tensor x) {
  if (auto* conv = m->as<ConvImpl>()) return conv->forward(x);
  for (const auto& child : m->children()) x = child->as<ConvImpl>()->forward(x);
  return x;
}

/// A branch of the head: its two Conv stages as autocast chooses, then the prediction
/// convolution in float32. The logits feed the DFL softmax and the class BCE directly; in bf16
/// (8 significant bits) they would be rounded by about 0.4% of their size.
torch::Tensor branchForward(nn::ModuleList& branch, const torch::Tensor& x) {
  auto h = convsForward(branch[1], convsForward(branch[0], x));
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

}  // namespace stave::model
