// The generic key <-> member table (core/config/member_table.h): a struct written as JSON reads
// back equal; each bad value is an error naming its key and the type wanted; a missing key is an
// error unless the row is optional (then the default stays); the self-check finds an empty key
// and a key listed twice.

#include <QtTest>

#include <cstdint>
#include <string>
#include <vector>

#include "core/config/member_table.h"

using namespace stave;
using nlohmann::json;

namespace {

struct Sample {
  bool flag = false;
  int count = 3;
  int64_t big = 0;
  uint64_t hash = 0;
  double ratio = 0.5;
  std::string name = "default";
  std::vector<double> values;
  std::vector<std::string> names;
  int later = 42;  // a key added later: optional
};

const config::MemberTable<Sample>& sampleTable() {
  using S = Sample;
  static const config::MemberTable<S> table{
      {"flag", &S::flag},     {"count", &S::count}, {"big", &S::big},
      {"hash", &S::hash},     {"ratio", &S::ratio}, {"name", &S::name},
      {"values", &S::values}, {"names", &S::names}, {"later", &S::later, true},
  };
  return table;
}

json fullSample() {
  return {{"flag", true},
          {"count", -7},
          {"big", int64_t{1} << 40},
          {"hash", uint64_t{18446744073709551615u}},
          {"ratio", 0.25},
          {"name", "exp"},
          {"values", {1.5, 2.5}},
          {"names", {"a", "b"}},
          {"later", 9}};
}

std::string keysOf(const std::vector<Error>& errors) {
  std::string keys;
  for (const auto& e : errors) keys += (keys.empty() ? "" : ",") + e.key;
  return keys;
}

}  // namespace

class TestMemberTable : public QObject {
  Q_OBJECT

 private slots:
  void tableIsSound() { QVERIFY(config::memberTableProblems(sampleTable()).empty()); }

  // Every member type goes to JSON and back unchanged.
  void roundTrip() {
    Sample s;
    const auto errors = config::membersFromJson(fullSample(), sampleTable(), s);
    QVERIFY2(errors.empty(), joinErrors(errors).c_str());
    QVERIFY(s.flag);
    QCOMPARE(s.count, -7);
    QCOMPARE(s.big, int64_t{1} << 40);
    QCOMPARE(s.hash, uint64_t{18446744073709551615u});
    QCOMPARE(s.ratio, 0.25);
    QCOMPARE(s.name, std::string("exp"));
    QCOMPARE(s.values, (std::vector<double>{1.5, 2.5}));
    QCOMPARE(s.names, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(s.later, 9);
    const json back = config::membersToJson(sampleTable(), s);
    QCOMPARE(back.dump(), fullSample().dump());
  }

  void missingKeys() {
    json j = fullSample();
    j.erase("later");
    Sample s;
    QVERIFY(config::membersFromJson(j, sampleTable(), s).empty());
    QCOMPARE(s.later, 42);  // optional: the default stays

    j.erase("count");
    j.erase("name");
    Sample t;
    const auto errors = config::membersFromJson(j, sampleTable(), t, "meta.json");
    QCOMPARE(keysOf(errors), std::string("count,name"));
    QCOMPARE(errors[0].toString(), std::string("meta.json: count: missing"));
    QCOMPARE(t.count, 3);
  }

  void wrongTypes_data() {
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("bool from int") << "flag"
                                   << "1"
                                   << "expected a boolean, found the number 1";
    QTest::newRow("int from string") << "count"
                                     << "\"3\""
                                     << "expected an integer, found string";
    QTest::newRow("int from float") << "count"
                                    << "2.5"
                                    << "expected an integer, found the number 2.5";
    QTest::newRow("int too large") << "count"
                                   << "4294967296"
                                   << "expected an integer, found the number 4294967296";
    QTest::newRow("uint negative") << "hash"
                                   << "-1"
                                   << "expected a non-negative integer, found the number -1";
    QTest::newRow("double from bool") << "ratio"
                                      << "true"
                                      << "expected a number, found boolean";
    QTest::newRow("string from null") << "name"
                                      << "null"
                                      << "expected a string, found null";
    QTest::newRow("list item") << "values"
                               << "[1, \"x\"]"
                               << "expected a list of numbers, found array";
    QTest::newRow("names not a list") << "names"
                                      << "\"a\""
                                      << "expected a list of strings, found string";
    QTest::newRow("optional of wrong type") << "later"
                                            << "\"9\""
                                            << "expected an integer, found string";
  }
  void wrongTypes() {
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, message);
    json j = fullSample();
    j[key.toStdString()] = json::parse(value.toStdString());
    Sample s;
    const Sample before;
    const auto errors = config::membersFromJson(j, sampleTable(), s, "f.json");
    QCOMPARE(errors.size(), size_t(1));
    QCOMPARE(errors[0].key, key.toStdString());
    QCOMPARE(errors[0].file, std::string("f.json"));
    QCOMPARE(QString::fromStdString(errors[0].message), message);
    // The member with the bad value keeps what it held; the others are read.
    QCOMPARE(config::membersToJson(sampleTable(), s)[key.toStdString()],
             config::membersToJson(sampleTable(), before)[key.toStdString()]);
    QCOMPARE(s.ratio == 0.25, key != "ratio");
  }

  void notAnObject() {
    Sample s;
    const auto errors = config::membersFromJson(json::array({1}), sampleTable(), s, "f.json");
    QCOMPARE(errors.size(), size_t(1));
    QCOMPARE(errors[0].toString(), std::string("f.json: expected an object, found array"));
  }

  void selfCheck() {
    using S = Sample;
    const config::MemberTable<S> bad{
        {"count", &S::count},
        {"", &S::name},
        {"ratio", &S::ratio},
        {"count", &S::big},
    };
    const auto problems = config::memberTableProblems(bad);
    QCOMPARE(problems.size(), size_t(2));
    QCOMPARE(problems[0], std::string("row 1: empty key"));
    QCOMPARE(problems[1], std::string("count: listed twice"));
  }
};

QTEST_GUILESS_MAIN(TestMemberTable)
#include "tst_member_table.moc"
