#pragma once
// What the trainer needs from the other ranks, in one place: rendezvous and process group,
// parameter broadcast, overlapped gradient sync, and the few small collectives the loop uses
// (stop agreement, epoch re-planning, validation statistics).

#include <torch/torch.h>

#include <memory>
#include <vector>

#include "core/train/settings.h"
#include "core/train/trainer.h"

namespace stave::train {

/// One rank's view of the distributed run (worldSize > 1 only).
class DistContext {
 public:
  /// Rendezvous with the other ranks (TCPStore at masterAddr:masterPort) and make the group
  /// (NCCL's settings and the timeout from `settings`).
  DistContext(const TrainOptions& options, const TrainSettings& settings,
              const torch::Device& device);
  ~DistContext();
  /// Broadcasts rank 0's weights and buffers, hooks gradient buckets onto `params`, and with
  /// sync_bn makes a Yolo model's BatchNorms SyncBatchNorms over the group.
  void attach(torch::nn::Module& model, const std::vector<torch::Tensor>& params,
              const TrainSettings& settings);
  /// Before a micro-step's backward: all-reduce its gradients only when `syncThisStep`.
  void beforeBackward(bool syncThisStep);
  /// Waits for the gradient all-reduce of this step; returns the seconds spent waiting.
  double waitGradients();
  /// BatchNorm running statistics follow rank 0 (with sync_bn they already agree).
  void syncBuffers(torch::nn::Module& model);
  /// Replaces each rank's accumulated, not yet applied gradients by their mean over ranks,
  /// so that rank 0's checkpoint holds what every rank needs to resume exactly (the
  /// all-reduce at the next optimiser step gives the same result either way).
  void averageGradients(const std::vector<torch::Tensor>& params);
  /// True on every rank when `local` is true on any rank.
  bool anyRank(bool local);
  /// Rank 0's value on every rank.
  int broadcastInt(int value);
  /// Every rank's floats, concatenated in rank order, on every rank.
  std::vector<float> gatherFloats(const std::vector<float>& mine);
  /// The words for a collective's error `what` when it is a lost peer: the node, its address
  /// and ranks (dist::peerLossText); an empty id otherwise.
  Text describeFailure(const std::string& what) const;
  /// The interface or address Gloo runs over ("" for NCCL).
  std::string glooDevice() const;
  /// Last barrier before the process group goes away.
  void finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> m;
};

}  // namespace stave::train
