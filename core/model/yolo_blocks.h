#pragma once
// The building blocks of the YOLO detectors in LibTorch (YOLOv8's and YOLO11's), each with the
// module and parameter names of its Ultralytics counterpart ("cv1.conv.weight", "m.0.attn.qkv"),
// so weights and parameter counts compare with the published models. yolo.h assembles them from
// an Architecture.

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <memory>
#include <vector>

namespace stave::model {

/// How SyncBatchNorm reaches the other ranks: the model stays free of process groups, the
/// trainer supplies an implementation over its group.
struct BatchNormSync {
  virtual ~BatchNormSync() = default;
  /// Sums `tensors` element-wise over all ranks, in place. Every rank calls it in the same order.
  virtual void allReduceSum(std::vector<torch::Tensor>& tensors) = 0;
};

/// Training-mode BatchNorm over the batch of ALL ranks: per-channel sum, sum of squares and count
/// are summed over ranks (one allReduceSum in forward, one in backward), so the output equals
/// BatchNorm on the concatenated batch. Updates bn's running stats (unbiased variance) and
/// num_batches_tracked. Statistics in float64, output in x's dtype. grad_weight/grad_bias are
/// this rank's local sums (gradient sync averages them, as with PyTorch's SyncBatchNorm + DDP).
torch::Tensor syncBatchNorm(const torch::Tensor& x, torch::nn::BatchNorm2dImpl& bn,
                            const std::shared_ptr<BatchNormSync>& sync);

/// Turns autocast off (CUDA and CPU) for its lifetime and restores the previous state: box
/// decoding and losses need float32 even when the network ran under bf16/fp16 autocast.
class AutocastOff {
 public:
  AutocastOff()
      : m_gpu(at::autocast::is_autocast_enabled(at::kCUDA)),
        m_cpu(at::autocast::is_autocast_enabled(at::kCPU)) {
    at::autocast::set_autocast_enabled(at::kCUDA, false);
    at::autocast::set_autocast_enabled(at::kCPU, false);
  }
  ~AutocastOff() {
    at::autocast::set_autocast_enabled(at::kCUDA, m_gpu);
    at::autocast::set_autocast_enabled(at::kCPU, m_cpu);
  }
  AutocastOff(const AutocastOff&) = delete;
  AutocastOff& operator=(const AutocastOff&) = delete;

 private:
  bool m_gpu, m_cpu;
};

/// Conv2d (no bias) + BatchNorm2d (eps 1e-3, momentum 0.03) + SiLU (or no activation).
class ConvImpl : public torch::nn::Module {
 public:
  /// c1 -> c2 channels, k x k kernel with "same" padding, stride s, g groups (DWConv: g =
  /// gcd(c1, c2)); act = false leaves out the SiLU (Ultralytics' Conv(..., act=False)).
  ConvImpl(int64_t c1, int64_t c2, int64_t k = 1, int64_t s = 1, int64_t g = 1, bool act = true);
  /// silu(bn(conv(x))) (bn(conv(x)) without act); in training mode with a BatchNormSync set, bn
  /// is syncBatchNorm; in eval mode after foldBatchNorm(), one convolution with the folded
  /// weights.
  torch::Tensor forward(torch::Tensor x);
  /// Folds bn's running statistics and affine parameters into a convolution weight and bias used
  /// in eval mode (as Ultralytics' fuse() does for inference). The fold is a snapshot: call it
  /// again after the weights change, or unfoldBatchNorm() to drop it.
  void foldBatchNorm();
  /// Drops the folded weights: eval mode runs conv then bn again.
  void unfoldBatchNorm();
  /// Whether the SiLU follows the BatchNorm.
  bool activated() const { return !act.is_empty(); }

  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::nn::SiLU act{nullptr};  ///< empty for act = false
  /// SyncBatchNorm across ranks when set (training mode only); null = plain BatchNorm.
  std::shared_ptr<BatchNormSync> bnSync;
  /// foldBatchNorm()'s weight and bias (undefined when not folded); not parameters or buffers,
  /// so checkpoints never see them.
  torch::Tensor folded, foldedBias;
};
TORCH_MODULE(Conv);

/// Two Convs (k1 x k1 to c2 * e channels, then k2 x k2 with g groups) with a residual add when
/// shortcut and c1 == c2.
class BottleneckImpl : public torch::nn::Module {
 public:
  /// c1 -> c2 channels; hidden channels int(c2 * e).
  BottleneckImpl(int64_t c1, int64_t c2, bool shortcut, int64_t g, int64_t k1, int64_t k2,
                 double e);
  /// x + cv2(cv1(x)) or cv2(cv1(x)).
  torch::Tensor forward(torch::Tensor x);

  Conv cv1{nullptr}, cv2{nullptr};
  bool add = false;
};
TORCH_MODULE(Bottleneck);

/// CSP block with three convolutions (YOLOv5's C3; YOLO11's C3k with k x k bottlenecks).
class C3kImpl : public torch::nn::Module {
 public:
  /// c1 -> c2 channels, n bottlenecks of kernel k on int(c2 * e) channels.
  C3kImpl(int64_t c1, int64_t c2, int64_t n, bool shortcut, int64_t g, double e, int64_t k);
  /// cv3(cat(m(cv1(x)), cv2(x))).
  torch::Tensor forward(torch::Tensor x);

  Conv cv1{nullptr}, cv2{nullptr}, cv3{nullptr};
  torch::nn::Sequential m{nullptr};

 private:
  std::vector<Bottleneck> m_blocks;
};
TORCH_MODULE(C3k);

/// CSP block with two convolutions and n blocks whose outputs are all concatenated: YOLOv8's C2f
/// (3x3 bottlenecks) and YOLO11's C3k2 (bottlenecks of half width, or C3k blocks).
class C2fImpl : public torch::nn::Module {
 public:
  /// The inner blocks.
  enum class Blocks {
    C2f,         ///< Bottleneck(c, c, shortcut, g, 3, 3, e = 1.0): YOLOv8's C2f
    Bottleneck,  ///< Bottleneck(c, c, shortcut, g, 3, 3, e = 0.5): C3k2 with c3k = False
    C3k,         ///< C3k(c, c, 2, shortcut, g): C3k2 with c3k = True
  };
  /// c1 -> c2 channels with n blocks on c = int(c2 * e) channels.
  C2fImpl(int64_t c1, int64_t c2, int64_t n, bool shortcut, int64_t g = 1, double e = 0.5,
          Blocks blocks = Blocks::C2f);
  /// cv2(cat(split(cv1(x)), m0(..), m1(..), ...)).
  torch::Tensor forward(torch::Tensor x);

  Conv cv1{nullptr}, cv2{nullptr};
  torch::nn::ModuleList m{nullptr};

 private:
  std::vector<Bottleneck> m_bottlenecks;
  std::vector<C3k> m_c3ks;
};
TORCH_MODULE(C2f);

/// Spatial pyramid pooling (fast): three chained k x k max pools, concatenated.
class SPPFImpl : public torch::nn::Module {
 public:
  /// c1 -> c2 channels.
  SPPFImpl(int64_t c1, int64_t c2, int64_t k = 5);
  /// cv2(cat(y, m(y), m(m(y)), m(m(m(y))))) with y = cv1(x).
  torch::Tensor forward(torch::Tensor x);

  Conv cv1{nullptr}, cv2{nullptr};
  torch::nn::MaxPool2d m{nullptr};
};
TORCH_MODULE(SPPF);

/// Multi-head self-attention over the cells of a feature map, with a depthwise 3x3 positional
/// encoding of the values (Ultralytics' Attention).
class AttentionImpl : public torch::nn::Module {
 public:
  /// dim channels in and out, numHeads heads, keys of int(dim / numHeads * attnRatio) channels.
  AttentionImpl(int64_t dim, int64_t numHeads, double attnRatio);
  /// proj(v @ softmax(q^T k * scale)^T + pe(v)).
  torch::Tensor forward(torch::Tensor x);

  Conv qkv{nullptr}, proj{nullptr}, pe{nullptr};
  int64_t numHeads = 1, headDim = 0, keyDim = 0;
  double scale = 1.0;
};
TORCH_MODULE(Attention);

/// Attention then a 1x1 feed-forward pair, each with a residual add (Ultralytics' PSABlock).
class PSABlockImpl : public torch::nn::Module {
 public:
  /// c channels in and out.
  PSABlockImpl(int64_t c, double attnRatio, int64_t numHeads, bool shortcut = true);
  /// x + attn(x), then + ffn(.) (without the adds when not shortcut).
  torch::Tensor forward(torch::Tensor x);

  Attention attn{nullptr};
  torch::nn::Sequential ffn{nullptr};
  bool add = true;

 private:
  Conv m_ffn0{nullptr}, m_ffn1{nullptr};
};
TORCH_MODULE(PSABlock);

/// CSP block whose second half goes through n PSABlocks (YOLO11's C2PSA).
class C2PSAImpl : public torch::nn::Module {
 public:
  /// c1 -> c1 channels, n PSABlocks on int(c1 * e) channels with max(c / 64, 1) heads.
  C2PSAImpl(int64_t c1, int64_t n, double e = 0.5);
  /// cv2(cat(a, m(b))) with a, b = split(cv1(x)).
  torch::Tensor forward(torch::Tensor x);

  Conv cv1{nullptr}, cv2{nullptr};
  torch::nn::Sequential m{nullptr};
  int64_t c = 0;

 private:
  std::vector<PSABlock> m_blocks;
};
TORCH_MODULE(C2PSA);

/// Concatenation along channels (a module only so the layer indices match Ultralytics').
class ConcatImpl : public torch::nn::Module {
 public:
  /// cat(xs, 1).
  torch::Tensor forward(const std::vector<torch::Tensor>& xs);
};
TORCH_MODULE(Concat);

/// Distribution focal loss integral: the expected bin of a softmax over regMax bins, as a 1x1 conv
/// with fixed weights 0..regMax-1 (never trained).
class DFLImpl : public torch::nn::Module {
 public:
  /// regMax bins.
  explicit DFLImpl(int64_t regMax = 16);
  /// (B, 4*regMax, A) logits -> (B, 4, A) distances in bins.
  torch::Tensor forward(torch::Tensor x);

  torch::nn::Conv2d conv{nullptr};
  int64_t regMax = 16;
};
TORCH_MODULE(DFL);

/// Decoupled detection head: per level a box branch (cv2) and a class branch (cv3).
class DetectImpl : public torch::nn::Module {
 public:
  /// nc classes, regMax bins, input channels of the levels and their strides. legacy: the class
  /// branch is Conv 3x3, Conv 3x3, Conv2d (YOLOv8); otherwise (DWConv 3x3, Conv 1x1) twice, then
  /// Conv2d (YOLO11: cv3.i.0.0, cv3.i.0.1, cv3.i.1.0, cv3.i.1.1, cv3.i.2).
  DetectImpl(int64_t nc, int64_t regMax, const std::vector<int64_t>& ch,
             const std::vector<int64_t>& strides, bool legacy = true);
  /// Per level (B, 4*regMax + nc, H, W): box logits first, then class logits. The final
  /// convolutions of both branches run in float32 whatever autocast chose for the rest.
  std::vector<torch::Tensor> forward(const std::vector<torch::Tensor>& xs);
  /// Box biases 2.0, class biases log(5 / nc / (640 / stride)^2), as Ultralytics 8.4
  /// initialises them.
  void initBiases();

  torch::nn::ModuleList cv2{nullptr}, cv3{nullptr};
  DFL dfl{nullptr};
  int64_t nc = 80, regMax = 16;
  std::vector<int64_t> strides;
  bool legacy = true;

 private:
  std::vector<torch::nn::ModuleList> m_box, m_cls;
};
TORCH_MODULE(Detect);

}  // namespace stave::model
