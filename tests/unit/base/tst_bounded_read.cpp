// Bounded reads (core/base/bounded_read.h): a small file is read only when it is a regular file
// and only up to its cap, counting the bytes read; a FIFO with no writer, a link to /dev/zero,
// a folder and a file over the cap are refused at once, naming the path. Event lines over the
// cap are skipped without being held.
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/base/bounded_read.h"

namespace fs = std::filesystem;
using stave::CappedLineReader;

class TestBoundedRead : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }

 private slots:
  void regularFileIsRead() {
    std::ofstream(path("ok.json")) << "{\"a\": 1}\n";
    auto r = stave::readFileCapped(path("ok.json"), 100);
    QVERIFY2(r.ok(), r.errorText().c_str());
    QCOMPARE(r.value(), std::string("{\"a\": 1}\n"));
    // Exactly at the cap is still read.
    auto exact = stave::readFileCapped(path("ok.json"), 9);
    QVERIFY2(exact.ok(), exact.errorText().c_str());
  }

  void refused_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("says");
    QTest::newRow("fifo") << "fifo" << "FIFO";
    QTest::newRow("link to /dev/zero") << "zero" << "device";
    QTest::newRow("folder") << "folder" << "folder";
    QTest::newRow("over the cap") << "big" << "larger than";
    QTest::newRow("missing") << "missing" << "cannot open";
  }
  void refused() {
    QFETCH(QString, kind);
    QFETCH(QString, says);
    const std::string p = path(qPrintable("x_" + kind));
    if (kind == "fifo") QCOMPARE(::mkfifo(p.c_str(), 0600), 0);
    if (kind == "zero") fs::create_symlink("/dev/zero", p);
    if (kind == "folder") fs::create_directory(p);
    if (kind == "big") std::ofstream(p) << std::string(5000, 'x');
    QElapsedTimer t;
    t.start();
    auto r = stave::readFileCapped(p, 4096);
    // A FIFO with no writer would block a plain open for good; /dev/zero would never end.
    QVERIFY(t.elapsed() < 5000);
    QVERIFY(!r.ok());
    QVERIFY2(r.errorText().find(p) == 0, r.errorText().c_str());
    QVERIFY2(r.errorText().find(says.toStdString()) != std::string::npos, r.errorText().c_str());
    // The same for binary files (images).
    auto b = stave::readFileBytesCapped(p, 4096);
    QVERIFY(!b.ok());
    QVERIFY2(b.errorText().find(p) == 0, b.errorText().c_str());
    if (kind != "missing")
      QVERIFY2(b.errorText().find(says.toStdString()) != std::string::npos, b.errorText().c_str());
  }

  void bytesAreReadWhole() {
    const std::string data(200000, '\x7f');
    std::ofstream(path("img.bin"), std::ios::binary) << data;
    auto b = stave::readFileBytesCapped(path("img.bin"), 1 << 20);
    QVERIFY2(b.ok(), b.errorText().c_str());
    QCOMPARE(b.value().size(), data.size());
    QCOMPARE(int(b.value()[199999]), 0x7f);
    QVERIFY(stave::readFileBytesCapped(path("img.bin"), 100000).errorText().find("larger than") !=
            std::string::npos);
    // A size the file system does not tell (/proc): read to the end, the cap counting bytes.
    QVERIFY(stave::readFileBytesCapped("/proc/self/maps", 1 << 20).ok());
    QVERIFY(!stave::readFileBytesCapped("/proc/self/maps", 16).ok());
  }

  void capCountsBytesRead() {
    // /proc files claim a size of 0 and hold more: the cap counts what is read.
    auto r = stave::readFileCapped("/proc/self/maps", 16);
    QVERIFY(!r.ok());
    QVERIFY2(r.errorText().find("more than the 16 bytes") != std::string::npos,
             r.errorText().c_str());
    QVERIFY(stave::readFileCapped("/proc/self/maps", 1 << 20).ok());
  }

  void linesOverTheCapAreSkipped() {
    std::istringstream in("a\n" + std::string(100, 'b') + "\nc\n\n" + std::string(50, 'd'));
    CappedLineReader reader(in, 10);
    std::string line;
    QCOMPARE(int(reader.next(&line)), int(CappedLineReader::Got::Line));
    QCOMPARE(line, std::string("a"));
    QCOMPARE(int(reader.next(&line)), int(CappedLineReader::Got::TooLong));
    QCOMPARE(reader.lineNo(), int64_t(2));
    QVERIFY(line.empty());
    QCOMPARE(int(reader.next(&line)), int(CappedLineReader::Got::Line));
    QCOMPARE(line, std::string("c"));
    QCOMPARE(reader.lineNo(), int64_t(3));
    QCOMPARE(int(reader.next(&line)), int(CappedLineReader::Got::Line));
    QVERIFY(line.empty());
    // The last line, without '\n' and over the cap.
    QCOMPARE(int(reader.next(&line)), int(CappedLineReader::Got::TooLong));
    QCOMPARE(reader.lineNo(), int64_t(5));
    QCOMPARE(int(reader.next(&line)), int(CappedLineReader::Got::End));
  }

  void sparseHoleIsPassedWithoutHoldingIt() {
    // 2 GB of hole and no newline after one good line: read past with bounded memory.
    const std::string p = path("holey.jsonl");
    std::ofstream(p) << "first\n";
    QCOMPARE(::truncate(p.c_str(), (int64_t{2} << 30)), 0);
    std::ofstream(p, std::ios::app) << "\nlast\n";
    std::ifstream in(p, std::ios::binary);
    CappedLineReader reader(in, 1 << 20);
    std::string line;
    QCOMPARE(int(reader.next(&line)), int(CappedLineReader::Got::Line));
    QCOMPARE(line, std::string("first"));
    QCOMPARE(int(reader.next(&line)), int(CappedLineReader::Got::TooLong));
    QVERIFY(line.capacity() <= (size_t{2} << 20));
    QCOMPARE(int(reader.next(&line)), int(CappedLineReader::Got::Line));
    QCOMPARE(line, std::string("last"));
    QCOMPARE(int(reader.next(&line)), int(CappedLineReader::Got::End));
  }
};

QTEST_GUILESS_MAIN(TestBoundedRead)
#include "tst_bounded_read.moc"
