#include "core/distributed/gradient_sync.h"

#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/function_hook.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <limits>

namespace stave::dist {
namespace {
using Clock = std::chrono::steady_clock;
}

struct GradientSync::Bucket {
  std::vector<size_t> params;    // indices into m_params
  std::vector<int64_t> offsets;  // element offset of each param in flat
  torch::Tensor flat;
  size_t pending = 0;  // params not yet ready in this step
  bool launched = false;
  std::shared_ptr<Launch> launch;
};

struct GradientSync::Launch {
  std::shared_ptr<AsyncWork> work;
  Clock::time_point started;
  Clock::time_point completed;
  bool done = false;
};

// Runs after AccumulateGrad wrote param.grad(), so the bucket sees the accumulated gradient
// (this matters on the syncing micro-step of gradient accumulation).
class GradientSync::ReadyHook : public torch::autograd::FunctionPostHook {
 public:
  ReadyHook(GradientSync* owner, size_t index) : m_owner(owner), m_index(index) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list&) override {
    m_owner->markReady(m_index);
    return outputs;
  }

 private:
  GradientSync* m_owner;
  size_t m_index;
};

GradientSync::GradientSync(ProcessGroup& group, std::vector<torch::Tensor> params, double bucketMb)
    : m_group(group) {
  for (auto& p : params)
    if (p.requires_grad()) m_params.push_back(p);
  const size_t n = m_params.size();
  m_bucketOf.assign(n, 0);
  m_slotOf.assign(n, 0);
  m_ready.assign(n, false);
  const double capBytes = std::max(1.0, bucketMb * 1024.0 * 1024.0);
  // As PyTorch DDP does, the first bucket (the last layers, whose gradients backward produces
  // first) is kept small, so one all-reduce starts early even when the whole model fits in one
  // bucket of bucket_mb.
  const double firstCapBytes = std::min(capBytes, kFirstBucketMb * 1024.0 * 1024.0);

  // Reverse registration order approximates the order backward produces gradients, so the
  // first buckets fill (and start) while backward still runs through the early layers.
  std::unique_ptr<Bucket> current;
  double currentBytes = 0;
  auto close = [&]() {
    if (!current) return;
    int64_t total = current->offsets.empty() ? 0 : current->offsets.back();
    const auto& last = m_params[current->params.back()];
    total += last.numel();
    current->flat = torch::zeros({total}, last.options().requires_grad(false));
    current->pending = current->params.size();
    m_buckets.push_back(std::move(current));
    currentBytes = 0;
  };
  for (size_t k = n; k-- > 0;) {
    const auto& p = m_params[k];
    STAVE_CHECK(p.is_leaf(), "GradientSync needs leaf parameters (parameter " << k << ")");
    STAVE_CHECK(p.device() == group.device(), "parameter " << k << " is on " << p.device()
                                                           << " but the " << group.backendName()
                                                           << " group runs on " << group.device());
    if (current) {
      const auto& first = m_params[current->params.front()];
      if (first.scalar_type() != p.scalar_type() || first.device() != p.device() ||
          currentBytes >= (m_buckets.empty() ? firstCapBytes : capBytes))
        close();
    }
    if (!current) current = std::make_unique<Bucket>();
    int64_t offset = 0;
    if (!current->params.empty())
      offset = current->offsets.back() + m_params[current->params.back()].numel();
    m_bucketOf[k] = m_buckets.size();
    m_slotOf[k] = current->params.size();
    current->params.push_back(k);
    current->offsets.push_back(offset);
    currentBytes += static_cast<double>(p.numel() * p.element_size());
  }
  close();
  m_stats.buckets = static_cast<int>(m_buckets.size());

  // The accumulators are held here: a tensor keeps only a weak reference to its
  // AccumulateGrad node, which would otherwise be recreated (without our hook) each step.
  for (size_t k = 0; k < n; ++k) {
    auto acc = torch::autograd::impl::grad_accumulator(m_params[k]);
    STAVE_CHECK(acc, "parameter " << k << " has no grad accumulator");
    m_hookKeys.push_back(acc->add_post_hook(std::make_unique<ReadyHook>(this, k)));
    m_accumulators.push_back(std::move(acc));
  }
  m_watcher = std::thread([this] { watchLoop(); });
}

GradientSync::~GradientSync() {
  for (size_t k = 0; k < m_accumulators.size(); ++k)
    m_accumulators[k]->del_post_hook(m_hookKeys[k]);
  {
    std::lock_guard<std::mutex> lock(m_watchMutex);
    m_stop = true;
  }
  m_watchCv.notify_all();
  if (m_watcher.joinable()) m_watcher.join();
}

void GradientSync::setSyncEnabled(bool enabled) {
  std::lock_guard<std::mutex> lock(m_mutex);
  m_syncEnabled = enabled;
}

bool GradientSync::syncEnabled() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_syncEnabled;
}

void GradientSync::prepareForBackward() {
  std::lock_guard<std::mutex> lock(m_mutex);
  STAVE_CHECK(m_nextBucket == 0, "prepareForBackward() while "
                                     << m_nextBucket
                                     << " bucket(s) are in flight: call wait() first");
  resetStepLocked();
}

void GradientSync::resetStepLocked() {
  std::fill(m_ready.begin(), m_ready.end(), false);
  for (auto& b : m_buckets) {
    b->pending = b->params.size();
    b->launched = false;
    b->launch.reset();
  }
  m_nextBucket = 0;
}

void GradientSync::fillSlot(size_t k) {
  Bucket& b = *m_buckets[m_bucketOf[k]];
  const auto& p = m_params[k];
  auto slot = b.flat.narrow(0, b.offsets[m_slotOf[k]], p.numel());
  const auto& g = p.grad();
  torch::NoGradGuard noGrad;
  if (g.defined())
    slot.copy_(g.reshape({-1}));
  else
    slot.zero_();
}

void GradientSync::markReady(size_t k) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (!m_syncEnabled || m_ready[k]) return;
  Bucket& b = *m_buckets[m_bucketOf[k]];
  if (b.launched) return;  // a second backward in the same step: already on its way
  m_ready[k] = true;
  fillSlot(k);
  --b.pending;
  launchInOrderLocked(true);
}

// All ranks must issue the same collectives in the same order, so a full bucket waits until
// every bucket before it has been launched.
void GradientSync::launchInOrderLocked(bool fromHook) {
  while (m_nextBucket < m_buckets.size() && m_buckets[m_nextBucket]->pending == 0) {
    Bucket& b = *m_buckets[m_nextBucket++];
    b.flat.div_(m_group.worldSize());
    auto launch = std::make_shared<Launch>();
    launch->started = Clock::now();
    launch->work = m_group.allReduceAsync(b.flat);
    b.launch = launch;
    b.launched = true;
    (fromHook ? m_stats.launchedInBackward : m_stats.launchedInWait)++;
    {
      std::lock_guard<std::mutex> w(m_watchMutex);
      m_watchQueue.push_back(launch);
      ++m_launched;
    }
    m_watchCv.notify_one();
  }
}

void GradientSync::watchLoop() {
  std::unique_lock<std::mutex> lock(m_watchMutex);
  for (;;) {
    m_watchCv.wait(lock, [this] { return m_stop || !m_watchQueue.empty(); });
    if (m_stop) return;
    // Poll the oldest launch; backends complete buckets in launch order.
    auto launch = m_watchQueue.front();
    lock.unlock();
    auto sleep = std::chrono::microseconds(50);
    bool stopping = false;
    while (!launch->work->isCompleted()) {
      std::this_thread::sleep_for(sleep);
      if (sleep < std::chrono::microseconds(1000)) sleep *= 2;
      std::lock_guard<std::mutex> check(m_watchMutex);
      if (m_stop) {
        stopping = true;
        break;
      }
    }
    lock.lock();
    if (stopping) return;
    launch->completed = Clock::now();
    launch->done = true;
    m_watchQueue.pop_front();
    ++m_completed;
    m_doneCv.notify_all();
  }
}

namespace {
/// Fault injection for the doctor's tests (docs/doctor.md): STAVE_FAULT_ALLREDUCE_LATENCY_MS=M
/// adds M ms to every bucket's all-reduce, as a high-latency link between the ranks would (so
/// many small buckets cost many latencies). 0 when unset.
int allreduceLatencyMs() {
  static const int ms = [] {
    const char* v = std::getenv("STAVE_FAULT_ALLREDUCE_LATENCY_MS");
    return v && *v ? std::max(0, std::atoi(v)) : 0;
  }();
  return ms;
}
}  // namespace

double GradientSync::wait() {
  std::vector<std::shared_ptr<Launch>> launches;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_syncEnabled) return 0.0;
    // Parameters that got no gradient this step (unused, or no backward at all) count as
    // zero; every rank runs the same model, so all launch the same remaining buckets.
    for (size_t k = 0; k < m_params.size(); ++k) {
      if (m_ready[k]) continue;
      Bucket& b = *m_buckets[m_bucketOf[k]];
      if (b.launched) continue;
      m_ready[k] = true;
      fillSlot(k);
      --b.pending;
    }
    launchInOrderLocked(false);
    for (auto& b : m_buckets) launches.push_back(b->launch);
  }

  const auto t0 = Clock::now();
  const int latencyMs = allreduceLatencyMs();
  for (auto& l : launches) {
    l->work->wait();
    if (latencyMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(latencyMs));
  }
  const double waitS = std::chrono::duration<double>(Clock::now() - t0).count();

  {
    torch::NoGradGuard noGrad;
    for (size_t k = 0; k < m_params.size(); ++k) {
      Bucket& b = *m_buckets[m_bucketOf[k]];
      auto& p = m_params[k];
      auto slot = b.flat.narrow(0, b.offsets[m_slotOf[k]], p.numel()).view(p.sizes());
      if (p.grad().defined())
        p.mutable_grad().copy_(slot);
      else
        p.mutable_grad() = slot.clone();
    }
  }

  // Completion times from the watcher (it lags wait() by at most one poll interval).
  {
    std::unique_lock<std::mutex> lock(m_watchMutex);
    m_doneCv.wait(lock, [this] { return m_completed == m_launched; });
  }
  auto first = Clock::time_point::max();
  auto last = Clock::time_point::min();
  for (auto& l : launches) {
    first = std::min(first, l->started);
    last = std::max(last, l->completed);
  }
  std::lock_guard<std::mutex> lock(m_mutex);
  const double allreduceS =
      launches.empty() ? 0 : std::chrono::duration<double>(last - first).count();
  m_stats.syncSteps++;
  m_stats.lastAllreduceS = allreduceS;
  m_stats.lastWaitS = waitS;
  m_stats.totalAllreduceS += allreduceS;
  m_stats.totalWaitS += waitS;
  resetStepLocked();
  return waitS;
}

SyncStats GradientSync::stats() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_stats;
}

std::vector<std::vector<size_t>> GradientSync::bucketLayout() const {
  std::vector<std::vector<size_t>> out;
  for (const auto& b : m_buckets) out.push_back(b->params);
  return out;
}

}  // namespace stave::dist
