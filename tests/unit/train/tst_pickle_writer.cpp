// PickleWriter's archives read back with LibTorch's own torch.load-compatible reader
// (torch::pickle_load): tensors of several types and shapes, numbers across the opcode
// boundaries, strings, None, bools, lists, tuples, dicts, and the memo.
#include <QtTest/QtTest>

#include <torch/torch.h>

#include "core/train/pickle_writer.h"

using stave::train::PickleWriter;

namespace {
c10::IValue readBack(PickleWriter& w) {
  const std::string bytes = w.archive();
  return torch::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
}
}  // namespace

class TstPickleWriter : public QObject {
  Q_OBJECT
 private slots:
  void scalarsAndContainers() {
    PickleWriter w;
    w.beginList();
    const std::vector<int64_t> ints{0, 1, 255, 256, -1, 65535, -2147483648LL, 2147483647LL,
                                    2147483648LL, -2147483649LL, int64_t(1) << 62};
    for (int64_t v : ints) w.integer(v);
    w.real(2.5);
    w.real(-1e-300);
    w.string("x ü 漢");
    w.string("");
    w.none();
    w.boolean(true);
    w.boolean(false);
    w.mark();
    w.integer(7);
    w.string("seven");
    w.tupleFromMark();
    w.endList();
    const auto list = readBack(w).toList();
    size_t i = 0;
    for (int64_t v : ints) QCOMPARE(list.get(i++).toInt(), v);
    QCOMPARE(list.get(i++).toDouble(), 2.5);
    QCOMPARE(list.get(i++).toDouble(), -1e-300);
    QCOMPARE(QString::fromStdString(list.get(i++).toStringRef()), QString("x ü 漢"));
    QCOMPARE(list.get(i++).toStringRef(), std::string());
    QVERIFY(list.get(i++).isNone());
    QCOMPARE(list.get(i++).toBool(), true);
    QCOMPARE(list.get(i++).toBool(), false);
    const auto tuple = list.get(i++).toTuple();
    QCOMPARE(tuple->elements().size(), size_t(2));
    QCOMPARE(tuple->elements()[0].toInt(), int64_t(7));
    QCOMPARE(i, list.size());
  }

  void tensorsDictsAndMemo() {
    torch::manual_seed(3);
    const auto f = torch::randn({2, 3, 4});
    const auto l = torch::arange(5, torch::kLong);
    const auto h = torch::randn({7}).to(torch::kHalf);
    const auto scalar = torch::tensor(42.0);
    const auto strided = torch::randn({4, 6}).t();  // written as a contiguous copy
    PickleWriter w;
    w.beginDict();
    w.string("f");
    w.tensor(f);
    w.string("l");
    w.tensor(l);
    w.string("h");
    w.tensor(h);
    w.string("scalar");
    w.tensor(scalar);
    w.string("strided");
    w.tensor(strided);
    w.string("remembered");
    w.beginList();
    w.integer(1);
    w.string("one");
    w.endList();
    const uint32_t memo = w.memoize();
    w.string("again");
    w.memoGet(memo);
    w.endDict();
    const auto dict = readBack(w).toGenericDict();
    QVERIFY(torch::equal(dict.at("f").toTensor(), f));
    QVERIFY(torch::equal(dict.at("l").toTensor(), l));
    QCOMPARE(dict.at("h").toTensor().scalar_type(), torch::kHalf);
    QVERIFY(torch::equal(dict.at("h").toTensor(), h));
    QCOMPARE(dict.at("scalar").toTensor().dim(), int64_t(0));
    QCOMPARE(dict.at("scalar").toTensor().item<double>(), 42.0);
    QVERIFY(torch::equal(dict.at("strided").toTensor(), strided));
    QCOMPARE(dict.at("remembered").toList().size(), size_t(2));
    QCOMPARE(dict.at("again").toList().get(1).toStringRef(), std::string("one"));
  }
};

QTEST_GUILESS_MAIN(TstPickleWriter)
#include "tst_pickle_writer.moc"
