// The image caches: the cache= setting, whether cache=ram fits in memory, and the disk cache
// file (its name, its key, building it once, mapping it). ImageSource (image_source.cpp) reads
// from them; image_decode.cpp decodes what goes in.
#include "core/base/hash.h"
#include "core/data/image_cache_internal.h"
#include "core/data/image_source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "core/data/rng.h"

namespace stave::data {
namespace fs = std::filesystem;

namespace {

constexpr char kDiskMagic[8] = {'S', 'T', 'A', 'V', 'E', 'I', 'C', '1'};
constexpr uint64_t kDiskVersion = 5;  // 2: full decode + INTER_LINEAR (Ultralytics 8.4);
                                      // 3: one cache per split for training and validation;
                                      // 4: entries carry a checksum and an undecodable flag;
                                      // 5: keyed with the one hash (XXH3) instead of FNV-1a
static_assert(sizeof(DiskCacheEntry) == 40, "disk cache entries are 40 bytes");

std::string gb(double bytes) {
  std::ostringstream os;
  os.precision(3);
  os << bytes / 1e9 << " GB";
  return os.str();
}

int64_t availableMemory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return static_cast<int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE) / 2;
}

}  // namespace

namespace detail {

uint64_t diskKey(const SplitIndex& index, int imgsz) {
  uint64_t k = mixSeed(kDiskVersion, static_cast<uint64_t>(imgsz), index.images.size());
  for (const auto& r : index.images) {
    struct stat st {};
    ::stat(r.imagePath.c_str(), &st);
    k = mixSeed(k, hash64(r.imagePath), static_cast<uint64_t>(st.st_size),
                static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
                    static_cast<uint64_t>(st.st_mtim.tv_nsec));
    k = mixSeed(k, static_cast<uint64_t>(r.orientation));
  }
  return k;
}

const uint8_t* mapCache(const std::string& path, uint64_t key, size_t count, int imgsz,
                        size_t* size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(DiskHeader))) {
    ::close(fd);
    return nullptr;
  }
  DiskHeader h{};
  if (::pread(fd, &h, sizeof h, 0) != sizeof h || std::memcmp(h.magic, kDiskMagic, 8) != 0 ||
      h.key != key || h.count != count || h.imgsz != static_cast<uint32_t>(imgsz) ||
      static_cast<uint64_t>(st.st_size) !=
          sizeof(DiskHeader) + sizeof(DiskCacheEntry) * count + h.dataBytes) {
    ::close(fd);
    return nullptr;
  }
  void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return nullptr;
  *size = static_cast<size_t>(st.st_size);
  return static_cast<const uint8_t*>(p);
}

}  // namespace detail

using detail::DiskHeader;
using detail::diskKey;
using detail::mapCache;

Result<CacheMode> parseCacheMode(const std::string& t) {
  if (t.empty() || t == "none" || t == "false" || t == "False") return CacheMode::None;
  if (t == "ram" || t == "true" || t == "True") return CacheMode::Ram;
  if (t == "disk") return CacheMode::Disk;
  return Error{"", 0, "cache", "expected none, ram or disk, not '" + t + "'"};
}

Status checkRamCache(const SplitIndex& index, int imgsz, int64_t budget) {
  double need = 0;
  for (const auto& r : index.images) {
    const cv::Size s = loadedSize(r.width, r.height, imgsz);
    need += double(s.width) * s.height * 3;
  }
  const double withHeadroom = need * 1.5;
  const double avail = budget > 0 ? double(budget) : double(availableMemory());
  if (withHeadroom > avail) {
    return Error{"", 0, "cache",
                 "cache=ram needs " + gb(need) + " for " + std::to_string(index.images.size()) +
                     " " + index.split + " images at imgsz " + std::to_string(imgsz) + " (" +
                     gb(withHeadroom) + " with 50% headroom), but only " + gb(avail) +
                     (budget > 0 ? " are allowed" : " of RAM are available") +
                     "; use cache=disk or cache=none"};
  }
  return Ok{};
}

std::string defaultDiskCachePath(const SplitIndex& index, int imgsz) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(diskKey(index, imgsz)));
  const std::string root = index.root.empty() && !index.images.empty()
                               ? fs::path(index.images[0].imagePath).parent_path().string()
                               : index.root;
  return (fs::path(root) / ".stave-cache" /
          ("images-" + index.split + "-" + std::to_string(imgsz) + "-" + hex + ".raw"))
      .string();
}

namespace {

// Where each image's pixels go: one after the other, after the header and the table. `end`
// receives the file's size.
std::vector<DiskCacheEntry> layOutEntries(const SplitIndex& index, int imgsz, uint64_t* end) {
  const size_t n = index.images.size();
  std::vector<DiskCacheEntry> table(n);
  uint64_t offset = sizeof(DiskHeader) + sizeof(DiskCacheEntry) * n;
  for (size_t i = 0; i < n; ++i) {
    const cv::Size s = loadedSize(index.images[i].width, index.images[i].height, imgsz);
    table[i] = {offset, s.width, s.height, index.images[i].width, index.images[i].height, 0, 0, 0};
    offset += uint64_t(s.width) * s.height * 3;
  }
  *end = offset;
  return table;
}

// Decodes every image into its place in the mapped file at `base`, on `threads` threads (0 =
// one per core), and fills in each entry's checksum and flags.
void fillEntries(const SplitIndex& index, int imgsz, std::vector<DiskCacheEntry>& table,
                 uint8_t* base, int threads) {
  const size_t n = table.size();
  std::atomic<size_t> next{0};
  auto work = [&] {
    StageTimes t;
    for (size_t i; (i = next.fetch_add(1)) < n;) {
      cv::Mat dst(table[i].h, table[i].w, CV_8UC3, base + table[i].offset);
      try {
        loadImage(index.images[i], imgsz, LoadResize::Ultralytics, t).img.copyTo(dst);
      } catch (const std::exception&) {
        // Flagged: every process that reads the entry reports the image as undecodable.
        dst.setTo(cv::Scalar(114, 114, 114));
        table[i].flags |= kDiskEntryUndecodable;
      }
      table[i].checksum = hash64(dst.data, dst.total() * dst.elemSize());
    }
  };
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

// Older caches of the same split and size next to `path` (the dataset changed since) are
// dead weight.
void removeOlderCaches(const std::string& path) {
  std::error_code ec;
  const std::string name = fs::path(path).filename().string();
  const std::string prefix =
      name.substr(0, name.size() - std::string("0123456789abcdef.raw").size());
  for (fs::directory_iterator it(fs::path(path).parent_path(), ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string other = it->path().filename().string();
    if (other != name && other.rfind(prefix, 0) == 0 && other.size() == name.size())
      fs::remove(it->path(), ec);
  }
}

}  // namespace

Status buildDiskCache(const SplitIndex& index, int imgsz, const std::string& pathIn, int threads) {
  const std::string path = pathIn.empty() ? defaultDiskCachePath(index, imgsz) : pathIn;
  const uint64_t key = diskKey(index, imgsz);
  size_t size = 0;
  if (const uint8_t* m = mapCache(path, key, index.images.size(), imgsz, &size)) {
    ::munmap(const_cast<uint8_t*>(m), size);
    return Ok{};
  }
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return Error{path, 0, "cache", "cannot create the cache folder: " + ec.message()};
  const size_t n = index.images.size();
  uint64_t offset = 0;
  std::vector<DiskCacheEntry> table = layOutEntries(index, imgsz, &offset);
  const uint64_t dataStart = sizeof(DiskHeader) + sizeof(DiskCacheEntry) * n;
  DiskHeader h{};
  std::memcpy(h.magic, kDiskMagic, 8);
  h.key = key;
  h.count = n;
  h.dataBytes = offset - dataStart;
  h.imgsz = static_cast<uint32_t>(imgsz);
  std::random_device rd;
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
  const int fd = ::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return Error{path, 0, "cache",
                 std::string("cannot create the disk cache: ") + std::strerror(errno)};
  auto fail = [&](const std::string& why) -> Status {
    ::close(fd);
    ::unlink(tmp.c_str());
    return Error{path, 0, "cache", why};
  };
  if (::ftruncate(fd, static_cast<off_t>(offset)) != 0)
    return fail(std::string("cannot size the disk cache (") + gb(double(offset)) +
                "): " + std::strerror(errno));
  void* p = ::mmap(nullptr, offset, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    return fail(std::string("cannot map the disk cache: ") + std::strerror(errno));
  auto* base = static_cast<uint8_t*>(p);
  std::memcpy(base, &h, sizeof h);
  fillEntries(index, imgsz, table, base, threads);
  std::memcpy(base + sizeof h, table.data(), sizeof(DiskCacheEntry) * n);
  const bool synced = ::msync(p, offset, MS_SYNC) == 0;
  ::munmap(p, offset);
  if (!synced || ::fsync(fd) != 0)
    return fail(std::string("cannot write the disk cache: ") + std::strerror(errno));
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return Error{path, 0, "cache", "cannot move the disk cache into place: " + why};
  }
  if (pathIn.empty()) removeOlderCaches(path);
  return Ok{};
}

}  // namespace stave::data
