#pragma once
// ThumbnailLoader: small RGB images of dataset files, decoded on worker threads it owns with
// core/data's decoder (reduced-size JPEG decoding for large sources) and kept in an LRU cache
// bounded in bytes. Requests are deduplicated and the newest is served first, so what is on
// screen now comes before what scrolled past. QtCore only: the widget turns the bytes into a
// QImage.

#include <QHash>
#include <QObject>
#include <QString>
#include <condition_variable>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace stave::studio {

/// A decoded thumbnail, or why there is none.
struct Thumbnail {
  QByteArray rgb;  ///< 8-bit RGB, width * 3 bytes per row, no padding
  int width = 0;   ///< pixels
  int height = 0;  ///< pixels
  QString error;   ///< non-empty: the image cannot be read (the gallery's marker)
  bool ok() const { return error.isEmpty(); }
  /// What the thumbnail costs in the cache.
  qint64 bytes() const { return qint64(rgb.size()) + qint64(error.size()) * 2 + 64; }
};

/// Options of a ThumbnailLoader.
struct ThumbnailOptions {
  int side = 160;                  ///< long side of a thumbnail (smaller images keep theirs)
  int threads = 2;                 ///< decoding threads (0: only processPending decodes)
  qint64 cacheBytes = 96ll << 20;  ///< LRU cache bound
  int maxPending = 512;            ///< queued requests kept (the oldest are dropped)
};

/// Asynchronous, cached thumbnails. get() answers from the cache at once or queues a request;
/// ready() follows on the owner's thread. The destructor stops and joins the threads.
class ThumbnailLoader : public QObject {
  Q_OBJECT
 public:
  explicit ThumbnailLoader(ThumbnailOptions options = {}, QObject* parent = nullptr);
  ~ThumbnailLoader() override;

  /// The cached thumbnail of `path` (now the most recently used), or null after queueing a
  /// request for it at the front of the queue.
  std::shared_ptr<const Thumbnail> get(const QString& path);
  /// The cached thumbnail of `path` or null; queues nothing and keeps the LRU order.
  std::shared_ptr<const Thumbnail> cached(const QString& path) const;
  /// Queues `path` (to the front; a queued one moves there) unless cached or being decoded.
  void request(const QString& path);
  /// Decodes up to `max` queued requests on the calling thread, newest first (as the threads
  /// would); returns how many. For a loader without threads (tests, batch use).
  int processPending(int max);
  /// Drops the queued requests (not the cache).
  void clearPending();
  /// Drops the queued requests and the cache.
  void clear();

  /// Bytes held by the cache.
  qint64 cacheBytes() const;
  /// Thumbnails held by the cache.
  int cacheCount() const;
  /// Requests waiting for a thread.
  int pendingCount() const;
  /// Thumbnails decoded (or failed) so far.
  qint64 decodedCount() const;
  const ThumbnailOptions& options() const { return m_opt; }

  /// Decodes `path` as the threads do: long side at most `side`, EXIF orientation applied.
  /// An unreadable file gives a thumbnail with `error` set.
  static Thumbnail decode(const QString& path, int side);

 signals:
  /// The thumbnail of `path` is in the cache now.
  void ready(const QString& path);

 private:
  void workerLoop();
  /// Takes the newest request and marks it as being decoded; "" when none. m_mutex held.
  QString takeNext();
  /// Decodes `path`, caches it and announces it.
  void decodeAndInsert(const QString& path);
  void insert(const QString& path, std::shared_ptr<const Thumbnail> thumb);

  struct Entry {
    std::shared_ptr<const Thumbnail> thumb;
    std::list<QString>::iterator lru;
  };
  ThumbnailOptions m_opt;
  mutable std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<QString> m_pending;  // front = newest
  QHash<QString, bool> m_queued;  // pending or being decoded (value: being decoded)
  QHash<QString, Entry> m_cache;
  mutable std::list<QString> m_lru;  // front = most recently used
  qint64 m_bytes = 0;
  qint64 m_decoded = 0;
  bool m_stop = false;
  std::vector<std::thread> m_threads;
};

}  // namespace stave::studio
