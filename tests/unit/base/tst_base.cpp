// The base library: the one hash, atomic files, signal names.
#include <QtTest>

#include <csignal>
#include <string>

#include "core/base/atomic_file.h"
#include "core/base/hash.h"
#include "core/base/signal_name.h"

class TestBase : public QObject {
  Q_OBJECT
 private slots:
  void hashIsXxh3() {
    // Published XXH3 values: the empty input, 64 and 128 bits.
    QCOMPARE(stave::hash64(std::string_view()), uint64_t(0x2D06800538D394C2ull));
    QCOMPARE(stave::hashHex(""), std::string("99aa06d3014798d86001c324468d497f"));
    QVERIFY(stave::hash64("a") != stave::hash64("b"));
    QVERIFY(stave::hash64("a", 1) != stave::hash64("a", 2));
  }

  void contentHashIsTheHashOfTheWhole() {
    std::string whole;
    stave::ContentHash h;
    for (int i = 0; i < 1000; ++i) {
      const std::string piece = "piece " + std::to_string(i) + (i % 7 ? "" : std::string(300, 'x'));
      h.add(piece);
      whole += piece;
    }
    const int32_t n = 42;
    const float f = 0.5f;
    h.addValue(n);
    h.addValue(f);
    whole.append(reinterpret_cast<const char*>(&n), sizeof n);
    whole.append(reinterpret_cast<const char*>(&f), sizeof f);
    QCOMPARE(h.hex(), stave::hashHex(whole));
    QCOMPARE(int(h.hex().size()), 32);
    stave::ContentHash other;
    other.add(whole.substr(0, whole.size() - 1));
    QVERIFY(other.hex() != h.hex());
  }

  void atomicFileRoundTrip() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("f.txt").toStdString();
    QVERIFY(stave::writeFileAtomic(path, "one").ok());
    QCOMPARE(stave::readFile(path).value(), std::string("one"));
    stave::testing::setFailBeforeRename(true);
    QVERIFY(!stave::writeFileAtomic(path, "two").ok());
    stave::testing::setFailBeforeRename(false);
    QCOMPARE(stave::readFile(path).value(), std::string("one"));  // the old content kept
    const auto missing = stave::readFile(dir.filePath("none").toStdString());
    QVERIFY(!missing.ok());
    QVERIFY(missing.errorText().find("none") != std::string::npos);
  }

  void signalNames() {
    QCOMPARE(QString::fromStdString(stave::signalName(SIGTERM)), QString("SIGTERM"));
    QCOMPARE(QString::fromStdString(stave::signalName(SIGKILL)), QString("SIGKILL"));
    QVERIFY(!stave::signalName(250).empty());
  }
};

QTEST_GUILESS_MAIN(TestBase)
#include "tst_base.moc"
