// The thumbnail loader: reduced-size decoding with the long side bounded, "cannot read" markers
// for bad files, requests deduplicated and bounded with the newest first, and the LRU cache
// evicting by bytes. Most cases use a loader without threads (processPending) so the order is
// exact; one runs the threads.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "core/data/image_source.h"
#include "core/studio/models/thumbnail_loader.h"

using stave::studio::Thumbnail;
using stave::studio::ThumbnailLoader;
using stave::studio::ThumbnailOptions;

namespace {
// A w x h JPEG whose left half is red and right half blue.
QString writeJpeg(const QTemporaryDir& dir, const QString& name, int w, int h) {
  cv::Mat m(h, w, CV_8UC3, cv::Scalar(0, 0, 255));  // BGR red
  m(cv::Rect(w / 2, 0, w - w / 2, h)).setTo(cv::Scalar(255, 0, 0));
  const auto bytes = stave::data::encodeJpegBgr(m, 95);
  const QString path = dir.filePath(name);
  std::ofstream(path.toStdString(), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return path;
}
}  // namespace

class TestThumbnailLoader : public QObject {
  Q_OBJECT
 private slots:
  void decodeSizesAndColours() {
    QTemporaryDir dir;
    const QString big = writeJpeg(dir, "big.jpg", 2000, 1000);
    Thumbnail t = ThumbnailLoader::decode(big, 160);
    QVERIFY2(t.ok(), qPrintable(t.error));
    QCOMPARE(t.width, 160);
    QCOMPARE(t.height, 80);
    QCOMPARE(t.rgb.size(), qsizetype(160 * 80 * 3));
    // RGB order: red on the left, blue on the right.
    auto px = [&](int x, int y, int c) { return uchar(t.rgb[(y * t.width + x) * 3 + c]); };
    QVERIFY(px(10, 40, 0) > 200 && px(10, 40, 2) < 60);
    QVERIFY(px(150, 40, 2) > 200 && px(150, 40, 0) < 60);
    // A small image is not scaled up.
    const QString small = writeJpeg(dir, "small.jpg", 40, 30);
    t = ThumbnailLoader::decode(small, 160);
    QVERIFY(t.ok());
    QCOMPARE(t.width, 40);
    QCOMPARE(t.height, 30);
  }

  void unreadableFilesGiveAMarker_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("missing") << QByteArray();
    QTest::newRow("not an image") << QByteArray("this is not a jpeg");
    QTest::newRow("truncated jpeg") << QByteArray("\xFF\xD8\xFF\xE0\x00\x10JFIF", 10);
  }
  void unreadableFilesGiveAMarker() {
    QFETCH(QByteArray, bytes);
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.jpg");
    if (!bytes.isEmpty()) {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(bytes);
    }
    const Thumbnail t = ThumbnailLoader::decode(path, 160);
    QVERIFY(!t.ok());
    QVERIFY(!t.error.isEmpty());
    QVERIFY(t.rgb.isEmpty());
    // Through a loader: cached as a marker, announced like any other.
    ThumbnailLoader loader({160, 0, 1 << 20, 16});
    QSignalSpy ready(&loader, &ThumbnailLoader::ready);
    QVERIFY(!loader.get(path));
    QCOMPARE(loader.processPending(10), 1);
    QTRY_COMPARE(ready.count(), 1);
    auto cached = loader.get(path);
    QVERIFY(cached && !cached->ok());
  }

  void newestFirstDeduplicatedBounded() {
    QTemporaryDir dir;
    QStringList paths;
    for (int i = 0; i < 6; ++i) paths << writeJpeg(dir, QString("%1.jpg").arg(i), 32, 32);
    ThumbnailLoader loader({64, 0, 1 << 20, 4});
    QSignalSpy ready(&loader, &ThumbnailLoader::ready);
    loader.request(paths[0]);
    loader.request(paths[1]);
    loader.request(paths[0]);  // again: deduplicated, and now the newest
    QCOMPARE(loader.pendingCount(), 2);
    loader.request(paths[2]);
    loader.request(paths[3]);
    loader.request(paths[4]);  // over the bound of 4: the oldest request (paths[1]) goes
    QCOMPARE(loader.pendingCount(), 4);
    QCOMPARE(loader.processPending(100), 4);
    QTRY_COMPARE(ready.count(), 4);
    QStringList order;
    for (const auto& args : ready) order << args.at(0).toString();
    QCOMPARE(order, (QStringList{paths[4], paths[3], paths[2], paths[0]}));
    QVERIFY(!loader.cached(paths[1]));
    // Cached ones are not requested again.
    QVERIFY(loader.get(paths[4]));
    QCOMPARE(loader.pendingCount(), 0);
    loader.request(paths[5]);
    loader.clearPending();
    QCOMPARE(loader.pendingCount(), 0);
    QCOMPARE(loader.processPending(10), 0);
  }

  void lruEvictionByBytes() {
    QTemporaryDir dir;
    QStringList paths;
    for (int i = 0; i < 5; ++i) paths << writeJpeg(dir, QString("%1.jpg").arg(i), 100, 50);
    // Each thumbnail is 64 x 32 RGB: 6144 bytes plus a little; room for three.
    const qint64 one = ThumbnailLoader::decode(paths[0], 64).bytes();
    QCOMPARE(one, qint64(64 * 32 * 3 + 64));
    ThumbnailLoader loader({64, 0, 3 * one + one / 2, 64});
    for (int i = 0; i < 3; ++i) {
      loader.request(paths[i]);
      loader.processPending(1);
    }
    QCOMPARE(loader.cacheCount(), 3);
    QCOMPARE(loader.cacheBytes(), 3 * one);
    // Using paths[0] makes paths[1] the least recently used: it goes first.
    QVERIFY(loader.get(paths[0]));
    loader.request(paths[3]);
    loader.processPending(1);
    QCOMPARE(loader.cacheCount(), 3);
    QVERIFY(loader.cached(paths[0]));
    QVERIFY(!loader.cached(paths[1]));
    QVERIFY(loader.cached(paths[2]));
    QVERIFY(loader.cached(paths[3]));
    QVERIFY(loader.cacheBytes() <= 3 * one + one / 2);
    // cached() does not count as a use: paths[2] is the oldest now.
    QVERIFY(loader.cached(paths[2]));
    loader.request(paths[4]);
    loader.processPending(1);
    QVERIFY(!loader.cached(paths[2]));
    QVERIFY(loader.cached(paths[0]));
    loader.clear();
    QCOMPARE(loader.cacheCount(), 0);
    QCOMPARE(loader.cacheBytes(), qint64(0));
  }

  void threadsDecodeEverything() {
    QTemporaryDir dir;
    QStringList paths;
    for (int i = 0; i < 40; ++i) paths << writeJpeg(dir, QString("%1.jpg").arg(i), 300, 200);
    auto loader = std::make_unique<ThumbnailLoader>(ThumbnailOptions{96, 3, 64 << 20, 100});
    QSignalSpy ready(loader.get(), &ThumbnailLoader::ready);
    for (const auto& p : paths) QVERIFY(!loader->get(p));
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 40, 20000);
    for (const auto& p : paths) {
      auto t = loader->cached(p);
      QVERIFY(t && t->ok());
      QCOMPARE(t->width, 96);
      QCOMPARE(t->height, 64);
    }
    // Destroyed with requests queued: the threads stop and join.
    for (int i = 0; i < 40; ++i) loader->request(dir.filePath(QString("missing-%1.jpg").arg(i)));
    loader.reset();
  }
};

QTEST_GUILESS_MAIN(TestThumbnailLoader)
#include "tst_thumbnail_loader.moc"
