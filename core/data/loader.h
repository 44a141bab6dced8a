#pragma once
// The data loader: persistent worker threads build whole batches (decode, augment, collate)
// ahead of the trainer into a bounded queue and hand them out in order. No torch here: the
// trainer wraps Batch::pixels with torch::from_blob.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/base/result.h"
#include "core/config/schema.h"
#include "core/data/augment.h"
#include "core/data/dataset.h"
#include "core/data/image_source.h"

namespace stave::data {

/// Loader settings (plain values; the trainer fills them from its RunConfig).
struct LoaderOptions {
  /// square training size; validation long side
  int imgsz = static_cast<int>(config::defaultNumber("imgsz"));
  /// images per batch, per rank
  int batch = static_cast<int>(config::defaultNumber("batch"));
  /// worker threads; 0 = build on next()
  int workers = static_cast<int>(config::defaultNumber("workers"));
  /// Keep the worker threads between epochs (PyTorch's persistent_workers); false stops them
  /// at each new epoch and starts fresh ones (buffers and caches are the loader's and stay).
  bool persistentWorkers = config::defaultNumber("persistent_workers") != 0;
  /// finished batches that may wait beyond those being built
  int prefetch = static_cast<int>(config::defaultNumber("prefetch"));
  bool augment = true;        ///< training augmentation (else letterbox only)
  bool shuffle = true;        ///< new order every epoch from (seed, epoch)
  bool channelsLast = false;  ///< pixels NHWC instead of NCHW
  bool rect = false;   ///< validation: batches of similar aspect, each padded to its own shape
  uint64_t seed = 0;   ///< all randomness derives from (seed, epoch, sample index)
  int rank = 0;        ///< this rank
  int worldSize = 1;   ///< number of ranks
  AugmentOptions aug;  ///< Ultralytics hyperparameters
  /// Allocates pixel memory (e.g. pinned); default new uint8_t[].
  std::function<std::shared_ptr<uint8_t>(size_t)> allocate;
  CacheMode cache = CacheMode::None;  ///< none, ram or disk
  std::string diskCachePath;          ///< cache=disk file ("" = beside the dataset)
  int64_t ramBudgetBytes = 0;         ///< cache=ram budget (0 = available memory)
  int stride = 32;                    ///< rect batch sizes are multiples of this
  double rectPad = 0.5;               ///< rect padding in strides (Ultralytics: 0.5 for val)
  int mosaicLag = 64;                 ///< mosaic companions come from samples at least this
  int mosaicWindow = 64;              ///< many positions back, within a window of this size
  double timeoutSeconds = 600;        ///< next() gives up when no batch arrives for this long
  bool sequentialOpenCv = true;       ///< cv::setNumThreads(0) when workers > 0 (process-wide)
  bool tuneMalloc = true;             ///< keep freed image buffers in the heap (process-wide, once)
};

/// Seconds spent on one batch, summed over its samples (so with several workers they can
/// exceed wall time), plus how long the consumer waited for it.
struct LoaderTimes {
  double read = 0;     ///< reading files
  double decode = 0;   ///< decoding and resizing
  double augment = 0;  ///< mosaic, perspective, HSV, flips, letterbox
  double collate = 0;  ///< targets, and copying validation images into the batch layout
                       ///< (training images are rendered straight into it: in augment)
  double wait = 0;     ///< time next() blocked waiting for this batch
};

/// One collated batch.
struct Batch {
  int64_t seq = 0;  ///< batch index within the epoch (delivered in this order)
  int epoch = 0;    ///< the epoch it belongs to
  int n = 0;        ///< images in the batch (the last one may be smaller)
  /// The last `padded` images repeat images of other ranks: DistributedSampler pads every
  /// rank to the same length. Training uses them as DDP does; validation must not count them.
  int padded = 0;
  int height = 0;                   ///< image height in pixels
  int width = 0;                    ///< image width in pixels
  bool channelsLast = false;        ///< NHWC (else NCHW)
  std::shared_ptr<uint8_t> pixels;  ///< uint8 RGB, n*3*height*width bytes
  std::vector<float> targets;       ///< rows of 6: batchIdx, cls, cx, cy, w, h (normalised)
  std::vector<std::string> paths;   ///< image paths
  std::vector<int64_t> indices;     ///< the images' indices in the split
  std::vector<ImageMeta> meta;      ///< per image: original size, scale and padding
  LoaderTimes times;                ///< per-stage seconds
  /// Number of target rows.
  int64_t numTargets() const { return static_cast<int64_t>(targets.size() / 6); }
};

/// Totals since the loader was made.
struct LoaderStats {
  int64_t batches = 0, samples = 0;                       ///< delivered
  double read = 0, decode = 0, augment = 0, collate = 0;  ///< stage seconds, summed over samples
  double consumerWait = 0;                                ///< seconds next() blocked
  int64_t decoded = 0;                                    ///< images decoded from files
  int64_t cacheHits = 0;       ///< images taken from a cache or the recent buffer
  int64_t decodeFailures = 0;  ///< images that could not be decoded (trained as grey)
  int64_t workerStarts = 0;    ///< times the worker threads were started (1 while persistent)
};

/// Batches for one split and one rank. Not copyable; the destructor stops and joins workers.
/// The SplitIndex must outlive the loader (it is referenced, not copied).
class Loader {
 public:
  /// Throws std::runtime_error when a cache cannot be used (see validate()).
  Loader(const SplitIndex& index, LoaderOptions options);
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  /// Checks options and caches before making a loader; errors name the key and valid range.
  static Status validate(const SplitIndex& index, const LoaderOptions& options);

  /// Starts (or restarts) `epoch`: the order from (seed, epoch), mosaic on or off
  /// (close_mosaic). Batches of an unfinished previous epoch are dropped. With `firstBatch`
  /// the epoch starts there (a resumed run): the same batches the full epoch would give next.
  void startEpoch(int epoch, bool mosaicOn = true, int64_t firstBatch = 0);
  /// The next batch in order, or nullopt at the end of the epoch. Rethrows a worker's
  /// exception with the epoch and batch it happened in.
  std::optional<Batch> next();
  /// Batches per epoch for this rank.
  int64_t batchesPerEpoch() const;
  /// Images per epoch for this rank (padded as DistributedSampler pads).
  int64_t samplesPerEpoch() const;
  /// Totals so far.
  LoaderStats stats() const;
  /// Images found undecodable (or with a damaged cache entry) since the last call, each once.
  std::vector<ImageProblem> takeImageProblems();
  /// Images in the split this loader reads (all ranks' shards together).
  int64_t splitSize() const;
  /// Decoded images kept for mosaic companions (0 without augmentation or with a cache).
  size_t recentCapacity() const;

  /// Builds batch `seq` of (epoch, mosaicOn) on the calling thread, bypassing the queue: the
  /// same bytes the workers produce (used by tests and the benchmark).
  Batch buildBatch(int epoch, bool mosaicOn, int64_t seq);

 private:
  struct Plan;
  struct BufferPool;
  struct Slot {
    std::optional<Batch> batch;
    std::exception_ptr error;
  };
  std::shared_ptr<const Plan> makePlan(int epoch, bool mosaicOn) const;
  Batch build(const Plan& plan, int64_t seq);
  void workerLoop();

  const SplitIndex& m_index;
  LoaderOptions m_opt;
  std::unique_ptr<ImageSource> m_source;
  AugmentContext m_ctx;
  std::shared_ptr<BufferPool> m_pool;  // recycled batch buffers (default allocator only)

  mutable std::mutex m_mutex;
  std::condition_variable m_workCv, m_readyCv;
  std::shared_ptr<const Plan> m_plan;
  uint64_t m_generation = 0;
  int64_t m_nextJob = 0, m_consumed = 0;
  std::map<int64_t, Slot> m_ready;
  bool m_stop = false;
  LoaderStats m_stats;
  std::vector<std::thread> m_workers;
  int m_epochsStarted = 0;  // startEpoch calls (not persistent: the workers restart from the 2nd)
  void startWorkers();
  void stopWorkers();
};

}  // namespace stave::data
