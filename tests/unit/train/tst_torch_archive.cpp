// torch.save archives read by Stave (core/train/torch_archive.h): every storage dtype, views
// sharing one storage, deflated records, PickleWriter's archives read back, what a checkpoint
// file is (checkpointKind) — and one case per damaged archive, each refused with an error that
// names the file, the record and (where it applies) the byte offset in data.pkl.
#include <QtTest/QtTest>

#include <torch/torch.h>

#include "core/train/pickle_reader.h"
#include "core/train/pickle_writer.h"
#include "core/train/torch_archive.h"
#include "unit/train/pickle_bytes.h"

using stave::test::PickleBytes;
using stave::train::PickleValue;
using Kind = stave::train::PickleValue::Kind;

namespace {

std::string byteAt(size_t offset) {
  return "at byte " + std::to_string(offset);
}

}  // namespace

class TstTorchArchive : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  std::string file(const char* name) { return m_dir.filePath(name).toStdString(); }

 private slots:
  void dtypes_data() {
    QTest::addColumn<int>("dtype");
    QTest::newRow("float32") << int(torch::kFloat);
    QTest::newRow("float64") << int(torch::kDouble);
    QTest::newRow("float16") << int(torch::kHalf);
    QTest::newRow("bfloat16") << int(torch::kBFloat16);
    QTest::newRow("int64") << int(torch::kLong);
    QTest::newRow("int32") << int(torch::kInt);
    QTest::newRow("int16") << int(torch::kShort);
    QTest::newRow("int8") << int(torch::kChar);
    QTest::newRow("uint8") << int(torch::kByte);
    QTest::newRow("bool") << int(torch::kBool);
  }

  void dtypes() {
    QFETCH(int, dtype);
    const auto type = c10::ScalarType(dtype);
    torch::manual_seed(1);
    auto t = (torch::randn({3, 5}) * 50).to(type);
    if (type == torch::kBool) t = torch::randn({3, 5}).gt(0);
    const std::string path = file("dtype.pt");
    if (type == torch::kShort || type == torch::kChar) {
      // PickleWriter does not write these; torch.save names them ShortStorage / CharStorage.
      PickleBytes p;
      p.tensor(type == torch::kShort ? "ShortStorage" : "CharStorage", "0", 15, 0, {3, 5}, {5, 1});
      QVERIFY(stave::test::writeTorchZip(
          path, p.done(),
          {{"0", std::string(static_cast<const char*>(t.data_ptr()), t.nbytes())}}));
    } else {
      stave::train::PickleWriter w;
      w.tensor(t);
      stave::test::writeBytes(path, w.archive());
    }
    const auto a = stave::train::readTorchArchive(path);
    QVERIFY2(a.ok(), a.errorText().c_str());
    const auto back = a->tensor(a->pickle.root());
    QCOMPARE(back.scalar_type(), type);
    QVERIFY(torch::equal(back, t));
  }

  void viewsShareOneStorage() {
    PickleBytes p;
    p.emptyList().mark();
    p.tensor("FloatStorage", "s", 12, 0, {3, 4}, {4, 1});
    p.tensor("FloatStorage", "s", 12, 2, {2}, {4});        // a column's part
    p.tensor("FloatStorage", "s", 12, 0, {4, 3}, {1, 4});  // the transpose
    p.tensor("FloatStorage", "s", 12, 12, {0}, {1});       // empty, at the end
    p.appends();
    std::vector<float> values(12);
    for (int i = 0; i < 12; ++i) values[size_t(i)] = float(i);
    const std::string path = file("views.pt");
    QVERIFY(stave::test::writeTorchZip(path, p.done(), {{"s", stave::test::bytesOf(values)}}));
    const auto a = stave::train::readTorchArchive(path);
    QVERIFY2(a.ok(), a.errorText().c_str());
    QCOMPARE(a->storages.size(), size_t(1));
    const auto& l = a->pickle.root();
    const auto base = a->tensor(*l.items[0]);
    const auto column = a->tensor(*l.items[1]);
    const auto transposed = a->tensor(*l.items[2]);
    QVERIFY(torch::equal(base, torch::arange(12, torch::kFloat).reshape({3, 4})));
    QVERIFY(torch::equal(column, torch::tensor({2.f, 6.f})));
    QVERIFY(torch::equal(transposed, base.t()));
    QCOMPARE(a->tensor(*l.items[3]).numel(), int64_t(0));
    QCOMPARE(base.storage().data_ptr().get(), column.storage().data_ptr().get());
    QCOMPARE(base.storage().data_ptr().get(), transposed.storage().data_ptr().get());
  }

  /// Records deflated (as Python's zipfile may write them) read as stored ones, CRCs checked.
  void deflatedArchive() {
    PickleBytes p;
    p.tensor("FloatStorage", "0", 6, 1, {2, 2}, {3, 1});
    const std::string path = file("deflated.pt");
    QVERIFY(stave::test::writeZip(
        path,
        {{"d/data.pkl", p.done()},
         {"d/data/0", stave::test::bytesOf(std::vector<float>{0, 1, 2, 3, 4, 5})},
         {"d/byteorder", "little"}},
        nullptr, ZIP_CM_DEFLATE));
    const auto a = stave::train::readTorchArchive(path);
    QVERIFY2(a.ok(), a.errorText().c_str());
    QVERIFY(torch::equal(a->tensor(a->pickle.root()),
                         torch::tensor({1.f, 2.f, 4.f, 5.f}).reshape({2, 2})));
  }

  /// PickleWriter's archives (those export-weights writes) read back value for value.
  void pickleWriterRoundTrip() {
    torch::manual_seed(3);
    const auto f = torch::randn({2, 3, 4});
    const auto h = torch::randn({7}).to(torch::kHalf);
    stave::train::PickleWriter w;
    w.beginDict();
    w.string("ints");
    w.beginList();
    for (int64_t v : {int64_t(0), int64_t(255), int64_t(256), int64_t(-1), int64_t(1) << 40,
                      -(int64_t(1) << 40)})
      w.integer(v);
    w.endList();
    w.string("real");
    w.real(-1e-300);
    w.string("text");
    w.string("x \xc3\xbc \xe6\xbc\xa2");
    w.string("none");
    w.none();
    w.string("flags");
    w.mark();
    w.boolean(true);
    w.boolean(false);
    w.tupleFromMark();
    w.string("f");
    w.tensor(f);
    w.string("h");
    w.tensor(h);
    w.string("hooks");
    w.emptyOrderedDict();
    w.string("remembered");
    w.string("value");
    const uint32_t m = w.memoize();
    w.string("again");
    w.memoGet(m);
    w.endDict();
    const std::string path = file("writer.pt");
    stave::test::writeBytes(path, w.archive());
    const auto a = stave::train::readTorchArchive(path);
    QVERIFY2(a.ok(), a.errorText().c_str());
    const PickleValue& root = a->pickle.root();
    const auto& ints = root.find("ints")->items;
    QCOMPARE(ints.size(), size_t(6));
    QCOMPARE(ints[2]->integer, int64_t(256));
    QCOMPARE(ints[4]->integer, int64_t(1) << 40);
    QCOMPARE(ints[5]->integer, -(int64_t(1) << 40));
    QCOMPARE(root.find("real")->real, -1e-300);
    QCOMPARE(root.find("text")->text, std::string("x \xc3\xbc \xe6\xbc\xa2"));
    QVERIFY(root.find("none")->isNone());
    QCOMPARE(root.find("flags")->items[0]->boolean, true);
    QVERIFY(torch::equal(a->tensor(*root.find("f")), f));
    QVERIFY(torch::equal(a->tensor(*root.find("h")), h));
    QCOMPARE(root.find("hooks")->kind, Kind::Dict);
    QCOMPARE(root.find("again"), root.find("remembered"));
  }

  // --- Damaged and hostile archives --------------------------------------------------------
  void archiveErrors_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<int>("offset");
    namespace t = stave::test;
    const std::vector<float> four{1, 2, 3, 4};
    PickleBytes tensor;
    tensor.tensor("FloatStorage", "0", 4, 0, {4}, {1});
    const std::string valid = tensor.done();
    const size_t pid = valid.find('Q');  // BINPERSID, the persistent id naming storage 0
    auto mk = [&](const char* n) { return file(n); };

    QVERIFY(t::writeZip(mk("no_pickle.pt"), {{"archive/data/0", t::bytesOf(four)}}));
    QTest::newRow("missing data.pkl") << "no_pickle.pt"
                                      << "holds no <folder>/data.pkl record" << -1;

    QVERIFY(t::writeTorchZip(mk("no_record.pt"), valid, {}));
    QTest::newRow("missing record") << "no_record.pt"
                                    << "storage 0 has no record archive/data/0" << int(pid);

    PickleBytes bomb;
    bomb.tensor("FloatStorage", "0", 1000000000000000, 0, {1}, {1});
    QVERIFY(t::writeTorchZip(mk("bomb.pt"), bomb.done(), {{"0", t::bytesOf(four)}}));
    QTest::newRow("storage of 1e15 elements") << "bomb.pt"
                                              << "declares 1000000000000000 float32 elements" << -1;

    QVERIFY(t::writeTorchZip(mk("short.pt"), valid, {{"0", t::bytesOf(std::vector<float>{1, 2})}}));
    QTest::newRow("record shorter than its storage") << "short.pt"
                                                     << "the record holds 8 bytes" << -1;

    const std::vector<float> marker{1234.5f, 2345.5f, 3456.5f, 4567.5f};
    QVERIFY(t::writeTorchZip(mk("crc.pt"), valid, {{"0", t::bytesOf(marker)}}));
    std::string bytes = t::readBytes(mk("crc.pt"));
    const size_t where = bytes.find(t::bytesOf(marker));
    QVERIFY(where != std::string::npos);
    bytes[where + 5] ^= 0x01;
    t::writeBytes(mk("crc.pt"), bytes);
    QTest::newRow("CRC mismatch in a record") << "crc.pt"
                                              << "archive/data/0: damaged archive" << -1;

    QVERIFY(t::writeTorchZip(mk("good.pt"), valid, {{"0", t::bytesOf(four)}}));
    const std::string good = t::readBytes(mk("good.pt"));
    t::writeBytes(mk("cut.pt"), good.substr(0, good.size() / 2));
    QTest::newRow("truncated file") << "cut.pt"
                                    << "not a complete zip archive" << -1;

    PickleBytes evil;
    evil.global("os", "system").mark().str("id").tuple();
    const size_t reduceAt = evil.here();
    QVERIFY(t::writeTorchZip(mk("evil.pt"), evil.reduce().done(), {}));
    QTest::newRow("os.system in data.pkl")
        << "evil.pt"
        << "archive/data.pkl: at byte " + QString::number(reduceAt) +
               ": refused: REDUCE of os.system"
        << int(reduceAt);

    PickleBytes zeros;
    zeros.tensor("FloatStorage", "0", 8 << 20, 0, {8 << 20}, {1});
    QVERIFY(t::writeZip(mk("bomb_zip.pt"),
                        {{"archive/data.pkl", zeros.done()},
                         {"archive/data/0", std::string(size_t(32) << 20, '\0')}},
                        nullptr, ZIP_CM_DEFLATE));
    QTest::newRow("compressed records that expand 1000x (zip bomb)")
        << "bomb_zip.pt"
        << "its compressed records claim 33554" << -1;

    QVERIFY(t::writeZip(mk("big_endian.pt"), {{"archive/data.pkl", valid},
                                              {"archive/byteorder", "big"},
                                              {"archive/data/0", t::bytesOf(four)}}));
    QTest::newRow("big-endian") << "big_endian.pt"
                                << "little-endian archives only" << -1;

    t::writeBytes(mk("legacy.pt"),
                  std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19"
                              ".\x80\x02M\xe9\x03.",
                              20));
    QTest::newRow("legacy format") << "legacy.pt"
                                   << "_use_new_zipfile_serialization=False" << -1;

    t::writeBytes(mk("text.pt"), "hello, not a checkpoint\n");
    QTest::newRow("not a zip") << "text.pt"
                               << "not a zip archive" << -1;

    {
      torch::serialize::OutputArchive ts;
      ts.write("w", torch::ones({2}));
      ts.save_to(mk("stave.pt"));
    }
    QTest::newRow("TorchScript archive") << "stave.pt"
                                         << "a TorchScript archive" << -1;

    QDir(m_dir.path()).mkdir("folder.pt");
    QTest::newRow("a folder") << "folder.pt"
                              << "is a folder, not a file" << -1;
    QTest::newRow("missing file") << "absent.pt"
                                  << "No such file" << -1;
  }

  void archiveErrors() {
    QFETCH(QString, name);
    QFETCH(QString, expected);
    QFETCH(int, offset);
    const std::string path = file(name.toUtf8().constData());
    const auto r = stave::train::readTorchArchive(path);
    QVERIFY(!r.ok());
    const QString text = QString::fromStdString(r.errorText());
    QVERIFY2(text.startsWith(QString::fromStdString(path)), qPrintable(text));
    QVERIFY2(text.contains(expected), qPrintable(text));
    if (offset >= 0)
      QVERIFY2(text.contains(QString::fromStdString(byteAt(size_t(offset)))), qPrintable(text));
  }

  void checkpointKinds_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("kind");
    using K = stave::train::CheckpointKind;
    // Made by archiveErrors_data (the same folder): stave.pt, good.pt, legacy.pt, text.pt...
    QTest::newRow("Stave (TorchScript)") << "stave.pt" << int(K::Stave);
    QTest::newRow("torch.save") << "good.pt" << int(K::TorchSave);
    QTest::newRow("legacy torch.save") << "legacy.pt" << int(K::LegacyTorchSave);
    QTest::newRow("text") << "text.pt" << int(K::Unknown);
    QTest::newRow("zip without data.pkl") << "no_pickle.pt" << int(K::Unknown);
    QTest::newRow("truncated zip") << "cut.pt" << int(K::Unknown);
  }

  void checkpointKinds() {
    QFETCH(QString, name);
    QFETCH(int, kind);
    const auto k = stave::train::checkpointKind(file(name.toUtf8().constData()));
    QVERIFY2(k.ok(), k.errorText().c_str());
    QCOMPARE(int(k.value()), kind);
    QVERIFY(!stave::train::checkpointKind(file("absent.pt")).ok());
  }
};

QTEST_GUILESS_MAIN(TstTorchArchive)
#include "tst_torch_archive.moc"
