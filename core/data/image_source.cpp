#include "core/data/image_source.h"
#include "core/base/clock.h"
#include "core/base/hash.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#ifdef STAVE_HAVE_IMGCODECS
#include <opencv2/imgcodecs.hpp>
#endif
#include <opencv2/imgproc.hpp>

#include <jpeglib.h>

#include "core/data/rng.h"

namespace stave::data {
namespace fs = std::filesystem;

namespace {

// libjpeg reports fatal errors through error_exit, which must not return: jump back to
// decodeJpegBgr. Warnings (e.g. a missing end marker) are not printed.
struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
};
[[noreturn]] void jpegErrorExit(j_common_ptr c) {
  std::longjmp(reinterpret_cast<JpegError*>(c->err)->jump, 1);
}
void jpegQuiet(j_common_ptr, int) {}

constexpr char kDiskMagic[8] = {'S', 'T', 'A', 'V', 'E', 'I', 'C', '1'};
constexpr uint64_t kDiskVersion = 5;  // 2: full decode + INTER_LINEAR (Ultralytics 8.4);
                                      // 3: one cache per split for training and validation;
                                      // 4: entries carry a checksum and an undecodable flag;
                                      // 5: keyed with the one hash (XXH3) instead of FNV-1a
static_assert(sizeof(DiskCacheEntry) == 40, "disk cache entries are 40 bytes");

struct DiskHeader {
  char magic[8];
  uint64_t key;
  uint64_t count;
  uint64_t dataBytes;
  uint32_t imgsz;
  uint32_t flags;
  uint64_t reserved[3];
};
static_assert(sizeof(DiskHeader) == 64, "disk cache header is 64 bytes");

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

void applyOrientation(cv::Mat& m, int o) {
  switch (o) {
    case 2:
      cv::flip(m, m, 1);
      break;
    case 3:
      cv::rotate(m, m, cv::ROTATE_180);
      break;
    case 4:
      cv::flip(m, m, 0);
      break;
    case 5:
      cv::transpose(m, m);
      break;
    case 6:
      cv::rotate(m, m, cv::ROTATE_90_CLOCKWISE);
      break;
    case 7:
      cv::transpose(m, m);
      cv::flip(m, m, -1);
      break;
    case 8:
      cv::rotate(m, m, cv::ROTATE_90_COUNTERCLOCKWISE);
      break;
    default:
      break;
  }
}

bool sameShape(const cv::Size& a, int w, int h) {
  return a.width == w && a.height == h;
}
}  // namespace


Result<CacheMode> parseCacheMode(const std::string& t) {
  if (t.empty() || t == "none" || t == "false" || t == "False") return CacheMode::None;
  if (t == "ram" || t == "true" || t == "True") return CacheMode::Ram;
  if (t == "disk") return CacheMode::Disk;
  return Error{"", 0, "cache", "expected none, ram or disk, not '" + t + "'"};
}

cv::Size loadedSize(int w0, int h0, int imgsz) {
  if (imgsz <= 0) return {w0, h0};
  const double r = double(imgsz) / std::max(w0, h0);
  if (w0 == imgsz || h0 == imgsz) {
    if (std::max(w0, h0) == imgsz) return {w0, h0};
  }
  const int w = std::max(1, std::min(static_cast<int>(std::ceil(w0 * r - 1e-9)), imgsz));
  const int h = std::max(1, std::min(static_cast<int>(std::ceil(h0 * r - 1e-9)), imgsz));
  return {w, h};
}

cv::Mat decodeJpegBgr(const uint8_t* data, size_t size, int scaleDenom) {
#ifdef JCS_EXTENSIONS
  if (size < 4 || size > 0xFFFFFFFFu) return {};
  jpeg_decompress_struct d{};
  JpegError err{};
  d.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpegErrorExit;
  err.mgr.emit_message = jpegQuiet;
  // The image lives on the heap: an automatic object changed between setjmp and longjmp would
  // have an indeterminate value after the jump (and its destructor would run on it).
  const auto img = std::make_unique<cv::Mat>();
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&d);
    return {};
  }
  jpeg_create_decompress(&d);
  jpeg_mem_src(&d, data, static_cast<unsigned long>(size));
  jpeg_read_header(&d, TRUE);
  if (d.jpeg_color_space == JCS_CMYK || d.jpeg_color_space == JCS_YCCK) {
    jpeg_destroy_decompress(&d);  // rare: left to OpenCV, which converts CMYK
    return {};
  }
  // Straight to BGR: OpenCV 4.6 as Debian builds it decodes to RGB and swaps the channels in a
  // scalar loop, a fifth of its decode time.
  d.out_color_space = JCS_EXT_BGR;
  d.scale_num = 1;
  d.scale_denom = static_cast<unsigned int>(scaleDenom);
  jpeg_start_decompress(&d);
  try {
    img->create(static_cast<int>(d.output_height), static_cast<int>(d.output_width), CV_8UC3);
  } catch (...) {
    jpeg_destroy_decompress(&d);
    throw;
  }
  while (d.output_scanline < d.output_height) {
    JSAMPROW row = img->ptr<uint8_t>(static_cast<int>(d.output_scanline));
    jpeg_read_scanlines(&d, &row, 1);
  }
  jpeg_finish_decompress(&d);
  jpeg_destroy_decompress(&d);
  return *img;
#else
  (void)data, (void)size, (void)scaleDenom;
  return {};  // a libjpeg without BGR output: OpenCV decodes
#endif
}

std::vector<uint8_t> encodeJpegBgr(const cv::Mat& bgrIn, int quality) {
  STAVE_CHECK(bgrIn.type() == CV_8UC3, "encodeJpegBgr needs 8-bit BGR");
  const cv::Mat bgr = bgrIn.isContinuous() ? bgrIn : bgrIn.clone();
  jpeg_compress_struct c{};
  JpegError err{};
  c.err = jpeg_std_error(&err.mgr);
  err.mgr.error_exit = jpegErrorExit;
  err.mgr.emit_message = jpegQuiet;
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&c);
    std::free(buffer);
    throw std::runtime_error("JPEG encoding failed");
  }
  jpeg_create_compress(&c);
  jpeg_mem_dest(&c, &buffer, &size);
  c.image_width = static_cast<JDIMENSION>(bgr.cols);
  c.image_height = static_cast<JDIMENSION>(bgr.rows);
  c.input_components = 3;
#ifdef JCS_EXTENSIONS
  c.in_color_space = JCS_EXT_BGR;
#else
  c.in_color_space = JCS_RGB;
#endif
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, std::clamp(quality, 1, 100), TRUE);
  jpeg_start_compress(&c, TRUE);
#ifndef JCS_EXTENSIONS
  std::vector<uint8_t> rgb(static_cast<size_t>(bgr.cols) * 3);
#endif
  while (c.next_scanline < c.image_height) {
    const uint8_t* src = bgr.ptr<uint8_t>(static_cast<int>(c.next_scanline));
#ifdef JCS_EXTENSIONS
    JSAMPROW row = const_cast<uint8_t*>(src);
#else
    for (int x = 0; x < bgr.cols; ++x) {
      rgb[3 * x] = src[3 * x + 2];
      rgb[3 * x + 1] = src[3 * x + 1];
      rgb[3 * x + 2] = src[3 * x];
    }
    JSAMPROW row = rgb.data();
#endif
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::vector<uint8_t> out(buffer, buffer + size);
  std::free(buffer);
  return out;
}

bool haveImageCodecs() {
#ifdef STAVE_HAVE_IMGCODECS
  return true;
#else
  return false;
#endif
}

bool readFileBytes(const std::string& path, std::vector<uint8_t>& out) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  const std::streamsize n = in.tellg();
  if (n < 0) return false;
  in.seekg(0);
  out.resize(static_cast<size_t>(n));
  return n == 0 || static_cast<bool>(in.read(reinterpret_cast<char*>(out.data()), n));
}

cv::Mat decodeImageBgr(const std::vector<uint8_t>& bytes, int scaleDenom) {
  const bool jpeg = bytes.size() > 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF;
  cv::Mat m;
  if (jpeg) m = decodeJpegBgr(bytes.data(), bytes.size(), scaleDenom);
#ifdef STAVE_HAVE_IMGCODECS
  if (m.empty() && !bytes.empty()) {
    // Everything else, and JPEGs libjpeg refused (OpenCV then names the problem or fails too).
    int flags = cv::IMREAD_COLOR;
    if (scaleDenom == 2) flags = cv::IMREAD_REDUCED_COLOR_2;
    if (scaleDenom == 4) flags = cv::IMREAD_REDUCED_COLOR_4;
    if (scaleDenom == 8) flags = cv::IMREAD_REDUCED_COLOR_8;
    flags |= cv::IMREAD_IGNORE_ORIENTATION;
    m = cv::imdecode(
        cv::Mat(1, static_cast<int>(bytes.size()), CV_8U, const_cast<uint8_t*>(bytes.data())),
        flags);
  }
#endif
  return m;
}

/// Fault injection for the doctor's tests and benchmark (docs/doctor.md):
/// STAVE_FAULT_SLOW_READ_MS=M adds M ms of latency to every image read from storage (not from a
/// cache), as a slow network filesystem would. 0 when unset.
int slowReadMs() {
  static const int ms = [] {
    const char* v = std::getenv("STAVE_FAULT_SLOW_READ_MS");
    return v && *v ? std::max(0, std::atoi(v)) : 0;
  }();
  return ms;
}

LoadedImage loadImage(const ImageRecord& rec, int imgsz, LoadResize resize, StageTimes& times) {
  double t0 = monotonicSeconds();
  std::vector<uint8_t> bytes;
  if (const int ms = slowReadMs(); ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  {
    std::ifstream in(rec.imagePath, std::ios::binary | std::ios::ate);
    if (!in) throw std::runtime_error(rec.imagePath + ": cannot open image");
    const std::streamsize n = in.tellg();
    in.seekg(0);
    bytes.resize(static_cast<size_t>(std::max<std::streamsize>(n, 0)));
    if (n <= 0 || !in.read(reinterpret_cast<char*>(bytes.data()), n))
      throw std::runtime_error(rec.imagePath + ": cannot read image");
  }
  const double t1 = monotonicSeconds();
  times.read += t1 - t0;
  const cv::Size target = loadedSize(rec.width, rec.height, imgsz);
  const bool jpeg = bytes.size() > 3 && bytes[0] == 0xFF && bytes[1] == 0xD8;
  const int longSide = std::max(rec.width, rec.height);
  // libjpeg's DCT scaling: decode at 1/k when the result is still at least the target size.
  int denom = 1;
  if (jpeg && imgsz > 0 && resize == LoadResize::Preview) {
    if (longSide >= 8 * imgsz)
      denom = 8;
    else if (longSide >= 4 * imgsz)
      denom = 4;
    else if (longSide >= 2 * imgsz)
      denom = 2;
  }
  (void)jpeg;
  cv::Mat m = decodeImageBgr(bytes, denom);
  if (m.empty()) {
    throw std::runtime_error(rec.imagePath + (jpeg || haveImageCodecs()
                                                  ? ": cannot decode image"
                                                  : ": only JPEG images can be decoded by this "
                                                    "build (it has no OpenCV imgcodecs)"));
  }
  if (m.depth() != CV_8U) m.convertTo(m, CV_8U, 1.0 / 256);
  if (m.channels() == 1)
    cv::cvtColor(m, m, cv::COLOR_GRAY2BGR);
  else if (m.channels() == 4)
    cv::cvtColor(m, m, cv::COLOR_BGRA2BGR);
  applyOrientation(m, rec.orientation);
  if (!sameShape(m.size(), target.width, target.height)) {
    const bool shrink = target.width < m.cols;
    const bool area = resize == LoadResize::Preview && shrink;
    cv::resize(m, m, target, 0, 0, area ? cv::INTER_AREA : cv::INTER_LINEAR);
  }
  times.decode += monotonicSeconds() - t1;
  LoadedImage li;
  li.img = m;
  li.w0 = rec.width;
  li.h0 = rec.height;
  return li;
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
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(diskKey(index, imgsz)));
  const std::string root = index.root.empty() && !index.images.empty()
                               ? fs::path(index.images[0].imagePath).parent_path().string()
                               : index.root;
  return (fs::path(root) / ".stave-cache" /
          ("images-" + index.split + "-" + std::to_string(imgsz) + "-" + hex + ".raw"))
      .string();
}

namespace {
// Maps a valid cache file; returns nullptr (and leaves nothing mapped) when stale or absent.
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
      static_cast<uint64_t>(st.st_size) != sizeof(DiskHeader) + sizeof(DiskCacheEntry) * count + h.dataBytes) {
    ::close(fd);
    return nullptr;
  }
  void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return nullptr;
  *size = static_cast<size_t>(st.st_size);
  return static_cast<const uint8_t*>(p);
}
}  // namespace

Status buildDiskCache(const SplitIndex& index, int imgsz, const std::string& pathIn,
                      int threads) {
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
  std::vector<DiskCacheEntry> table(n);
  uint64_t offset = sizeof(DiskHeader) + sizeof(DiskCacheEntry) * n;
  const uint64_t dataStart = offset;
  for (size_t i = 0; i < n; ++i) {
    const cv::Size s = loadedSize(index.images[i].width, index.images[i].height, imgsz);
    table[i] = {offset, s.width, s.height, index.images[i].width, index.images[i].height, 0, 0, 0};
    offset += uint64_t(s.width) * s.height * 3;
  }
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
  // Older caches of the same split and size (the dataset changed since) are dead weight.
  if (pathIn.empty()) {
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
  return Ok{};
}

ImageSource::ImageSource(const SplitIndex& index, ImageSourceOptions opt)
    : m_index(index), m_opt(std::move(opt)) {
  if (m_opt.cache == CacheMode::Ram) {
    const Status st = checkRamCache(index, m_opt.imgsz, m_opt.ramBudgetBytes);
    if (!st) throw std::runtime_error(st.errorText());
    m_ram.resize(index.images.size());
    m_ramLocks = std::vector<std::mutex>(64);
  } else if (m_opt.cache == CacheMode::Disk) {
    if (m_opt.diskCachePath.empty())
      m_opt.diskCachePath = defaultDiskCachePath(index, m_opt.imgsz);
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
    report(index, "its entry in the disk cache " + m_opt.diskCachePath +
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
