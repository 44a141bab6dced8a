// pngProblem: the PNG check that keeps damaged PNGs away from libpng (whose default handlers
// print "libpng error: ..." to stderr, naming no file). Sound PNGs of every kind pass and decode;
// each kind of damage is named; decodeImageBgr of a damaged PNG prints nothing on stderr. The
// image data sizes of interlaced PNGs are checked against a count of each pass's pixels.
#include <QtTest/QtTest>

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <opencv2/imgcodecs.hpp>

#include "core/data/image_source.h"
#include "core/data/png_check.h"

using namespace stave::data;
using Bytes = std::vector<uint8_t>;

namespace {

void put32(Bytes& b, uint32_t v) {
  for (int i = 3; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void chunk(Bytes& png, const char* type, const Bytes& data) {
  put32(png, static_cast<uint32_t>(data.size()));
  Bytes typed(type, type + 4);
  typed.insert(typed.end(), data.begin(), data.end());
  png.insert(png.end(), typed.begin(), typed.end());
  put32(png, static_cast<uint32_t>(crc32(0, typed.data(), static_cast<uInt>(typed.size()))));
}

/// Filtered image data by the obvious route: every pixel of the image visited once and
/// counted in its Adam7 pass (or the one pass), rows of (filter byte 0, zero pixels).
Bytes filteredZeros(int w, int h, int bitsPerPixel, bool interlaced) {
  static const int kStart[7][2] = {{0, 0}, {4, 0}, {0, 4}, {2, 0}, {0, 2}, {1, 0}, {0, 1}};
  static const int kStep[7][2] = {{8, 8}, {8, 8}, {4, 8}, {4, 4}, {2, 4}, {2, 2}, {1, 2}};
  std::vector<std::vector<int>> rowWidths(interlaced ? 7 : 1);  // pixels per row, per pass
  for (int p = 0; p < int(rowWidths.size()); ++p) {
    for (int y = 0; y < h; ++y) {
      int n = 0;
      for (int x = 0; x < w; ++x)
        if (!interlaced || (x % kStep[p][0] == kStart[p][0] && y % kStep[p][1] == kStart[p][1]))
          ++n;
      if (n > 0) rowWidths[p].push_back(n);
    }
  }
  Bytes out;
  for (const auto& pass : rowWidths)
    for (int n : pass) out.resize(out.size() + 1 + (size_t(n) * bitsPerPixel + 7) / 8, 0);
  return out;
}

Bytes deflated(const Bytes& raw) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  Bytes out(size);
  if (compress(out.data(), &size, raw.data(), static_cast<uLong>(raw.size())) != Z_OK) return {};
  out.resize(size);
  return out;
}

/// A PNG made by hand: IHDR, optional PLTE, the IDAT bytes given, IEND.
Bytes craft(int w, int h, int depth, int colour, int interlace, const Bytes& idat,
            bool palette = false) {
  Bytes png{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  Bytes ihdr;
  put32(ihdr, uint32_t(w));
  put32(ihdr, uint32_t(h));
  ihdr.insert(ihdr.end(), {uint8_t(depth), uint8_t(colour), 0, 0, uint8_t(interlace)});
  chunk(png, "IHDR", ihdr);
  if (palette) chunk(png, "PLTE", {0, 0, 0, 255, 255, 255});
  chunk(png, "IDAT", idat);
  chunk(png, "IEND", {});
  return png;
}

Bytes encoded(const cv::Mat& m, std::vector<int> params = {}) {
  Bytes out;
  if (!cv::imencode(".png", m, out, params)) out.clear();
  return out;
}

/// What `f` printed on stderr (fd 2) while it ran.
template <typename F>
std::string stderrOf(F f) {
  char path[] = "/tmp/tst_png_check_XXXXXX";
  const int fd = mkstemp(path);
  const int saved = dup(2);
  fflush(stderr);
  dup2(fd, 2);
  f();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  char buf[4096];
  lseek(fd, 0, SEEK_SET);
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  close(fd);
  unlink(path);
  return text;
}

}  // namespace

class TstPngCheck : public QObject {
  Q_OBJECT
 private slots:
  void soundPngsPass_data() {
    QTest::addColumn<QByteArray>("png");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    cv::RNG rng(7);
    auto add = [](const char* name, const Bytes& png, int w, int h) {
      QTest::newRow(name) << QByteArray(reinterpret_cast<const char*>(png.data()),
                                        qsizetype(png.size()))
                          << w << h;
    };
    cv::Mat rgb(23, 37, CV_8UC3), grey(9, 5, CV_8UC1), rgba(4, 3, CV_8UC4), deep(6, 11, CV_16UC3);
    for (cv::Mat* m : {&rgb, &grey, &rgba, &deep}) rng.fill(*m, cv::RNG::UNIFORM, 0, 65535);
    add("opencv rgb", encoded(rgb), 37, 23);
    add("opencv grey", encoded(grey), 5, 9);
    add("opencv rgba", encoded(rgba), 3, 4);
    add("opencv 16-bit", encoded(deep), 11, 6);
    add("opencv stored (no compression)", encoded(rgb, {cv::IMWRITE_PNG_COMPRESSION, 0}), 37, 23);
    for (int interlace : {0, 1}) {
      const std::string tag = interlace ? " interlaced" : "";
      add(("1-bit grey" + tag).c_str(),
          craft(13, 7, 1, 0, interlace, deflated(filteredZeros(13, 7, 1, interlace))), 13, 7);
      add(("rgb" + tag).c_str(),
          craft(13, 7, 8, 2, interlace, deflated(filteredZeros(13, 7, 24, interlace))), 13, 7);
      add(("4-bit palette" + tag).c_str(),
          craft(3, 2, 4, 3, interlace, deflated(filteredZeros(3, 2, 4, interlace)), true), 3, 2);
      add(("1x1 rgba16" + tag).c_str(),
          craft(1, 1, 16, 6, interlace, deflated(filteredZeros(1, 1, 64, interlace))), 1, 1);
    }
  }
  void soundPngsPass() {
    QFETCH(QByteArray, png);
    QFETCH(int, width);
    QFETCH(int, height);
    const Bytes bytes(png.begin(), png.end());
    QVERIFY(!bytes.empty());
    QCOMPARE(QString::fromStdString(pngProblem(bytes.data(), bytes.size())), QString());
    cv::Mat m;
    const std::string err = stderrOf([&] { m = decodeImageBgr(bytes); });
    QCOMPARE(m.cols, width);
    QCOMPARE(m.rows, height);
    QCOMPARE(QString::fromStdString(err), QString());
  }

  void damageIsNamed_data() {
    QTest::addColumn<QByteArray>("png");
    QTest::addColumn<QString>("problem");
    auto add = [](const char* name, const Bytes& png, const char* problem) {
      QTest::newRow(name) << QByteArray(reinterpret_cast<const char*>(png.data()),
                                        qsizetype(png.size()))
                          << QString(problem);
    };
    const Bytes good = craft(16, 16, 8, 2, 0, deflated(filteredZeros(16, 16, 24, false)));
    // Sound chunks, image data that is no zlib stream (a writer's bug): only inflating tells.
    add("idat not zlib", craft(96, 96, 8, 2, 0, Bytes(600, 0x5a)),
        "its image data (IDAT at byte 33) does not decompress: incorrect header check");
    Bytes flipped = good;
    flipped[45] ^= 0x10;
    add("bit flip in idat", flipped, "chunk IDAT at byte 33 fails its CRC check");
    add("cut in half", Bytes(good.begin(), good.begin() + long(good.size() / 2)),
        "cut off inside a chunk at byte 33 (truncated)");
    add("no iend", Bytes(good.begin(), good.end() - 12), "ends before its IEND chunk (truncated)");
    add("rows missing", craft(16, 16, 8, 2, 0, deflated(filteredZeros(16, 8, 24, false))),
        "its image data ends after 392 of 784 bytes");
    add("interlaced rows missing",
        craft(16, 16, 8, 2, 1, deflated(filteredZeros(16, 16, 24, false))),
        "its image data ends after 784 of");
    add("palette without PLTE", craft(3, 2, 4, 3, 0, deflated(filteredZeros(3, 2, 4, false))),
        "a palette image without PLTE before IDAT");
    add("bit depth 5", craft(4, 4, 5, 0, 0, deflated(filteredZeros(4, 4, 8, false))),
        "describes no image libpng reads (4x4, bit depth 5, colour type 0)");
    add("zero width", craft(0, 4, 8, 0, 0, deflated(filteredZeros(1, 4, 8, false))),
        "describes no image libpng reads (0x4");
    Bytes noIdat{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    chunk(noIdat, "IHDR", Bytes(good.begin() + 16, good.begin() + 29));
    chunk(noIdat, "IEND", {});
    add("no idat", noIdat, "no image data (IDAT)");
    Bytes first = Bytes(good.begin(), good.begin() + 8);
    chunk(first, "tEXt", {'a', 0, 'b'});
    first.insert(first.end(), good.begin() + 8, good.end());
    add("ihdr not first", first, "the first chunk is tEXt, not IHDR");
    add("signature only", Bytes(good.begin(), good.begin() + 8), "ends before its IEND chunk");
  }
  void damageIsNamed() {
    QFETCH(QByteArray, png);
    QFETCH(QString, problem);
    const Bytes bytes(png.begin(), png.end());
    const QString said = QString::fromStdString(pngProblem(bytes.data(), bytes.size()));
    QVERIFY2(said.contains(problem), qPrintable(said));
    // Never handed to libpng: nothing on stderr, and the reason comes back.
    cv::Mat m;
    std::string why;
    const std::string err = stderrOf([&] { m = decodeImageBgr(bytes, 1, &why); });
    QVERIFY(m.empty());
    QCOMPARE(QString::fromStdString(why), said);
    QVERIFY2(err.find("libpng") == std::string::npos, err.c_str());
  }
};

QTEST_GUILESS_MAIN(TstPngCheck)
#include "tst_png_check.moc"
