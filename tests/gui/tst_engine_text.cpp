// The engine's words in the UI language (issue 43 §4): every message of the engine's catalog has
// a finished Simplified Chinese translation with the same placeholders (an untranslated id fails
// here), a doctor finding reads in Chinese with its numbers, and without a translation (or from
// an engine whose ids this studio does not know) the English the event carries is shown.

#include <QLocale>
#include <QTranslator>
#include <QtTest>

#include <set>

#include "core/studio/engine_text.h"
#include "core/studio/project/preflight.h"
#include "tests/common/project_fixture.h"
#include "core/telemetry/doctor.h"

using stave::Text;
namespace tel = stave::telemetry;

namespace {

std::multiset<std::string> placeholderSet(const std::string& s) {
  const auto v = stave::placeholders(s);
  return {v.begin(), v.end()};
}

bool hasHan(const QString& s) {
  for (const QChar c : s)
    if (c.unicode() >= 0x4e00 && c.unicode() <= 0x9fff) return true;
  return false;
}

// A data-bound finding as the doctor makes it.
tel::DiagnosisEvent dataBoundReport() {
  tel::DoctorOptions o;
  o.warmupSteps = 0;
  tel::Doctor d(o);
  tel::RunStartEvent rs;
  rs.device = "cpu";
  rs.config = {{"workers", 0}, {"cache", "none"}};
  d.add(tel::toEvent(rs, 0));
  tel::SystemSampleEvent cpu;
  cpu.cpu.assign(8, 40);
  cpu.cpuTotal = 40;
  d.add(tel::toEvent(cpu, -1));
  for (int i = 0; i < 20; ++i) {
    tel::StepEvent s;
    s.epoch = 1;
    s.itersPerEpoch = 100;
    s.timing = {0.5, 0, 0.45, 0, 0.05, 1.0};
    d.add(tel::toEvent(s, 0));
  }
  return d.finalReport();
}

}  // namespace

class TestEngineText : public QObject {
  Q_OBJECT

 private slots:
  void init() {
    QVERIFY(m_zh.load(QLocale(QStringLiteral("zh_CN")), QStringLiteral("stave"), QStringLiteral("_"),
                      QStringLiteral(":/i18n")));
  }

  // Walks the whole catalog: each template is translated (a missing or unfinished entry of
  // translations/stave_zh_CN.ts is not in the compiled .qm) and keeps its placeholders.
  void everyMessageHasAChineseTranslation() {
    // Words that read the same in Chinese ("rank 3", "ranks 2-3": the trainers' own term;
    // "GPU 3"; a size in MiB; the ssh command with its destination).
    const std::set<std::string_view> same = {
        "rank",   "gpu",     "dist.ranks_span",    "dist.ranks_list",
        "io.mib", "ssh.who", "ssh.bad_destination"};
    QStringList untranslated;
    for (const auto& def : stave::messageCatalog()) {
      const std::string english(def.english);
      const QString zh = m_zh.translate("stave::engine", english.c_str());
      if (zh.isEmpty()) {
        untranslated << QString::fromUtf8(def.id.data(), static_cast<int>(def.id.size()));
        continue;
      }
      QVERIFY2(placeholderSet(zh.toStdString()) == placeholderSet(english), english.c_str());
      // A template with words (not only placeholders and punctuation) reads in Chinese.
      const std::string words = stave::fillTemplate(english, [](const std::string&) { return std::string(); });
      const bool hasWords = std::any_of(words.begin(), words.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
      if (hasWords && !same.count(def.id)) QVERIFY2(hasHan(zh), english.c_str());
    }
    QVERIFY2(untranslated.isEmpty(), qPrintable(QStringLiteral("untranslated: ") + untranslated.join(QStringLiteral(", "))));
  }

  void findingReadsInTheUiLanguage() {
    const auto r = dataBoundReport();
    QCOMPARE(r.findings.size(), size_t(1));
    const tel::Finding& f = r.findings[0];
    // Without a translation: the English, word for word.
    QCOMPARE(stave::studio::engineText(f.text, f.message), QString::fromStdString(f.message));
    QCOMPARE(stave::studio::engineText(r.summaryText), QString::fromStdString(r.summary));

    QVERIFY(QCoreApplication::installTranslator(&m_zh));
    const QString zh = stave::studio::engineText(f.text, f.message);
    QCoreApplication::removeTranslator(&m_zh);
    QVERIFY2(hasHan(zh), qPrintable(zh));
    QVERIFY2(zh.contains(QStringLiteral("50%")) && zh.contains(QStringLiteral("CPU 占用 40%")) &&
                 zh.contains(QStringLiteral("workers=0")),
             qPrintable(zh));
    QVERIFY2(!zh.contains(QLatin1Char('{')), qPrintable(zh));
  }

  // A refused pre-flight names file and key as before, and says what is wrong in Chinese.
  void preflightReasonsReadInTheUiLanguage() {
    QTemporaryDir dir;
    const auto project = stave::config::loadProject(stave::testing::makeProject(dir).toStdString());
    QVERIFY(project.ok());
    const QStringList english = stave::studio::preflightBlocking(
        stave::studio::preflight(project.value(), QStringLiteral("default"), {QStringLiteral("imgsz=8")}));
    QCOMPARE(english, QStringList{QStringLiteral("command line: imgsz: 8 is out of range: expected an integer in [32, 8192]")});
    QVERIFY(QCoreApplication::installTranslator(&m_zh));
    const QStringList range = stave::studio::preflightBlocking(
        stave::studio::preflight(project.value(), QStringLiteral("default"), {QStringLiteral("imgsz=8")}));
    // The data.yaml's split folder (images) does not exist.
    const QStringList split = stave::studio::preflightBlocking(
        stave::studio::preflight(project.value(), QStringLiteral("default"), {}));
    QCoreApplication::removeTranslator(&m_zh);
    QCOMPARE(range, QStringList{QStringLiteral("command line: imgsz: 8 超出范围：应为[32, 8192] 内的整数")});
    QVERIFY(!split.isEmpty());
    for (const QString& line : split) {
      QVERIFY2(line.contains(QStringLiteral("data.yaml")) && hasHan(line), qPrintable(line));
      QVERIFY2(line.contains(QStringLiteral("路径不存在")), qPrintable(line));
    }
  }

  void unknownIdShowsTheEnglish() {
    QVERIFY(QCoreApplication::installTranslator(&m_zh));
    const stave::TextParts newer{Text("doctor.data_bound", {{"share", "1%"}}), Text("from.a.newer.engine")};
    QCOMPARE(stave::studio::engineText(newer, "the English"), QStringLiteral("the English"));
    QCOMPARE(stave::studio::engineText({}, "old run"), QStringLiteral("old run"));
    // A nested message this studio does not know: the whole sentence falls back.
    const stave::TextParts nested{Text("doctor.summary.clean", {{"detail", Text("from.a.newer.engine")}})};
    QCOMPARE(stave::studio::engineText(nested, "English"), QStringLiteral("English"));
    QCoreApplication::removeTranslator(&m_zh);
  }

 private:
  QTranslator m_zh;
};

QTEST_MAIN(TestEngineText)
#include "tst_engine_text.moc"
