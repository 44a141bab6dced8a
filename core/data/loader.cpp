#include "core/data/loader.h"
#include "core/base/clock.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "core/data/loader_config.h"
#include "core/data/resample.h"
#include "core/data/rng.h"
#include "core/data/sampler.h"

namespace stave::data {
namespace {}  // namespace

// Batch buffers of the default allocator, handed back when the consumer drops a batch: a
// fresh 20 MB buffer per batch costs ~5000 page faults (the kernel zeroes every page), which
// was a quarter of the uncached loader's CPU time. A user-supplied allocator (e.g. pinned
// memory with asynchronous copies in flight) is never recycled here.
struct Loader::BufferPool : std::enable_shared_from_this<Loader::BufferPool> {
  std::mutex mutex;
  std::vector<std::pair<size_t, std::unique_ptr<uint8_t[]>>> free;
  size_t capacity = 8;

  std::shared_ptr<uint8_t> acquire(size_t n) {
    std::unique_ptr<uint8_t[]> buf;
    {
      std::lock_guard<std::mutex> g(mutex);
      for (auto it = free.begin(); it != free.end(); ++it) {
        if (it->first == n) {
          buf = std::move(it->second);
          free.erase(it);
          break;
        }
      }
    }
    if (!buf) buf.reset(new uint8_t[n]);
    uint8_t* raw = buf.release();
    std::weak_ptr<BufferPool> pool = shared_from_this();
    return std::shared_ptr<uint8_t>(raw, [pool, n](uint8_t* p) {
      std::unique_ptr<uint8_t[]> owned(p);
      if (auto self = pool.lock()) {
        std::lock_guard<std::mutex> g(self->mutex);
        if (self->free.size() >= self->capacity) self->free.erase(self->free.begin());
        self->free.emplace_back(n, std::move(owned));
      }
    });
  }
};

struct Loader::Plan {
  int epoch = 0;
  bool mosaicOn = true;
  std::vector<int64_t> order;  // this rank's dataset indices, in delivery order
  // The previous epoch's order (training with mosaic, from the second epoch): the first
  // batches of an epoch draw their mosaic companions from its end, as later batches draw theirs
  // from earlier in the epoch, instead of from their own batch.
  std::vector<int64_t> previous;
  int64_t numBatches = 0;
  std::vector<cv::Size> shapes;  // per batch (rect validation); empty = imgsz x imgsz
};

Status Loader::validate(const SplitIndex& index, const LoaderOptions& o) {
  std::vector<Error> errors;
  auto range = [&](const char* key, double v, double lo, double hi) {
    if (!(v >= lo && v <= hi)) {
      std::ostringstream os;
      os << "is " << v << "; valid range [" << lo << ", " << hi << "]";
      errors.push_back({"", 0, key, os.str()});
    }
  };
  // The settings that are run-config keys take their valid range from the schema.
  auto setting = [&](const char* key, double v) {
    const config::ParamSpec& p = config::runConfigSchema()[config::paramIndex(key)];
    range(key, v, p.min, p.max);
  };
  setting("imgsz", o.imgsz);
  if (o.imgsz % o.stride != 0)
    errors.push_back(
        {"", 0, "imgsz", "must be a multiple of the stride " + std::to_string(o.stride)});
  setting("batch", o.batch);
  setting("workers", o.workers);
  setting("prefetch", o.prefetch);
  range("rank", o.rank, 0, o.worldSize - 1);
  // Every augmentation setting, as its binding table lists them.
  using AugBinding = config::FieldBinding<AugmentOptions>;
  config::forEachMember(augmentBindings(), [&](const AugBinding& f, auto member) {
    if constexpr (std::is_arithmetic_v<std::decay_t<decltype(o.aug.*member)>>)
      setting(f.key, static_cast<double>(o.aug.*member));
  });
  if (o.cache == CacheMode::Ram) {
    const Status st = checkRamCache(index, o.imgsz, o.ramBudgetBytes);
    if (!st) errors.insert(errors.end(), st.errors().begin(), st.errors().end());
  }
  if (!errors.empty()) return errors;
  return Ok{};
}

Loader::Loader(const SplitIndex& index, LoaderOptions options)
    : m_index(index), m_opt(std::move(options)) {
  if (m_opt.tuneMalloc) {
    // glibc hands blocks above its mmap threshold (128 KiB, growing to 32 MiB) straight back to
    // the kernel; a 1 MB image then page-faults and zeroes its pages again on the next
    // allocation. Keep such blocks in the heap instead (process-wide, set once). Free memory at
    // the top of the heap goes back once it exceeds 32 MiB: a larger margin (512 MiB before)
    // only kept a training step's freed activations resident, +120 MB of peak RSS for yolov8n at
    // imgsz 256, batch 16, with no gain in speed (docs/benchmarks.md).
    static std::once_flag once;
    std::call_once(once, [] {
      mallopt(M_MMAP_THRESHOLD, 64 << 20);
      mallopt(M_TRIM_THRESHOLD, 32 << 20);
    });
  }
  if (m_opt.workers > 0 && m_opt.sequentialOpenCv) {
    // The workers are the parallelism. OpenCV's own pool inside each worker only adds
    // spinning and contention (Ultralytics calls cv2.setNumThreads(0) for the same reason).
    cv::setNumThreads(0);
  }
  STAVE_CHECK(
      m_opt.batch >= 1 && m_opt.worldSize >= 1 && m_opt.rank >= 0 && m_opt.rank < m_opt.worldSize,
      "loader options: batch " << m_opt.batch << ", rank " << m_opt.rank << "/" << m_opt.worldSize);
  ImageSourceOptions so;
  so.imgsz = m_opt.imgsz;
  so.cache = m_opt.cache;
  so.diskCachePath = m_opt.diskCachePath;
  so.ramBudgetBytes = m_opt.ramBudgetBytes;
  so.recentCapacity = static_cast<size_t>(m_opt.mosaicLag + m_opt.mosaicWindow +
                                          (m_opt.workers + m_opt.prefetch + 2) * m_opt.batch + 64);
  if (!m_opt.augment) so.recentCapacity = 0;  // no mosaic: each image is used once per epoch
  m_source = std::make_unique<ImageSource>(index, so);
  if (!m_opt.allocate) {
    m_pool = std::make_shared<BufferPool>();
    m_pool->capacity = static_cast<size_t>(m_opt.workers + m_opt.prefetch + 2);
    std::weak_ptr<BufferPool> pool = m_pool;
    m_opt.allocate = [pool](size_t n) {
      if (auto p = pool.lock()) return p->acquire(n);
      return std::shared_ptr<uint8_t>(new uint8_t[n], std::default_delete<uint8_t[]>());
    };
  }
  m_ctx.records = &m_index.images;
  m_ctx.imgsz = m_opt.imgsz;
  m_ctx.aug = m_opt.aug;
  ImageSource* src = m_source.get();
  m_ctx.load = [src](int64_t i, StageTimes& t) { return src->get(i, t); };
  startWorkers();
}

Loader::~Loader() { stopWorkers(); }

void Loader::startWorkers() {
  if (m_opt.workers <= 0) return;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = false;
    ++m_stats.workerStarts;
  }
  for (int w = 0; w < m_opt.workers; ++w) m_workers.emplace_back([this] { workerLoop(); });
}

void Loader::stopWorkers() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_workCv.notify_all();
  m_readyCv.notify_all();
  for (auto& t : m_workers) t.join();
  m_workers.clear();
}

int64_t Loader::samplesPerEpoch() const {
  const int64_t n = static_cast<int64_t>(m_index.images.size());
  return n == 0 ? 0 : (n + m_opt.worldSize - 1) / m_opt.worldSize;
}

int64_t Loader::batchesPerEpoch() const {
  return (samplesPerEpoch() + m_opt.batch - 1) / m_opt.batch;
}

std::shared_ptr<const Loader::Plan> Loader::makePlan(int epoch, bool mosaicOn) const {
  auto plan = std::make_shared<Plan>();
  plan->epoch = epoch;
  plan->mosaicOn = mosaicOn && m_opt.augment;
  const int64_t n = static_cast<int64_t>(m_index.images.size());
  const bool rect = m_opt.rect && !m_opt.augment;
  if (rect) {
    // Ultralytics' rectangular batches: images sorted by aspect ratio (h / w), no shuffle.
    std::vector<int64_t> byAspect(static_cast<size_t>(n));
    std::iota(byAspect.begin(), byAspect.end(), 0);
    std::stable_sort(byAspect.begin(), byAspect.end(), [&](int64_t a, int64_t b) {
      const auto& ra = m_index.images[static_cast<size_t>(a)];
      const auto& rb = m_index.images[static_cast<size_t>(b)];
      return double(ra.height) / ra.width < double(rb.height) / rb.width;
    });
    for (int64_t i : distributedIndices(n, m_opt.rank, m_opt.worldSize, false, m_opt.seed, epoch))
      plan->order.push_back(byAspect[static_cast<size_t>(i)]);
  } else {
    plan->order =
        distributedIndices(n, m_opt.rank, m_opt.worldSize, m_opt.shuffle, m_opt.seed, epoch);
    if (plan->mosaicOn && epoch > 0)
      plan->previous = distributedIndices(n, m_opt.rank, m_opt.worldSize, m_opt.shuffle,
                                          m_opt.seed, epoch - 1);
  }
  const int64_t m = static_cast<int64_t>(plan->order.size());
  plan->numBatches = (m + m_opt.batch - 1) / m_opt.batch;
  if (rect) {
    for (int64_t b = 0; b < plan->numBatches; ++b) {
      double lo = 1e30, hi = 0;
      for (int64_t p = b * m_opt.batch; p < std::min(m, (b + 1) * m_opt.batch); ++p) {
        const auto& r = m_index.images[static_cast<size_t>(plan->order[static_cast<size_t>(p)])];
        const double ar = double(r.height) / r.width;
        lo = std::min(lo, ar);
        hi = std::max(hi, ar);
      }
      double sh = 1, sw = 1;  // shape as (h, w) fractions of imgsz
      if (hi < 1)
        sh = hi;
      else if (lo > 1)
        sw = 1 / lo;
      const auto dim = [&](double f) {
        return static_cast<int>(std::ceil(f * m_opt.imgsz / m_opt.stride + m_opt.rectPad)) *
               m_opt.stride;
      };
      plan->shapes.emplace_back(dim(sw), dim(sh));
    }
  }
  return plan;
}

void Loader::startEpoch(int epoch, bool mosaicOn, int64_t firstBatch) {
  if (!m_opt.persistentWorkers && m_epochsStarted > 0 && !m_workers.empty()) {
    stopWorkers();  // a batch being built is finished first; the new epoch discards it anyway
    startWorkers();
  }
  ++m_epochsStarted;
  auto plan = makePlan(epoch, mosaicOn);
  firstBatch = std::clamp<int64_t>(firstBatch, 0, plan->numBatches);
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_plan = std::move(plan);
    ++m_generation;
    m_nextJob = firstBatch;
    m_consumed = firstBatch;
    m_ready.clear();
  }
  m_workCv.notify_all();
}

Batch Loader::buildBatch(int epoch, bool mosaicOn, int64_t seq) {
  auto plan = makePlan(epoch, mosaicOn);
  STAVE_CHECK(seq >= 0 && seq < plan->numBatches, "batch " << seq << " of " << plan->numBatches);
  return build(*plan, seq);
}

Batch Loader::build(const Plan& plan, int64_t seq) {
  const int B = m_opt.batch, S = m_opt.imgsz;
  const int64_t m = static_cast<int64_t>(plan.order.size());
  const int64_t start = seq * B, end = std::min(m, start + B);
  const cv::Size shape =
      plan.shapes.empty() ? cv::Size(S, S) : plan.shapes[static_cast<size_t>(seq)];
  StageTimes times;
  Batch b;
  b.seq = seq;
  b.epoch = plan.epoch;
  b.n = static_cast<int>(end - start);
  // This rank's position p is global position rank + p * world; those past the dataset are
  // DistributedSampler's padding (always the last positions of a rank).
  const int64_t total = static_cast<int64_t>(m_index.images.size());
  const int64_t unique =
      total > m_opt.rank ? (total - m_opt.rank + m_opt.worldSize - 1) / m_opt.worldSize : 0;
  b.padded = static_cast<int>(std::max<int64_t>(0, end - std::max(start, unique)));
  b.height = shape.height;
  b.width = shape.width;
  b.channelsLast = m_opt.channelsLast;
  const size_t per = size_t(3) * shape.width * shape.height;
  double t0 = monotonicSeconds();
  b.pixels = m_opt.allocate(per * static_cast<size_t>(b.n));
  times.collate += monotonicSeconds() - t0;
  // Training samples are rendered straight into their slot of the batch (makeTrainSample with
  // a PixelSink); validation samples and the rarer augmentation paths are copied in.
  for (int64_t p = start; p < end; ++p) {
    const int64_t idx = plan.order[static_cast<size_t>(p)];
    const size_t i = static_cast<size_t>(p - start);
    Sample s;
    if (!m_opt.augment) {
      s = makeValSample(m_ctx, idx, shape, times);
    } else {
      // Mosaic companions: recently loaded samples of this rank's order (so they usually sit
      // in the recent buffer), chosen by position only, so thread count and timing do not
      // matter. Positions before the epoch's first are the previous epoch's last; in the
      // first batches of the first epoch there are none, and companions come from the batch.
      const int64_t before = static_cast<int64_t>(plan.previous.size());
      const int64_t hi = start - m_opt.mosaicLag;
      const int64_t lo = std::max<int64_t>(-before, hi - m_opt.mosaicWindow);
      const auto companion = [&](Rng& r) -> int64_t {
        if (hi <= lo)
          return plan.order[static_cast<size_t>(
              start + static_cast<int64_t>(r.below(uint64_t(end - start))))];
        const int64_t pos = lo + static_cast<int64_t>(r.below(uint64_t(hi - lo)));
        return pos >= 0 ? plan.order[static_cast<size_t>(pos)]
                        : plan.previous[static_cast<size_t>(before + pos)];
      };
      Rng rng(mixSeed(m_opt.seed, static_cast<uint64_t>(plan.epoch), static_cast<uint64_t>(idx)));
      const PixelSink sink{b.pixels.get() + i * per, m_opt.channelsLast};
      s = makeTrainSample(m_ctx, idx, plan.mosaicOn, companion, rng, times, &sink);
      STAVE_CHECK(s.img.empty(), "a training sample with a sink kept its pixels");
    }
    t0 = monotonicSeconds();
    if (!m_opt.augment) {
      STAVE_CHECK(
          s.img.cols == shape.width && s.img.rows == shape.height && s.img.type() == CV_8UC3,
          "sample " << i << " is " << s.img.cols << "x" << s.img.rows);
      copyBgrToRgb(s.img, b.pixels.get() + i * per, m_opt.channelsLast);
    }
    for (const auto& bx : s.boxes) {
      b.targets.insert(b.targets.end(),
                       {float(i), float(bx.cls), (bx.x1 + bx.x2) / 2 / shape.width,
                        (bx.y1 + bx.y2) / 2 / shape.height, (bx.x2 - bx.x1) / shape.width,
                        (bx.y2 - bx.y1) / shape.height});
    }
    b.paths.push_back(m_index.images[static_cast<size_t>(idx)].imagePath);
    b.indices.push_back(static_cast<int64_t>(idx));
    b.meta.push_back(s.meta);
    times.collate += monotonicSeconds() - t0;
  }
  b.times.read = times.read;
  b.times.decode = times.decode;
  b.times.augment = times.augment;
  b.times.collate = times.collate;
  return b;
}

void Loader::workerLoop() {
  std::unique_lock<std::mutex> lock(m_mutex);
  for (;;) {
    m_workCv.wait(lock, [&] {
      return m_stop || (m_plan && m_nextJob < m_plan->numBatches &&
                        m_nextJob < m_consumed + m_opt.prefetch + m_opt.workers);
    });
    if (m_stop) return;
    const int64_t seq = m_nextJob++;
    const uint64_t gen = m_generation;
    const std::shared_ptr<const Plan> plan = m_plan;
    lock.unlock();
    Slot slot;
    try {
      slot.batch = build(*plan, seq);
    } catch (...) {
      slot.error = std::current_exception();
    }
    lock.lock();
    if (gen == m_generation) {
      m_ready[seq] = std::move(slot);
      m_readyCv.notify_all();
    }
  }
}

std::optional<Batch> Loader::next() {
  std::unique_lock<std::mutex> lock(m_mutex);
  if (!m_plan) {
    lock.unlock();
    startEpoch(0, true);
    lock.lock();
  }
  if (m_consumed >= m_plan->numBatches) return std::nullopt;
  const int64_t seq = m_consumed;
  const int epoch = m_plan->epoch;
  const double t0 = monotonicSeconds();
  Slot slot;
  if (m_opt.workers <= 0) {
    // workers = 0: build on the caller's thread.
    const auto plan = m_plan;
    lock.unlock();
    try {
      slot.batch = build(*plan, seq);
    } catch (...) {
      slot.error = std::current_exception();
    }
    lock.lock();
  } else {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(m_opt.timeoutSeconds);
    while (!m_stop && !m_ready.count(seq)) {
      if (m_readyCv.wait_until(lock, deadline) == std::cv_status::timeout && !m_ready.count(seq))
        throw std::runtime_error("data loader: no batch for " +
                                 std::to_string(m_opt.timeoutSeconds) + " s (epoch " +
                                 std::to_string(epoch) + ", batch " + std::to_string(seq) + ")");
    }
    if (m_stop) return std::nullopt;
    slot = std::move(m_ready[seq]);
    m_ready.erase(seq);
  }
  const double waited = monotonicSeconds() - t0;
  ++m_consumed;
  m_stats.consumerWait += waited;
  lock.unlock();
  m_workCv.notify_all();
  if (slot.error) {
    try {
      std::rethrow_exception(slot.error);
    } catch (const std::exception& e) {
      throw std::runtime_error("data loader, epoch " + std::to_string(epoch) + " batch " +
                               std::to_string(seq) + ": " + e.what());
    }
  }
  Batch b = std::move(*slot.batch);
  b.times.wait = m_opt.workers <= 0 ? 0.0 : waited;
  lock.lock();
  m_stats.batches += 1;
  m_stats.samples += b.n;
  m_stats.read += b.times.read;
  m_stats.decode += b.times.decode;
  m_stats.augment += b.times.augment;
  m_stats.collate += b.times.collate;
  return b;
}

size_t Loader::recentCapacity() const {
  return m_source->recentCapacity();
}

std::vector<ImageProblem> Loader::takeImageProblems() {
  return m_source->takeProblems();
}

int64_t Loader::splitSize() const {
  return static_cast<int64_t>(m_index.images.size());
}

LoaderStats Loader::stats() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  LoaderStats s = m_stats;
  const ImageSourceStats is = m_source->stats();
  s.decoded = is.decoded;
  s.cacheHits = is.cacheHits;
  s.decodeFailures = is.decodeFailures;
  return s;
}

}  // namespace stave::data
