// ImageSource: the thread-safe provider of one split's loaded images, from the RAM cache, the
// mapped disk cache or the recent buffer, decoding (image_decode.cpp) what none of them holds;
// images that cannot be used are reported once each. The caches are built in image_cache.cpp.
#include "core/data/image_source.h"
#include "core/base/hash.h"
#include "core/data/image_cache_internal.h"

#include <sys/mman.h>

#include <exception>
#include <memory>
#include <stdexcept>

#include <opencv2/core.hpp>

namespace stave::data {

using detail::DiskHeader;
using detail::diskKey;
using detail::mapCache;

ImageSource::ImageSource(const SplitIndex& index, ImageSourceOptions opt)
    : m_index(index), m_opt(std::move(opt)) {
  if (m_opt.cache == CacheMode::Ram) {
    const Status st = checkRamCache(index, m_opt.imgsz, m_opt.ramBudgetBytes);
    if (!st) throw std::runtime_error(st.errorText());
    m_ram.resize(index.images.size());
    m_ramLocks = std::vector<std::mutex>(64);
  } else if (m_opt.cache == CacheMode::Disk) {
    if (m_opt.diskCachePath.empty()) m_opt.diskCachePath = defaultDiskCachePath(index, m_opt.imgsz);
    const uint64_t key = diskKey(index, m_opt.imgsz);
    m_map = mapCache(m_opt.diskCachePath, key, index.images.size(), m_opt.imgsz, &m_mapSize);
    if (!m_map) {
      // Normally built by the launcher before the ranks start; a single process builds it here.
      const Status st = buildDiskCache(index, m_opt.imgsz, m_opt.diskCachePath);
      if (!st) throw std::runtime_error(st.errorText());
      m_map = mapCache(m_opt.diskCachePath, key, index.images.size(), m_opt.imgsz, &m_mapSize);
      if (!m_map)
        throw std::runtime_error(m_opt.diskCachePath +
                                 ": the disk cache was built but cannot be mapped");
    }
    m_table = reinterpret_cast<const DiskCacheEntry*>(m_map + sizeof(DiskHeader));
    m_checked = std::make_unique<std::atomic<uint8_t>[]>(index.images.size());
    for (size_t i = 0; i < index.images.size(); ++i) m_checked[i].store(0);
  }
}

ImageSource::~ImageSource() {
  if (m_map) ::munmap(const_cast<uint8_t*>(m_map), m_mapSize);
}

std::shared_ptr<const LoadedImage> ImageSource::decode(int64_t index, StageTimes& times) {
  const auto& rec = m_index.images[static_cast<size_t>(index)];
  auto li = std::make_shared<LoadedImage>();
  try {
    *li = loadImage(rec, m_opt.imgsz, LoadResize::Ultralytics, times);
    ++m_decoded;
  } catch (const std::exception& e) {
    // The scan found this image readable; if it is not (changed since, corrupt inside), train
    // on grey with no objects rather than stopping the run, and report it: the trainer warns
    // and fails the run past max_bad_images.
    const cv::Size s = loadedSize(rec.width, rec.height, m_opt.imgsz);
    li->img = cv::Mat(s, CV_8UC3, cv::Scalar(114, 114, 114));
    li->w0 = rec.width;
    li->h0 = rec.height;
    report(index, e.what(), true);
  }
  return li;
}

void ImageSource::report(int64_t index, const std::string& reason, bool undecodable) {
  std::lock_guard<std::mutex> g(m_problemMutex);
  if (m_reported.empty()) m_reported.assign(m_index.images.size(), 0);
  uint8_t& seen = m_reported[static_cast<size_t>(index)];
  const uint8_t bit = undecodable ? 1 : 2;
  if (seen & bit) return;
  seen |= bit;
  if (undecodable) ++m_failures;
  if (m_problems.size() < 1000)
    m_problems.push_back({index, m_index.images[static_cast<size_t>(index)].imagePath,
                          reason.substr(0, 300), undecodable});
}

std::vector<ImageProblem> ImageSource::takeProblems() {
  std::lock_guard<std::mutex> g(m_problemMutex);
  std::vector<ImageProblem> out;
  out.swap(m_problems);
  return out;
}

std::shared_ptr<const LoadedImage> ImageSource::fromDiskCache(int64_t index, StageTimes& times) {
  const DiskCacheEntry& e = m_table[index];
  std::atomic<uint8_t>& checked = m_checked[static_cast<size_t>(index)];
  uint8_t state = checked.load(std::memory_order_acquire);
  if (state == 0) {
    const uint64_t sum = hash64(m_map + e.offset, uint64_t(e.w) * e.h * 3);
    state = sum == e.checksum ? 1 : 2;
    checked.store(state, std::memory_order_release);
  }
  if (state == 2) {
    // Pixels changed on disk since the cache was written (zeroed, overwritten): never train
    // on them; the file is decoded instead and the cache named in a warning.
    report(index,
           "its entry in the disk cache " + m_opt.diskCachePath +
               " is damaged (checksum mismatch); decoded from the file instead",
           false);
    return decode(index, times);
  }
  if (e.flags & kDiskEntryUndecodable)
    report(index, "could not be decoded when the disk cache was built", true);
  auto li = std::make_shared<LoadedImage>();
  // Read-only view into the shared mapping: no copy, pages shared by every rank.
  li->img = cv::Mat(e.h, e.w, CV_8UC3, const_cast<uint8_t*>(m_map + e.offset));
  li->w0 = e.w0;
  li->h0 = e.h0;
  ++m_hits;
  return li;
}

std::shared_ptr<const LoadedImage> ImageSource::get(int64_t index, StageTimes& times) {
  STAVE_CHECK(index >= 0 && static_cast<size_t>(index) < m_index.images.size(),
              "image index " << index);
  if (m_opt.cache == CacheMode::Disk) return fromDiskCache(index, times);
  if (m_opt.cache == CacheMode::Ram) {
    std::mutex& lock = m_ramLocks[static_cast<size_t>(index) % m_ramLocks.size()];
    {
      std::lock_guard<std::mutex> g(lock);
      if (m_ram[static_cast<size_t>(index)]) {
        ++m_hits;
        return m_ram[static_cast<size_t>(index)];
      }
    }
    auto li = decode(index, times);
    std::lock_guard<std::mutex> g(lock);
    if (!m_ram[static_cast<size_t>(index)]) m_ram[static_cast<size_t>(index)] = li;
    return m_ram[static_cast<size_t>(index)];
  }
  if (m_opt.recentCapacity == 0) return decode(index, times);
  {
    std::lock_guard<std::mutex> g(m_recentMutex);
    auto it = m_recent.find(index);
    if (it != m_recent.end()) {
      it->second.second = ++m_tick;
      ++m_hits;
      return it->second.first;
    }
  }
  auto li = decode(index, times);
  std::lock_guard<std::mutex> g(m_recentMutex);
  m_recent[index] = {li, ++m_tick};
  if (m_recent.size() > m_opt.recentCapacity) {
    auto oldest = m_recent.begin();
    for (auto it = m_recent.begin(); it != m_recent.end(); ++it)
      if (it->second.second < oldest->second.second) oldest = it;
    m_recent.erase(oldest);
  }
  return li;
}

ImageSourceStats ImageSource::stats() const {
  return {m_decoded.load(), m_hits.load(), m_failures.load()};
}

}  // namespace stave::data
