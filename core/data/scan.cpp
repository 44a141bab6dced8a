// The split scan: list sources, read headers and labels on worker threads, merge in source
// order (so problems come out in a stable order), and cache the per-image results.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_set>

#include "core/data/image_source.h"

#include "core/base/atomic_file.h"
#include "core/base/bounded_read.h"
#include "core/base/hash.h"
#include "core/data/dataset.h"
#include "core/data/image_header.h"
#include "core/data/rng.h"

namespace stave::data {
namespace fs = std::filesystem;

namespace {
constexpr uint64_t kCacheVersion = 6;  // 4: implausible headers are left out;
                                       // 5: keyed with the one hash (XXH3) instead of FNV-1a;
                                       // 6: problems keep their catalog messages

struct FileStat {
  bool exists = false;
  int64_t size = 0;
  int64_t mtimeNs = 0;
};

FileStat statFile(const std::string& p) {
  struct stat st {};
  FileStat f;
  if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    f.exists = true;
    f.size = st.st_size;
    f.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  }
  return f;
}

uint64_t hashString(uint64_t h, const std::string& s) {
  return splitMix64(h ^ hash64(s));
}

struct Entry {
  std::string path;      // normalised absolute image path
  std::string listFile;  // the .txt list it came from, or ""
  int listLine = 0;
};

struct Slot {
  bool usable = false;
  ImageRecord record;
  std::vector<Problem> problems;
  int64_t dropped = 0;
};

// --- tiny binary serialisation for the cache -------------------------------------------
struct Writer {
  std::string out;
  void u64(uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }
  void i32(int32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
  void f32(float v) { out.append(reinterpret_cast<const char*>(&v), 4); }
  void str(const std::string& s) {
    u64(s.size());
    out += s;
  }
};
struct Reader {
  const std::string& in;
  size_t pos = 0;
  bool ok = true;
  bool take(void* dst, size_t n) {
    if (!ok || pos + n > in.size()) return ok = false;
    std::memcpy(dst, in.data() + pos, n);
    pos += n;
    return true;
  }
  uint64_t u64() {
    uint64_t v = 0;
    take(&v, 8);
    return v;
  }
  int32_t i32() {
    int32_t v = 0;
    take(&v, 4);
    return v;
  }
  float f32() {
    float v = 0;
    take(&v, 4);
    return v;
  }
  std::string str() {
    const uint64_t n = u64();
    if (!ok || pos + n > in.size()) {
      ok = false;
      return {};
    }
    std::string s = in.substr(pos, n);
    pos += n;
    return s;
  }
};

/// Catalog messages: the id, then each argument's name, plain value and nested messages.
void writeTexts(Writer& w, const TextParts& parts) {
  w.u64(parts.size());
  for (const auto& t : parts) {
    w.str(t.id);
    w.u64(t.args.size());
    for (const auto& a : t.args) {
      w.str(a.name);
      w.str(a.value);
      writeTexts(w, a.text);
    }
  }
}
/// writeTexts read back; false for a damaged cache (counts or nesting past any real message).
bool readTexts(Reader& r, TextParts& parts, int depth) {
  const uint64_t n = r.u64();
  if (!r.ok || n > 64 || depth > 8) return false;
  parts.clear();
  for (uint64_t i = 0; i < n; ++i) {
    Text t(r.str());
    const uint64_t na = r.u64();
    if (!r.ok || na > 64) return false;
    for (uint64_t k = 0; k < na; ++k) {
      std::string name = r.str();
      Text::Arg a(std::move(name), r.str());
      if (!readTexts(r, a.text, depth + 1)) return false;
      t.args.push_back(std::move(a));
    }
    parts.push_back(std::move(t));
  }
  return r.ok;
}

void writeSlot(Writer& w, const Slot& s) {
  w.i32(s.usable);
  w.str(s.record.imagePath);
  w.str(s.record.labelPath);
  w.i32(s.record.width);
  w.i32(s.record.height);
  w.i32(s.record.orientation);
  w.u64(s.record.boxes.size());
  for (const auto& b : s.record.boxes) {
    w.i32(b.cls);
    w.f32(b.cx);
    w.f32(b.cy);
    w.f32(b.w);
    w.f32(b.h);
  }
  w.u64(s.problems.size());
  for (const auto& p : s.problems) {
    w.str(p.file);
    w.i32(p.line);
    w.str(p.kind);
    w.str(p.message);
    w.i32(p.skipsImage);
    writeTexts(w, p.text);
  }
  w.u64(static_cast<uint64_t>(s.dropped));
}

bool readSlot(Reader& r, Slot& s) {
  s.usable = r.i32() != 0;
  s.record.imagePath = r.str();
  s.record.labelPath = r.str();
  s.record.width = r.i32();
  s.record.height = r.i32();
  s.record.orientation = r.i32();
  const uint64_t nb = r.u64();
  if (!r.ok || nb > 1000000) return false;
  s.record.boxes.resize(nb);
  for (auto& b : s.record.boxes) {
    b.cls = r.i32();
    b.cx = r.f32();
    b.cy = r.f32();
    b.w = r.f32();
    b.h = r.f32();
  }
  const uint64_t np = r.u64();
  if (!r.ok || np > 1000000) return false;
  s.problems.resize(np);
  for (auto& p : s.problems) {
    p.file = r.str();
    p.line = r.i32();
    p.kind = r.str();
    p.message = r.str();
    p.skipsImage = r.i32() != 0;
    if (!readTexts(r, p.text, 0)) return false;
  }
  s.dropped = static_cast<int64_t>(r.u64());
  return r.ok;
}

/// The largest label file read (a label file holds a few hundred rows of ~40 bytes).
constexpr size_t kMaxLabelBytes = size_t{16} << 20;

Slot scanOne(const std::string& image, const DataSpec& spec, const ScanOptions& opt) {
  Slot s;
  s.record.imagePath = image;
  s.record.labelPath = labelPathFor(image);
  const ImageHeader h = readImageHeader(image);
  auto skip = [&](const std::string& kind, Text why) {
    s.problems.push_back(textProblem(image, 0, kind, {std::move(why)}, true));
  };
  std::error_code linkEc;
  if (fs::is_symlink(image, linkEc) && !fs::exists(image, linkEc)) {
    std::error_code targetEc;
    skip("image-dangling-link",
         Text("data.dangling_link", {{"target", fs::read_symlink(image, targetEc).string()}}));
    return s;
  }
  if (!h.ok) {
    skip("image-unreadable",
         h.errorText.id.empty() ? Text("plain", {{"text", h.error}}) : h.errorText);
    return s;
  }
  if (h.truncated) {
    skip("image-truncated", Text("data.truncated", {{"format", h.format}}));
    return s;
  }
  if (int64_t(h.width) * h.height > opt.maxPixels) {
    skip("image-too-large", Text("data.too_large", {{"width", std::to_string(h.width)},
                                                    {"height", std::to_string(h.height)},
                                                    {"max", std::to_string(opt.maxPixels)}}));
    return s;
  }
  // A header can claim any size. Deflate (PNG) stores at most ~1032 raw bytes per byte and
  // baseline JPEG needs a few bits per 8x8 block, so a large PNG or JPEG that holds less
  // than 1 byte per 2000 pixel bytes cannot be what its header says: damaged or crafted, and
  // decoding it would allocate the full size first.
  if ((h.format == "png" || h.format == "jpeg") && int64_t(h.width) * h.height > (16 << 20)) {
    std::error_code sizeEc;
    const auto bytes = fs::file_size(image, sizeEc);
    const int64_t pixelBytes = int64_t(h.width) * h.height * 3;
    if (!sizeEc && static_cast<int64_t>(bytes) * 2000 < pixelBytes) {
      skip("image-implausible", Text("data.implausible", {{"width", std::to_string(h.width)},
                                                          {"height", std::to_string(h.height)},
                                                          {"bytes", std::to_string(bytes)}}));
      return s;
    }
  }
  if (opt.verify && h.format != "other") {
    std::vector<uint8_t> bytes;
    cv::Mat m;
    std::string why;
    if (readFileBytes(image, bytes)) m = decodeImageBgr(bytes, 1, &why);
    if (m.empty()) {
      skip("image-unreadable", why.empty() ? Text("data.verify_failed")
                                           : Text("data.verify_failed_why", {{"reason", why}}));
      return s;
    }
    if (m.cols != h.width || m.rows != h.height) {
      skip("image-unreadable", Text("data.size_differs"));
      return s;
    }
  }
  s.record.width = h.displayWidth();
  s.record.height = h.displayHeight();
  s.record.orientation = h.orientation;
  std::error_code labelEc;
  if (fs::exists(s.record.labelPath, labelEc)) {
    // A regular file of at most 16 MiB: a FIFO in its place would block the scan for good, a
    // link to /dev/zero would fill the memory.
    auto text = readFileCapped(s.record.labelPath, kMaxLabelBytes);
    if (!text) {
      const Error& e = text.errors().front();
      s.problems.push_back(textProblem(
          s.record.labelPath, 0, "label-unreadable",
          e.text.empty() ? TextParts{Text("plain", {{"text", e.message}})} : e.text, true));
      return s;
    }
    LabelParse lp = parseLabelText(text.value(), s.record.labelPath, spec.nc(), opt.coordTolerance);
    s.record.boxes = std::move(lp.boxes);
    s.problems = std::move(lp.problems);
    s.dropped = lp.droppedRows;
  }
  s.usable = true;
  return s;
}

std::string normalised(const fs::path& p) {
  std::error_code ec;
  return fs::absolute(p, ec).lexically_normal().string();
}

bool isCancelled(const ScanOptions& opt) {
  return opt.cancel && opt.cancel->load(std::memory_order_relaxed);
}

/// The images under a folder, recursively, sorted.
Status listFolder(const std::string& src, const std::string& split, const ScanOptions& opt,
                  const Error& cancelError, std::vector<Entry>& entries) {
  std::error_code ec;
  std::vector<std::string> found;
  for (fs::recursive_directory_iterator it(src, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    if (isCancelled(opt)) return cancelError;
    std::error_code fileEc;
    // A dangling symlink, a FIFO or a device is no regular file, but its name says it is an
    // image the user meant to include: list it, so that the scan reports it (its header read
    // refuses it without waiting) instead of leaving it out silently.
    if (hasImageExtension(it->path().string()) && !it->is_directory(fileEc))
      found.push_back(normalised(it->path()));
  }
  if (ec) return textError(src, 0, split, Text("data.cannot_list", {{"reason", ec.message()}}));
  std::sort(found.begin(), found.end());
  for (auto& f : found) entries.push_back({std::move(f), "", 0});
  return Ok{};
}

/// The images named by a .txt list, one per line (relative to the list's folder).
Status listFile(const std::string& src, std::vector<Entry>& entries) {
  auto text = readFile(src);
  if (!text) return text.errors();
  const fs::path base = fs::path(src).parent_path();
  std::istringstream in(text.value());
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos) continue;
    fs::path p(line.substr(b));
    if (p.is_relative()) p = base / p;
    entries.push_back({normalised(p), src, lineNo});
  }
  return Ok{};
}

/// 1. The image entries of every source, in a stable order.
Result<std::vector<Entry>> listEntries(const std::vector<std::string>& sources,
                                       const std::string& split, const ScanOptions& opt,
                                       const Error& cancelError) {
  std::vector<Entry> entries;
  std::error_code ec;
  for (const auto& src : sources) {
    if (isCancelled(opt)) return cancelError;
    if (fs::is_directory(src, ec)) {
      if (auto st = listFolder(src, split, opt, cancelError, entries); !st) return st.errors();
    } else if (hasImageExtension(src)) {
      entries.push_back({normalised(src), "", 0});
    } else if (auto st = listFile(src, entries); !st) {
      return st.errors();
    }
  }
  return entries;
}

/// 2a. Each image once: a second listing is reported (before the per-image problems).
std::vector<Entry> dropDuplicates(std::vector<Entry>& entries, std::vector<Problem>& problems,
                                  int64_t& skipped) {
  std::vector<Entry> unique;
  std::unordered_set<std::string> seen;
  for (auto& e : entries) {
    if (!seen.insert(e.path).second) {
      problems.push_back(textProblem(e.listFile.empty() ? e.path : e.listFile, e.listLine,
                                     "image-duplicate",
                                     {Text("data.listed_twice", {{"path", e.path}})}, true));
      ++skipped;
      continue;
    }
    unique.push_back(std::move(e));
  }
  return unique;
}

/// 2b. The cache key: the scan's options and every image's and label's stat; nullopt when
/// the scan was cancelled.
std::optional<uint64_t> cacheKey(const std::vector<Entry>& unique, const DataSpec& spec,
                                 const ScanOptions& opt) {
  uint64_t key = mixSeed(kCacheVersion, static_cast<uint64_t>(spec.nc()), opt.verify,
                         static_cast<uint64_t>(opt.maxPixels));
  key = hashString(key, std::to_string(opt.coordTolerance));
  for (size_t i = 0; i < unique.size(); ++i) {
    const Entry& e = unique[i];
    if (i % 1024 == 0 && isCancelled(opt)) return std::nullopt;
    const FileStat si = statFile(e.path);
    const std::string lp = labelPathFor(e.path);
    const FileStat sl = statFile(lp);
    key = hashString(key, e.path);
    key =
        mixSeed(key, si.exists, static_cast<uint64_t>(si.size), static_cast<uint64_t>(si.mtimeNs));
    key =
        mixSeed(key, sl.exists, static_cast<uint64_t>(sl.size), static_cast<uint64_t>(sl.mtimeNs));
  }
  return key;
}

/// 3. Label folders: missing ones, and label files that belong to no image.
std::vector<Problem> labelFolderProblems(const std::vector<Entry>& unique) {
  std::map<std::string, int64_t> labelDirs;  // folder -> images expecting labels there
  std::set<std::string> expectedLabels;
  for (const auto& e : unique) {
    const std::string lp = labelPathFor(e.path);
    expectedLabels.insert(lp);
    if (fs::path(lp).parent_path() != fs::path(e.path).parent_path())
      ++labelDirs[fs::path(lp).parent_path().string()];
  }
  std::vector<Problem> problems;
  std::error_code ec;
  for (const auto& [dir, count] : labelDirs) {
    if (!fs::is_directory(dir, ec)) {
      problems.push_back(
          textProblem(dir, 0, "labels-missing",
                      {Text("data.labels_missing", {{"count", std::to_string(count)}})}, false));
      continue;
    }
    std::vector<std::string> orphans;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string p = normalised(it->path());
      if (it->path().extension() == ".txt" && !expectedLabels.count(p)) orphans.push_back(p);
    }
    std::sort(orphans.begin(), orphans.end());
    for (const auto& o : orphans)
      problems.push_back(textProblem(o, 0, "label-orphan", {Text("data.orphan")}, false));
  }
  return problems;
}

/// The split's cache file: one per split and list of sources, under <root>/.stave-cache.
std::string cachePathFor(const DataSpec& spec, const std::vector<std::string>& sources,
                         const std::string& split) {
  const std::string cacheDir = (fs::path(spec.root) / ".stave-cache").string();
  uint64_t srcHash = 0;
  for (const auto& s : sources) srcHash = hashString(srcHash, s);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(srcHash));
  return cacheDir + "/scan-" + split + "-" + hex + ".bin";
}

/// Fills `slots` from the cache file when it holds `key` and as many slots.
bool loadCache(const std::string& cachePath, uint64_t key, std::vector<Slot>& slots) {
  std::ifstream in(cachePath, std::ios::binary);
  if (!in) return false;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Reader r{bytes};
  char magic[8] = {0};
  r.take(magic, 8);
  if (!(r.ok && std::memcmp(magic, "STAVESC1", 8) == 0 && r.u64() == key &&
        r.u64() == slots.size()))
    return false;
  for (auto& s : slots)
    if (!readSlot(r, s)) return false;
  return true;
}

void saveCache(const std::string& cachePath, uint64_t key, const std::vector<Slot>& slots,
               SplitIndex& index) {
  Writer w;
  w.out.append("STAVESC1", 8);
  w.u64(key);
  w.u64(slots.size());
  for (const auto& s : slots) writeSlot(w, s);
  // A read-only dataset simply goes without a cache.
  if (writeFileAtomic(cachePath, w.out).ok()) index.cachePath = cachePath;
}

/// 4. Scans every image on threads into its slot (until cancelled).
void scanImages(const std::vector<Entry>& unique, const DataSpec& spec, const ScanOptions& opt,
                std::vector<Slot>& slots) {
  int threads = opt.threads > 0
                    ? opt.threads
                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::max(1, std::min<int>(threads, static_cast<int>(unique.size())));
  std::atomic<size_t> next{0};
  // Progress: a count of finished images, reported in steps of about 1/200 of the split, one
  // call at a time and never backwards (threads finish out of order).
  std::atomic<int64_t> finished{0};
  std::mutex progressMutex;
  int64_t reported = -1;
  const int64_t total = static_cast<int64_t>(unique.size());
  const int64_t step = std::max<int64_t>(1, total / 200);
  auto report = [&](int64_t done) {
    if (!opt.progress) return;
    std::lock_guard<std::mutex> lock(progressMutex);
    if (done <= reported) return;
    reported = done;
    opt.progress(done, total);
  };
  report(0);
  auto work = [&] {
    for (size_t i; !isCancelled(opt) && (i = next.fetch_add(1)) < unique.size();) {
      try {
        slots[i] = scanOne(unique[i].path, spec, opt);
      } catch (const std::exception& e) {
        slots[i] = Slot{};
        slots[i].problems.push_back({unique[i].path, 0, "image-unreadable", e.what(), true});
      }
      const int64_t done = finished.fetch_add(1) + 1;
      if (done % step == 0 || done == total) report(done);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

/// 5. Merges in entry order. Missing listed files surface as unreadable images here.
void mergeSlots(std::vector<Slot>& slots, const std::vector<Entry>& unique,
                std::vector<Problem>& preProblems, std::vector<Problem>& postProblems,
                SplitIndex& index) {
  index.problems = std::move(preProblems);
  for (size_t i = 0; i < slots.size(); ++i) {
    auto& s = slots[i];
    for (auto& p : s.problems) {
      if (p.skipsImage && !unique[i].listFile.empty() && p.file == unique[i].path) {
        const Text listed("data.listed_in", {{"file", unique[i].listFile},
                                             {"line", std::to_string(unique[i].listLine)}});
        p.message += english(listed);
        if (!p.text.empty()) p.text.push_back(listed);
      }
      index.problems.push_back(std::move(p));
    }
    index.droppedRows += s.dropped;
    if (s.usable)
      index.images.push_back(std::move(s.record));
    else
      ++index.skippedImages;
  }
  for (auto& p : postProblems) index.problems.push_back(std::move(p));
}

}  // namespace

Result<SplitIndex> scanSplit(const DataSpec& spec, const std::string& split,
                             const ScanOptions& opt) {
  const auto* sources = spec.sources(split);
  if (!sources) return textError(spec.yamlPath, 0, split, Text("data.unknown_split"));
  SplitIndex index;
  index.split = split;
  index.root = spec.root;
  const Error cancelError = textError(spec.yamlPath, 0, split, Text("data.cancelled"));

  auto entries = listEntries(*sources, split, opt, cancelError);
  if (!entries) return entries.errors();
  index.listed = static_cast<int64_t>(entries->size());

  // 2. Duplicates and missing files, then stat everything for the cache key.
  std::vector<Problem> preProblems;  // kept before the per-image problems, in entry order
  const std::vector<Entry> unique =
      dropDuplicates(entries.value(), preProblems, index.skippedImages);
  const auto key = cacheKey(unique, spec, opt);
  if (!key) return cancelError;
  std::vector<Problem> postProblems = labelFolderProblems(unique);

  // 4. Per-image results: from the cache when nothing changed, else scanned on threads.
  std::vector<Slot> slots(unique.size());
  const std::string cachePath = cachePathFor(spec, *sources, split);
  if (!(opt.useCache && loadCache(cachePath, *key, slots))) {
    scanImages(unique, spec, opt, slots);
    if (isCancelled(opt)) return cancelError;
    if (opt.useCache && !unique.empty()) saveCache(cachePath, *key, slots, index);
  } else {
    index.cachePath = cachePath;
    index.fromCache = true;
    if (opt.progress)
      opt.progress(static_cast<int64_t>(slots.size()), static_cast<int64_t>(slots.size()));
  }

  mergeSlots(slots, unique, preProblems, postProblems, index);
  if (index.images.empty()) {
    index.problems.push_back(textProblem(
        spec.yamlPath, 0, "split-empty",
        {Text("data.split_empty", {{"split", split}, {"count", std::to_string(index.listed)}})},
        false));
  }
  return index;
}

}  // namespace stave::data
