#include "core/train/trainer_dist.h"

#include <cstdlib>
#include <stdexcept>

#include "core/distributed/dist_env.h"
#include "core/distributed/gradient_sync.h"
#include "core/distributed/peers.h"
#include "core/distributed/process_group.h"
#include "core/model/yolo.h"

namespace stave::train {

namespace {

/// SyncBatchNorm's collectives over the trainer's process group.
class GroupBatchNormSync : public model::BatchNormSync {
 public:
  explicit GroupBatchNormSync(dist::ProcessGroup& group) : m_group(group) {}
  void allReduceSum(std::vector<torch::Tensor>& tensors) override {
    m_group.allReduce(tensors, dist::ReduceMode::Sum);
  }

 private:
  dist::ProcessGroup& m_group;
};

}  // namespace

struct DistContext::Impl {
  std::unique_ptr<dist::ProcessGroup> group;
  std::unique_ptr<dist::GradientSync> sync;
  std::shared_ptr<model::BatchNormSync> bnSync;
  std::vector<dist::RankPlace> places;  // every rank's node, address and host
};

DistContext::DistContext(const TrainOptions& o, const TrainSettings& s,
                         const torch::Device& device)
    : m(std::make_unique<Impl>()) {
  dist::ProcessGroupOptions po;
  po.device = device;
  po.timeoutS = s.ncclTimeoutS;
  po.nccl.p2pLevel = s.ncclP2pLevel;
  po.nccl.shmDisable = s.ncclShmDisable;
  po.nccl.debug = s.ncclDebug;
  po.nccl.timeoutS = po.timeoutS;
  // socket_ifname: the interface the ranks talk over, for Gloo and NCCL (a variable the user
  // set already wins, as for the NCCL settings).
  if (!s.socketIfname.empty()) {
    ::setenv("GLOO_SOCKET_IFNAME", s.socketIfname.c_str(), 0);
    ::setenv("NCCL_SOCKET_IFNAME", s.socketIfname.c_str(), 0);
  }
  auto group = dist::ProcessGroup::create(o.dist, po);
  if (!group) throw std::runtime_error("rank " + std::to_string(o.dist.rank) + ": " + group.errorText());
  m->group = std::move(group.value());
  // Where every rank runs, so that a lost peer can be named by its node.
  const char* iface = std::getenv("GLOO_SOCKET_IFNAME");
  const auto place = dist::thisRankPlace(o.dist, iface ? iface : "");
  for (const auto& text : m->group->allGatherBytes(dist::encodePlace(place)))
    m->places.push_back(dist::decodePlace(text));
}

std::string DistContext::glooDevice() const {
  const auto& s = m->group->settings();
  const auto it = s.find("gloo_device");
  return it == s.end() ? "" : it->second;
}

Text DistContext::describeFailure(const std::string& what) const {
  return dist::peerLossText(what, m->places, m->group->rank());
}

DistContext::~DistContext() = default;

void DistContext::attach(torch::nn::Module& model, const std::vector<torch::Tensor>& params,
                         const TrainSettings& settings) {
  m->group->broadcastParameters(model, 0);
  m->group->broadcastBuffers(model, 0);
  // sync_bn: every Conv's BatchNorm normalises over the global batch in training mode, so the
  // running stats agree across ranks (up to rounding) and the epoch-end broadcast is a no-op.
  if (settings.syncBn) {
    if (auto* yolo = dynamic_cast<model::YoloImpl*>(&model)) {
      m->bnSync = std::make_shared<GroupBatchNormSync>(*m->group);
      yolo->setBatchNormSync(m->bnSync);
    }
  }
  m->sync = std::make_unique<dist::GradientSync>(*m->group, params, settings.bucketMb);
}

void DistContext::beforeBackward(bool syncThisStep) {
  m->sync->setSyncEnabled(syncThisStep);
  m->sync->prepareForBackward();
}

double DistContext::waitGradients() {
  return m->sync->wait();
}

void DistContext::syncBuffers(torch::nn::Module& model) {
  // Without sync_bn each rank's BN stats drift on its own shard: rank 0's win. With sync_bn they
  // are already equal; the broadcast only removes rounding differences.
  m->group->broadcastBuffers(model, 0);
}

void DistContext::averageGradients(const std::vector<torch::Tensor>& params) {
  // Every rank has the same parameters with gradients defined (same model, same steps).
  std::vector<torch::Tensor> grads;
  for (const auto& p : params)
    if (p.grad().defined()) grads.push_back(p.grad());
  m->group->allReduce(grads, dist::ReduceMode::Mean);
}

bool DistContext::anyRank(bool local) {
  std::vector<torch::Tensor> t{torch::full({1}, local ? 1.0f : 0.0f)};
  m->group->allReduce(t, dist::ReduceMode::Sum);
  return t[0].item<float>() > 0.5f;
}

int DistContext::broadcastInt(int value) {
  std::vector<torch::Tensor> t{torch::full({1}, static_cast<int64_t>(value), torch::kLong)};
  m->group->broadcast(t, 0);
  return static_cast<int>(t[0].item<int64_t>());
}

std::vector<float> DistContext::gatherFloats(const std::vector<float>& mine) {
  std::vector<float> all;
  for (const auto& part : m->group->allGather(mine))
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

void DistContext::finish() {
  m->group->barrier();
}


}  // namespace stave::train
