// The message catalog (core/base/message.h): ids are unique and well formed, templates fill
// their named arguments (nested messages too), and a message the catalog lacks still reads.

#include <QtTest>

#include <set>

#include "core/base/message.h"

using stave::Text;

class TestMessage : public QObject {
  Q_OBJECT

 private slots:
  void catalogIdsAreUniqueAndTemplatesWellFormed() {
    std::set<std::string_view> ids;
    for (const auto& def : stave::messageCatalog()) {
      QVERIFY2(ids.insert(def.id).second, std::string(def.id).c_str());
      QVERIFY2(!def.english.empty(), std::string(def.id).c_str());
      for (const char ch : def.id)
        QVERIFY2(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) ||
                     ch == '.' || ch == '_',
                 std::string(def.id).c_str());
      // Every brace opens a placeholder that closes, with a name of [a-z_] only.
      for (const auto& name : stave::placeholders(def.english)) {
        QVERIFY2(!name.empty(), std::string(def.id).c_str());
        for (const char ch : name) QVERIFY2(std::islower(static_cast<unsigned char>(ch)) || ch == '_', std::string(def.id).c_str());
      }
      QCOMPARE(stave::findMessage(def.id), &def);
    }
    QVERIFY(!stave::findMessage("no.such.id"));
  }

  void fillsArgumentsAndNestedMessages() {
    const Text t("doctor.data_bound", {{"share", "45%"},
                                       {"cpu", Text("doctor.cpu_busy", {{"percent", "30%"}})},
                                       {"workers", "2"},
                                       {"cache", "none"}});
    QCOMPARE(stave::english(t),
             std::string("ranks wait for data 45% of their step (CPU 30% busy, workers=2, cache=none)"));
    const stave::TextParts parts{Text("rank", {{"rank", "1"}}), Text("straggler.others", {{"share", "3%"}})};
    QCOMPARE(stave::english(parts), std::string("rank 1; other ranks 3%"));
    QCOMPARE(stave::fillTemplate("{{a}} {b}", [](const std::string& n) { return "<" + n + ">"; }),
             std::string("{a} <b>"));
    QCOMPARE(stave::placeholders("{a} and {b_c}"), (std::vector<std::string>{"a", "b_c"}));
  }

  void unknownIdStillReads() {
    QCOMPARE(stave::english(Text("newer.engine", {{"x", "1"}})), std::string("newer.engine x=1"));
    // A missing argument shows its placeholder rather than nothing.
    QCOMPARE(stave::english(Text("rank")), std::string("rank {rank}"));
  }
};

QTEST_MAIN(TestMessage)
#include "tst_message.moc"
