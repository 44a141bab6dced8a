#pragma once
// The YOLOv8 detection network in LibTorch. Module and parameter names follow the published
// Ultralytics models ("model.22.cv2.0.0.conv.weight"), so parameter counts and weight names can be
// compared with them.

#include <ATen/autocast_mode.h>
#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/model/model_info.h"

namespace stave::model {

/// What to build.
struct ModelOptions {
  std::string scale = "n";  ///< n, s, m, l or x (or yolov8n..yolov8x)
  int nc = 80;              ///< number of classes
  int regMax = 16;          ///< bins of the distribution focal regression per box side
};

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

/// Conv2d (no bias) + BatchNorm2d (eps 1e-3, momentum 0.03) + SiLU.
class ConvImpl : public torch::nn::Module {
 public:
  /// c1 -> c2 channels, k x k kernel with "same" padding, stride s.
  ConvImpl(int64_t c1, int64_t c2, int64_t k = 1, int64_t s = 1);
  /// silu(bn(conv(x))); in training mode with a BatchNormSync set, bn is syncBatchNorm; in eval
  /// mode after foldBatchNorm(), one convolution with the folded weights.
  torch::Tensor forward(torch::Tensor x);
  /// Folds bn's running statistics and affine parameters into a convolution weight and bias used
  /// in eval mode (as Ultralytics' fuse() does for inference). The fold is a snapshot: call it
  /// again after the weights change, or unfoldBatchNorm() to drop it.
  void foldBatchNorm();
  /// Drops the folded weights: eval mode runs conv then bn again.
  void unfoldBatchNorm();

  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::nn::SiLU act{nullptr};
  /// SyncBatchNorm across ranks when set (training mode only); null = plain BatchNorm.
  std::shared_ptr<BatchNormSync> bnSync;
  /// foldBatchNorm()'s weight and bias (undefined when not folded); not parameters or buffers,
  /// so checkpoints never see them.
  torch::Tensor folded, foldedBias;
};
TORCH_MODULE(Conv);

/// Two 3x3 Convs with an optional residual add (when shortcut and c1 == c2).
class BottleneckImpl : public torch::nn::Module {
 public:
  /// c1 -> c2 channels.
  BottleneckImpl(int64_t c1, int64_t c2, bool shortcut);
  /// x + cv2(cv1(x)) or cv2(cv1(x)).
  torch::Tensor forward(torch::Tensor x);

  Conv cv1{nullptr}, cv2{nullptr};
  bool add = false;
};
TORCH_MODULE(Bottleneck);

/// CSP block with two convolutions and n bottlenecks whose outputs are all concatenated.
class C2fImpl : public torch::nn::Module {
 public:
  /// c1 -> c2 channels with n bottlenecks.
  C2fImpl(int64_t c1, int64_t c2, int64_t n, bool shortcut);
  /// cv2(cat(split(cv1(x)), m0(..), m1(..), ...)).
  torch::Tensor forward(torch::Tensor x);

  Conv cv1{nullptr}, cv2{nullptr};
  torch::nn::ModuleList m{nullptr};

 private:
  std::vector<Bottleneck> m_blocks;
};
TORCH_MODULE(C2f);

/// Spatial pyramid pooling (fast): three chained 5x5 max pools, concatenated.
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

/// Concatenation along channels (a module only so the layer indices match YOLOv8's).
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
  /// nc classes, regMax bins, input channels of the three levels and their strides.
  DetectImpl(int64_t nc, int64_t regMax, const std::vector<int64_t>& ch,
             const std::vector<int64_t>& strides);
  /// Per level (B, 4*regMax + nc, H, W): box logits first, then class logits.
  std::vector<torch::Tensor> forward(const std::vector<torch::Tensor>& xs);
  /// Box biases 1.0, class biases log(5 / nc / (640 / stride)^2), as Ultralytics initialises them.
  void initBiases();

  torch::nn::ModuleList cv2{nullptr}, cv3{nullptr};
  DFL dfl{nullptr};
  int64_t nc = 80, regMax = 16;
  std::vector<int64_t> strides;

 private:
  std::vector<torch::nn::Sequential> m_box, m_cls;
};
TORCH_MODULE(Detect);

/// The whole YOLOv8 detector: layers model.0 ... model.22.
class YoloImpl : public torch::nn::Module {
 public:
  /// Builds the network; throws stave::InternalError on an unknown scale or nc < 1.
  explicit YoloImpl(const ModelOptions& options);
  /// x: float NCHW, values 0..1, H and W multiples of 32. Returns 3 levels (strides 8, 16, 32),
  /// each (B, 4*regMax + nc, H/s, W/s) of raw logits.
  std::vector<torch::Tensor> forward(torch::Tensor x);
  /// {8, 16, 32}.
  const std::vector<int64_t>& strides() const { return m_strides; }
  /// Number of classes.
  int nc() const { return m_options.nc; }
  /// DFL bins per box side.
  int regMax() const { return m_options.regMax; }
  /// The options it was built with.
  const ModelOptions& options() const { return m_options; }
  /// Freezes the parameters of the first n layers (model.0 .. model.{n-1}); the DFL weights are
  /// always frozen.
  void freeze(int n);
  /// Makes every Conv's BatchNorm a SyncBatchNorm over `sync` in training mode (null: plain
  /// BatchNorm again). Eval mode always uses the running statistics.
  void setBatchNormSync(std::shared_ptr<BatchNormSync> sync);
  /// foldBatchNorm() on every Conv, for inference (eval mode) until unfoldBatchNorm().
  void foldBatchNorm();
  /// unfoldBatchNorm() on every Conv.
  void unfoldBatchNorm();
  /// The detection head (for its DFL and strides).
  const Detect& detect() const { return m_detect; }

 private:
  ModelOptions m_options;
  std::vector<int64_t> m_strides{8, 16, 32};
  torch::nn::ModuleList m_layers{nullptr};
  Conv m_l0{nullptr}, m_l1{nullptr}, m_l3{nullptr}, m_l5{nullptr}, m_l7{nullptr}, m_l16{nullptr},
      m_l19{nullptr};
  C2f m_l2{nullptr}, m_l4{nullptr}, m_l6{nullptr}, m_l8{nullptr}, m_l12{nullptr}, m_l15{nullptr},
      m_l18{nullptr}, m_l21{nullptr};
  SPPF m_l9{nullptr};
  torch::nn::Upsample m_l10{nullptr}, m_l13{nullptr};
  Concat m_l11{nullptr}, m_l14{nullptr}, m_l17{nullptr}, m_l20{nullptr};
  Detect m_detect{nullptr};
};
TORCH_MODULE(Yolo);

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

/// Anchor points at cell centres (x + 0.5, y + 0.5) in grid units of each level, concatenated over
/// levels: (A, 2), and the stride of each anchor: (A, 1). Same device/dtype as feats[0] (float).
std::pair<torch::Tensor, torch::Tensor> makeAnchors(const std::vector<torch::Tensor>& feats,
                                                    const std::vector<int64_t>& strides,
                                                    double offset = 0.5);

/// Distances (..., 4) as left, top, right, bottom from anchor points (..., 2) to xyxy boxes (...,
/// 4).
torch::Tensor distToBbox(const torch::Tensor& distance, const torch::Tensor& anchorPoints);

/// Raw head outputs -> (B, N, 4 + nc): xyxy boxes in input pixels, class probabilities (sigmoid).
/// N is the number of anchors over the three levels. Computed in float32 with autocast off.
torch::Tensor decodePredictions(const YoloImpl& model, const std::vector<torch::Tensor>& feats);

}  // namespace stave::model
