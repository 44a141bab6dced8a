#include "core/studio/models/thumbnail_loader.h"

#include <algorithm>
#include <cstring>

#include "core/data/image_header.h"
#include "core/data/image_source.h"
#include "core/studio/engine_text.h"

namespace stave::studio {

ThumbnailLoader::ThumbnailLoader(ThumbnailOptions options, QObject* parent)
    : QObject(parent), m_opt(options) {
  m_opt.side = std::max(8, m_opt.side);
  m_opt.maxPending = std::max(1, m_opt.maxPending);
  for (int i = 0; i < m_opt.threads; ++i) m_threads.emplace_back([this] { workerLoop(); });
}

ThumbnailLoader::~ThumbnailLoader() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
    m_pending.clear();
  }
  m_cv.notify_all();
  for (auto& t : m_threads) t.join();
}

std::shared_ptr<const Thumbnail> ThumbnailLoader::get(const QString& path) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    auto it = m_cache.find(path);
    if (it != m_cache.end()) {
      m_lru.splice(m_lru.begin(), m_lru, it->lru);
      return it->thumb;
    }
  }
  request(path);
  return nullptr;
}

std::shared_ptr<const Thumbnail> ThumbnailLoader::cached(const QString& path) const {
  std::lock_guard<std::mutex> lock(m_mutex);
  auto it = m_cache.constFind(path);
  return it == m_cache.constEnd() ? nullptr : it->thumb;
}

void ThumbnailLoader::request(const QString& path) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_stop || m_cache.contains(path)) return;
    auto q = m_queued.constFind(path);
    if (q != m_queued.constEnd()) {
      if (q.value()) return;  // a thread is decoding it
      // Asked again: what is on screen now goes first.
      auto at = std::find(m_pending.begin(), m_pending.end(), path);
      if (at != m_pending.end()) m_pending.erase(at);
    }
    m_pending.push_front(path);
    m_queued.insert(path, false);
    // The oldest requests are for what scrolled away long ago.
    while (int(m_pending.size()) > m_opt.maxPending) {
      m_queued.remove(m_pending.back());
      m_pending.pop_back();
    }
  }
  m_cv.notify_one();
}

void ThumbnailLoader::clearPending() {
  std::lock_guard<std::mutex> lock(m_mutex);
  for (const auto& p : m_pending) m_queued.remove(p);
  m_pending.clear();
}

void ThumbnailLoader::clear() {
  std::lock_guard<std::mutex> lock(m_mutex);
  for (const auto& p : m_pending) m_queued.remove(p);
  m_pending.clear();
  m_cache.clear();
  m_lru.clear();
  m_bytes = 0;
}

qint64 ThumbnailLoader::cacheBytes() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_bytes;
}

int ThumbnailLoader::cacheCount() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return int(m_cache.size());
}

int ThumbnailLoader::pendingCount() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return int(m_pending.size());
}

qint64 ThumbnailLoader::decodedCount() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_decoded;
}

void ThumbnailLoader::insert(const QString& path, std::shared_ptr<const Thumbnail> thumb) {
  // Called with m_mutex held.
  auto old = m_cache.find(path);
  if (old != m_cache.end()) {
    m_bytes -= old->thumb->bytes();
    m_lru.erase(old->lru);
    m_cache.erase(old);
  }
  m_bytes += thumb->bytes();
  m_lru.push_front(path);
  m_cache.insert(path, Entry{std::move(thumb), m_lru.begin()});
  // Evict the least recently used, but keep the newest even if it alone is over the bound.
  while (m_bytes > m_opt.cacheBytes && m_cache.size() > 1) {
    auto victim = m_cache.find(m_lru.back());
    m_bytes -= victim->thumb->bytes();
    m_cache.erase(victim);
    m_lru.pop_back();
  }
}

QString ThumbnailLoader::takeNext() {
  if (m_pending.empty()) return {};
  QString path = m_pending.front();
  m_pending.pop_front();
  m_queued.insert(path, true);
  return path;
}

void ThumbnailLoader::decodeAndInsert(const QString& path) {
  auto thumb = std::make_shared<Thumbnail>(decode(path, m_opt.side));
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_queued.remove(path);
    ++m_decoded;
    if (m_stop) return;
    insert(path, std::move(thumb));
  }
  // The destructor joins the threads before `this` goes; Qt drops calls queued for a deleted
  // object.
  QMetaObject::invokeMethod(
      this, [this, path] { emit ready(path); }, Qt::QueuedConnection);
}

int ThumbnailLoader::processPending(int max) {
  int done = 0;
  while (done < max) {
    QString path;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      path = takeNext();
    }
    if (path.isEmpty()) break;
    decodeAndInsert(path);
    ++done;
  }
  return done;
}

void ThumbnailLoader::workerLoop() {
  for (;;) {
    QString path;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_cv.wait(lock, [this] { return m_stop || !m_pending.empty(); });
      if (m_stop) return;
      path = takeNext();
    }
    decodeAndInsert(path);
  }
}

Thumbnail ThumbnailLoader::decode(const QString& path, int side) {
  Thumbnail t;
  const std::string file = path.toStdString();
  try {
    const data::ImageHeader h = data::readImageHeader(file);
    if (!h.ok) {
      t.error = h.error.empty() ? ThumbnailLoader::tr("cannot read the image")
                                : engineText({h.errorText}, h.error);
      return t;
    }
    data::ImageRecord rec;
    rec.imagePath = file;
    rec.width = h.displayWidth();
    rec.height = h.displayHeight();
    rec.orientation = h.orientation;
    if (rec.width <= 0 || rec.height <= 0) {
      t.error = ThumbnailLoader::tr("the image has no pixels");
      return t;
    }
    data::StageTimes times;
    // Never upscale: a small image keeps its size.
    const int target = std::min(side, std::max(rec.width, rec.height));
    const data::LoadedImage li = data::loadImage(rec, target, data::LoadResize::Preview, times);
    const cv::Mat& m = li.img;
    if (m.empty() || m.type() != CV_8UC3) {
      t.error = ThumbnailLoader::tr("cannot decode the image");
      return t;
    }
    t.width = m.cols;
    t.height = m.rows;
    t.rgb.resize(qsizetype(t.width) * t.height * 3);
    auto* out = reinterpret_cast<uint8_t*>(t.rgb.data());
    for (int y = 0; y < m.rows; ++y) {
      const uint8_t* in = m.ptr<uint8_t>(y);
      for (int x = 0; x < m.cols; ++x, in += 3, out += 3) {
        out[0] = in[2];  // BGR -> RGB
        out[1] = in[1];
        out[2] = in[0];
      }
    }
  } catch (const std::exception& e) {
    t = Thumbnail{};
    t.error = QString::fromUtf8(e.what());
  }
  return t;
}

}  // namespace stave::studio
