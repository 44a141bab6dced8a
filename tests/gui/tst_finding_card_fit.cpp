// The Hardware page's finding cards show their whole text (issue 45: on the two-node
// screenshots the straggler card's second line was cut off). A run whose diagnosis has three
// findings with messages long enough to wrap is shown in a main window of a few sizes; on the
// Hardware page every label of every card is given at least the height its text needs at its
// width, lies inside its card, and every card lies inside the advice box, which is not cut by
// the splitter below it.
#include <QGroupBox>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>

#include "common/offscreen_screen.h"
#include "common/project_fixture.h"
#include "core/studio/hardware/hardware_advice.h"
#include "core/telemetry/events.h"
#include "widgets/diagnosis_banner.h"
#include "widgets/hardware_page.h"
#include "widgets/main_window.h"
#include "widgets/run_page.h"

namespace fs = std::filesystem;
namespace tel = stave::telemetry;
using stave::widgets::MainWindow;

namespace {

tel::Finding finding(const std::string& rule, tel::Severity s, const std::string& title,
                     const std::string& message, std::vector<tel::Advice> advice) {
  tel::Finding f;
  f.rule = rule;
  f.severity = s;
  f.title = title;
  f.message = message;
  f.advice = std::move(advice);
  return f;
}

/// runs/two-nodes/events.jsonl: a run_start and a final diagnosis with the findings of the
/// two-node screenshots (messages as long as the doctor writes them).
void plantRun(const QString& projectDir) {
  const fs::path dir = fs::path(projectDir.toStdString()) / "runs" / "two-nodes";
  fs::create_directories(dir);
  std::ofstream out(dir / "events.jsonl");
  tel::RunStartEvent rs;
  rs.device = "cuda";
  rs.worldSize = 8;
  rs.config = {{"model", "yolov8n.yaml"},
               {"imgsz", 640},
               {"batch", 32},
               {"epochs", 3},
               {"name", "two-nodes"}};
  out << tel::encodeEvent(tel::toEvent(rs, 0)) << "\n";
  tel::DiagnosisEvent d;
  d.periodS = 30;
  d.steps = 17240;
  d.final = true;
  d.summary =
      "near out of memory: the fullest GPU uses 96% of its memory: a larger image or a fragmenting "
      "allocator ends the run with out-of-memory; the fullest is node 1 GPU 3 -> try batch=24 (+2 "
      "more)";
  d.findings = {
      finding("near_oom", tel::Severity::Critical, "near out of memory",
              "the fullest GPU uses 96% of its memory: a larger image or a fragmenting allocator "
              "ends the run "
              "with out-of-memory; the fullest is node 1 GPU 3",
              {{"batch", "24"}}),
      finding("straggler", tel::Severity::Warning, "straggler",
              "rank 5 on node 1 is 10% of a step slower than the others, who wait for it in the "
              "all-reduce: "
              "rank 5 on node 1 waits for data 15% of its step; other ranks 5%. Its loader is "
              "slower: a slower "
              "or shared disk, fewer free CPU cores, or a worse NUMA placement on node 1; cache "
              "the dataset in "
              "memory or give its node more loader threads",
              {{"cache", "ram"}}),
      finding("gpu_underused", tel::Severity::Warning, "GPU under-used",
              "the GPUs are busy 68% of the time although the ranks hardly wait for data or peers; "
              "the least "
              "busy is node 1 GPU 0, at 44%; channels-last convolutions are faster on tensor cores",
              {{"channels_last", "true"}}),
  };
  out << tel::encodeEvent(tel::toEvent(d, -1)) << "\n";
}

/// Why `label` does not show its whole text in `card` ("" when it does).
QString clipped(const QLabel* label, const QWidget* card) {
  if (label->isHidden() || label->text().isEmpty()) return {};
  const int need = label->hasHeightForWidth() ? label->heightForWidth(label->width())
                                              : label->sizeHint().height();
  if (label->height() < need)
    return QString("%1 is %2 px high, its text needs %3 at width %4: %5")
        .arg(label->objectName())
        .arg(label->height())
        .arg(need)
        .arg(label->width())
        .arg(label->text().left(60));
  const QRect inCard(label->mapTo(card, QPoint(0, 0)), label->size());
  if (!card->rect().contains(inCard))
    return QString("%1 (%2,%3 %4x%5) is outside its card (%6x%7)")
        .arg(label->objectName())
        .arg(inCard.x())
        .arg(inCard.y())
        .arg(inCard.width())
        .arg(inCard.height())
        .arg(card->width())
        .arg(card->height());
  return {};
}

}  // namespace

class TestFindingCardFit : public QObject {
  Q_OBJECT

 private slots:
  void cardsShowTheirWholeText_data() {
    QTest::addColumn<QSize>("window");
    QTest::newRow("1600x975 (the screenshots')") << QSize(1600, 975);
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("1400x700") << QSize(1400, 700);
  }
  void cardsShowTheirWholeText() {
    QFETCH(QSize, window);
    QTemporaryDir dir;
    const QString project = stave::testing::makeProject(dir);
    plantRun(dir.path());
    MainWindow w;
    QVERIFY(w.openProject(project));
    w.resize(window);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.size(), window);
    QTRY_VERIFY_WITH_TIMEOUT(w.runPage()->advice()->hasDiagnosis(), 20000);
    auto* pages = w.findChild<QListWidget*>("pageList");
    pages->setCurrentRow(w.pageNames().indexOf("Hardware"));
    auto* hw = w.hardwarePage();
    QTRY_COMPARE_WITH_TIMEOUT(int(hw->findingCards().size()), 3, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(hw->isVisible() && hw->findingCards().back()->isVisible(), 10000);
    auto* box = hw->findChild<QGroupBox*>("adviceBox");
    QVERIFY(box);
    // Laid out (layouts settle over a few posted events): then every text fits.
    QString why;
    const auto check = [&] {
      why.clear();
      for (auto* card : hw->findingCards()) {
        for (const QLabel* l : {card->titleLabel(), card->messageLabel(), card->adviceLabel()})
          if (why.isEmpty()) why = clipped(l, card);
        const QRect inBox(card->mapTo(box, QPoint(0, 0)), card->size());
        if (why.isEmpty() && !box->rect().contains(inBox))
          why = QString("a card (y %1, height %2) is outside the advice box (height %3)")
                    .arg(inBox.y())
                    .arg(inBox.height())
                    .arg(box->height());
      }
      // The box itself is whole: the splitter's pane above the tabs holds it.
      if (why.isEmpty()) {
        const QWidget* pane = box->parentWidget();
        const QRect inPane(box->mapTo(pane, QPoint(0, 0)), box->size());
        if (!pane->rect().contains(inPane))
          why = QString("the advice box (y %1, height %2) is cut by its pane (height %3)")
                    .arg(inPane.y())
                    .arg(inPane.height())
                    .arg(pane->height());
      }
      if (why.isEmpty() && clipped(hw->adviceHeader(), box).size() > 0)
        why = clipped(hw->adviceHeader(), box);
      return why.isEmpty();
    };
    QTRY_VERIFY2_WITH_TIMEOUT(check(), qPrintable(why), 10000);
    // The message of the straggler wraps at this width (the case that was cut).
    auto* straggler = hw->findingCards()[1]->messageLabel();
    QVERIFY2(straggler->height() >= 2 * straggler->fontMetrics().lineSpacing(),
             qPrintable(QString::number(straggler->height())));
    // And still after the window is made narrower (the text wraps to more lines).
    w.resize(window.width() - 200, window.height());
    QTRY_VERIFY2_WITH_TIMEOUT(check(), qPrintable(why), 10000);
  }
};

int main(int argc, char** argv) {
  // A screen of 1600×1000, as the screenshots were taken on (the window is fitted onto it).
  QTemporaryDir screen;
  if (!stave::testing::useOffscreenScreen(screen, QSize(1600, 1000))) return 1;
  QApplication app(argc, argv);
  TestFindingCardFit test;
  QTEST_SET_MAIN_SOURCE_PATH
  return QTest::qExec(&test, argc, argv);
}
#include "tst_finding_card_fit.moc"
