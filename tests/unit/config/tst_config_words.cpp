// The reasons a config or a project is refused, as catalog messages (issue 43 §4): the English
// that stave-train prints is unchanged, and the ids and arguments beside it name catalog
// entries whose placeholders all have arguments (the studio translates them).

#include <QtTest>

#include <algorithm>

#include "core/config/project.h"
#include "core/config/run_config.h"

using namespace stave;

namespace {

void checkParts(const TextParts& parts) {
  QVERIFY(!parts.empty());
  for (const auto& t : parts) {
    const MessageDef* def = findMessage(t.id);
    QVERIFY2(def, t.id.c_str());
    for (const auto& name : placeholders(def->english)) {
      const auto arg = std::find_if(t.args.begin(), t.args.end(), [&](const Text::Arg& a) { return a.name == name; });
      QVERIFY2(arg != t.args.end(), (t.id + " lacks {" + name + "}").c_str());
      if (!arg->text.empty()) checkParts(arg->text);
    }
  }
}

}  // namespace

class TestConfigWords : public QObject {
  Q_OBJECT

 private slots:
  void overrideErrors_data() {
    QTest::addColumn<QString>("setting");
    QTest::addColumn<QString>("english");
    QTest::newRow("out of range") << "imgsz=8" << "8 is out of range: expected an integer in [32, 8192]";
    QTest::newRow("not a choice") << "cache=floppy" << "'floppy' is not valid: expected one of none, ram, disk";
  }
  void overrideErrors() {
    QFETCH(QString, setting);
    QFETCH(QString, english);
    config::RunConfig c = config::RunConfig::defaults();
    const Status st = config::applyOverrides(c, {setting.toStdString()});
    QVERIFY(!st.ok());
    const Error& e = st.errors().front();
    checkParts(e.text);
    QCOMPARE(stave::english(e.text), e.message);
    QCOMPARE(QString::fromStdString(e.message), english);
  }

  void validateNamesTheRangeAsBefore() {
    config::RunConfig c = config::RunConfig::defaults();
    QVERIFY(c.set("node_rank", int64_t(3)).ok());
    const auto errors = config::validate(c);
    QVERIFY(!errors.empty());
    const auto it = std::find_if(errors.begin(), errors.end(), [](const Error& e) { return e.key == "node_rank"; });
    QVERIFY(it != errors.end());
    checkParts(it->text);
    QCOMPARE(it->message, std::string("must be less than nnodes (1), got 3"));
  }
};

QTEST_MAIN(TestConfigWords)
#include "tst_config_words.moc"
