// The label editor (widgets/label_editor.h) and the Label issues view, driven by mouse and key
// events offscreen: draw, move, class change by number key, delete, accept a prediction, undo
// and redo, save (the file and the edit log checked), next/previous image, zoom and pan, a file
// changed on disk refused (Reload), a read-only save keeping the edits, a 4000 × 3000 image's
// paint time; the issues view's one-key fixes and "not an issue" remembered.
#include <QApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QListWidget>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>
#include <algorithm>

#include "core/base/atomic_file.h"
#include "core/base/hash.h"
#include "core/data/label_edits.h"
#include "core/data/label_fix_batch.h"
#include "core/data/label_fixes.h"
#include "widgets/label_canvas.h"
#include "widgets/label_editor.h"
#include "widgets/label_issues_view.h"

using namespace stave;
using stave::studio::EditorBox;
using stave::studio::EditorImage;

namespace {

const QStringList kNames{"cat", "dog", "bird"};

void writeText(const QString& path, const QString& text) {
  QVERIFY(stave::writeFileAtomic(path.toStdString(), text.toStdString()).ok());
}

QString readText(const QString& path) {
  auto r = stave::readFile(path.toStdString());
  return r ? QString::fromStdString(r.value()) : QStringLiteral("<missing>");
}

// An image with a few shapes (so it is not blank) of `w` x `h`.
void writeImage(const QString& path, int w, int h) {
  QImage img(w, h, QImage::Format_RGB888);
  img.fill(QColor(90, 110, 130));
  QPainter p(&img);
  p.fillRect(QRect(w / 8, h / 8, w / 4, h / 4), Qt::yellow);
  p.fillRect(QRect(w / 2, h / 2, w / 3, h / 3), Qt::darkGreen);
  p.end();
  QVERIFY(img.save(path));
}

// Sends a left-button drag from `a` to `b` (widget points) in a few steps.
void drag(QWidget* w, QPointF a, QPointF b, Qt::MouseButton button = Qt::LeftButton) {
  auto send = [&](QEvent::Type type, QPointF at, Qt::MouseButtons buttons) {
    QMouseEvent e(type, at, w->mapToGlobal(at), type == QEvent::MouseMove ? Qt::NoButton : button,
                  buttons, Qt::NoModifier);
    QApplication::sendEvent(w, &e);
  };
  send(QEvent::MouseButtonPress, a, button);
  for (int i = 1; i <= 4; ++i) send(QEvent::MouseMove, a + (b - a) * (i / 4.0), button);
  send(QEvent::MouseButtonRelease, b, Qt::NoButton);
}

void click(QWidget* w, QPointF at) {
  drag(w, at, at);
}

struct Fixture {
  QTemporaryDir dir;
  QString root, a, b, big, labelA, labelB, labelBig;
  Fixture() {
    root = dir.path();
    QDir().mkpath(root + "/images/train");
    QDir().mkpath(root + "/labels/train");
    a = root + "/images/train/a.png";
    b = root + "/images/train/b.png";
    big = root + "/images/train/big.png";
    labelA = root + "/labels/train/a.txt";
    labelB = root + "/labels/train/b.txt";
    labelBig = root + "/labels/train/big.txt";
    writeImage(a, 400, 300);
    writeImage(b, 400, 300);
    writeText(labelA,
              "0 0.250000 0.250000 0.200000 0.200000\n1 0.700000 0.700000 0.200000 0.200000\n");
    writeText(labelB, "2 0.500000 0.500000 0.400000 0.400000\n");
  }
  QVector<EditorImage> images() const {
    EditorImage ia{a, {}, {}, {}, false};
    // A prediction where no label is: class bird in the top right.
    ia.predictions.push_back({2, QRectF(0.7, 0.1, 0.2, 0.2), 0.91, -1});
    EditorImage ib{b, {}, {}, {}, false};
    ib.issues.push_back({0, QRectF(0.3, 0.3, 0.4, 0.4), 1, -1});
    return {ia, ib};
  }
};

QPointF at(widgets::LabelCanvas* c, double x, double y) {
  return c->toWidget(QPointF(x, y));
}

/// Gives `editor` the images (at `current`), sized `size` unless empty, and shows it; the caller
/// waits for the model to load.
void showEditor(widgets::LabelEditor& editor, const QString& root,
                const QVector<EditorImage>& images, int current, QSize size = {}) {
  if (!size.isEmpty()) editor.resize(size);
  editor.setImages(root, kNames, images, current);
  editor.show();
}

}  // namespace

class TstLabelEditor : public QObject {
  Q_OBJECT
 private slots:
  void editsSaveAndLog();
  void navigationZoomPan();
  void changedOnDiskIsRefused();
  void readOnlyKeepsEdits();
  void largeImagePaintsQuickly();
  void issuesViewFixes();
  void issuesViewTakesPredictedBox();
};

void TstLabelEditor::editsSaveAndLog() {
  Fixture f;
  widgets::LabelEditor editor;
  showEditor(editor, f.root, f.images(), 0, QSize(1000, 700));
  auto* model = editor.model();
  auto* canvas = editor.canvas();
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded(), 20000);
  QCOMPARE(int(model->boxes().size()), 2);
  QVERIFY(!canvas->imageRect().isEmpty());

  // Draw a box on empty space (class: the one chosen with key 2 = dog).
  canvas->setFocus();
  QTest::keyClick(canvas, Qt::Key_2);
  drag(canvas, at(canvas, 0.10, 0.60), at(canvas, 0.30, 0.90));
  QCOMPARE(int(model->boxes().size()), 3);
  const EditorBox drawn = model->boxes().back();
  QCOMPARE(drawn.cls, 1);
  QVERIFY(std::abs(drawn.rect.left() - 0.10) < 0.01 && std::abs(drawn.rect.bottom() - 0.90) < 0.01);
  QVERIFY(model->dirty());
  // Undo, redo.
  QTest::keyClick(canvas, Qt::Key_Z, Qt::ControlModifier);
  QCOMPARE(int(model->boxes().size()), 2);
  QTest::keyClick(canvas, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
  QCOMPARE(int(model->boxes().size()), 3);

  // Move the first box by dragging its inside; then give it class bird with key 3.
  click(canvas, at(canvas, 0.25, 0.25));
  QCOMPARE(canvas->selected(), 0);
  drag(canvas, at(canvas, 0.25, 0.25), at(canvas, 0.35, 0.30));
  QVERIFY(std::abs(model->boxes()[0].rect.center().x() - 0.35) < 0.01);
  QVERIFY(std::abs(model->boxes()[0].rect.center().y() - 0.30) < 0.01);
  QTest::keyClick(canvas, Qt::Key_3);
  QCOMPARE(model->boxes()[0].cls, 2);
  QCOMPARE(editor.classList()->currentRow(), 2);
  // Resize it by its bottom-right corner.
  const QRectF r0 = model->boxes()[0].rect;
  drag(canvas, canvas->toWidget(r0.bottomRight()),
       at(canvas, r0.right() + 0.05, r0.bottom() + 0.05));
  QVERIFY(model->boxes()[0].rect.width() > r0.width() + 0.04);
  QCOMPARE(model->boxes()[0].rect.topLeft(), r0.topLeft());

  // Delete the second label box (class dog at 0.7, 0.7).
  click(canvas, at(canvas, 0.70, 0.70));
  QCOMPARE(canvas->selected(), 1);
  QTest::keyClick(canvas, Qt::Key_Delete);
  QCOMPARE(int(model->boxes().size()), 2);
  // Accept the model's prediction (none selected: the strongest uncovered one).
  QTest::keyClick(canvas, Qt::Key_A);
  QCOMPARE(int(model->boxes().size()), 3);
  QCOMPARE(model->boxes().back().cls, 2);
  QCOMPARE(model->boxes().back().rect, QRectF(0.7, 0.1, 0.2, 0.2));
  const int steps = editor.undoStack()->count();
  QCOMPARE(steps, 6);  // draw, move, class, resize, delete, accept

  // Save: the file holds what the editor shows, the log one edit of this studio's session.
  QSignalSpy saved(model, &studio::LabelEditorModel::saved);
  QTest::keyClick(canvas, Qt::Key_S, Qt::ControlModifier);
  QVERIFY(saved.wait(20000));
  QVERIFY(!model->dirty());
  const QString text = readText(f.labelA);
  const auto rows = data::parseLabelRows(text.toStdString());
  QCOMPARE(int(rows.size()), 3);
  QCOMPARE(rows[0].box.cls, 2);
  QCOMPARE(rows[2].box.cls, 2);
  QCOMPARE(rows[1].box.cls, 1);
  data::LabelStore store(f.root.toStdString(), "test");
  const auto log = store.log();
  QCOMPARE(int(log.edits.size()), 1);
  QCOMPARE(log.edits[0].file, std::string("labels/train/a.txt"));
  QCOMPARE(log.edits[0].session, studio::labelEditSession());
  QCOMPARE(int(log.edits[0].oldLines.size()), 2);
  QCOMPARE(log.edits[0].newLines.size(), rows.size());
  QCOMPARE(
      readText(f.root + "/.stave/labels-original/labels/train/a.txt"),
      QString("0 0.250000 0.250000 0.200000 0.200000\n1 0.700000 0.700000 0.200000 0.200000\n"));
  QVERIFY(editor.statusLabel()->text().contains("a.png"));

  // Undo after saving makes it dirty again; going to the next image saves first.
  QTest::keyClick(canvas, Qt::Key_Z, Qt::ControlModifier);
  QVERIFY(model->dirty());
  QTest::keyClick(canvas, Qt::Key_Right);
  QTRY_COMPARE_WITH_TIMEOUT(model->current(), 1, 20000);
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded(), 20000);
  QCOMPARE(int(data::parseLabelRows(readText(f.labelA).toStdString()).size()), 2);
  QCOMPARE(int(store.log().edits.size()), 2);
}

void TstLabelEditor::navigationZoomPan() {
  Fixture f;
  widgets::LabelEditor editor;
  showEditor(editor, f.root, f.images(), 0, QSize(1000, 700));
  auto* model = editor.model();
  auto* canvas = editor.canvas();
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded(), 20000);
  canvas->setFocus();
  // I: the next image with an issue (b); Left: back to a; PageDown: b again.
  QTest::keyClick(canvas, Qt::Key_I);
  QTRY_COMPARE_WITH_TIMEOUT(model->current(), 1, 20000);
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded(), 20000);
  QCOMPARE(int(model->issues().size()), 1);
  QTest::keyClick(canvas, Qt::Key_Left);
  QTRY_COMPARE_WITH_TIMEOUT(model->current(), 0, 20000);
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded(), 20000);
  QTest::keyClick(canvas, Qt::Key_PageDown);
  QTRY_COMPARE_WITH_TIMEOUT(model->current(), 1, 20000);
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded(), 20000);
  // No edits: nothing was written, nothing logged.
  QVERIFY(!QFileInfo::exists(f.root + "/.stave/label-edits.jsonl"));

  // Zoom in with + and the wheel, keeping the point under the cursor; pan with a right drag;
  // Ctrl+0 fits again.
  const double w0 = canvas->imageRect().width();
  QTest::keyClick(canvas, Qt::Key_Plus);
  QVERIFY(canvas->zoom() > 1.2);
  const QPointF cursor(300, 250);
  const QPointF under = canvas->toImage(cursor);
  QWheelEvent wheel(cursor, canvas->mapToGlobal(cursor), {}, QPoint(0, 240), Qt::NoButton,
                    Qt::NoModifier, Qt::NoScrollPhase, false);
  QApplication::sendEvent(canvas, &wheel);
  QVERIFY(canvas->imageRect().width() > w0 * 1.9);
  QVERIFY((canvas->toImage(cursor) - under).manhattanLength() < 1e-6);
  const QPointF pan0 = canvas->pan();
  drag(canvas, QPointF(400, 300), QPointF(300, 250), Qt::RightButton);
  QVERIFY((canvas->pan() - pan0 - QPointF(-100, -50)).manhattanLength() < 1.0);
  QTest::keyClick(canvas, Qt::Key_0, Qt::ControlModifier);
  QCOMPARE(canvas->zoom(), 1.0);
  QCOMPARE(canvas->imageRect().width(), w0);
}

void TstLabelEditor::changedOnDiskIsRefused() {
  Fixture f;
  widgets::LabelEditor editor;
  showEditor(editor, f.root, f.images(), 1);
  auto* model = editor.model();
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded(), 20000);
  // Another program rewrites b.txt while it is open here.
  writeText(f.labelB, "0 0.1 0.1 0.1 0.1\n");
  editor.canvas()->select(0);
  QTest::keyClick(editor.canvas(), Qt::Key_Delete);
  QSignalSpy failed(model, &studio::LabelEditorModel::failed);
  model->save();
  QVERIFY(failed.wait(20000));
  QCOMPARE(failed.at(0).at(0).value<studio::LabelEditorModel::Failure>(),
           studio::LabelEditorModel::Failure::Conflict);
  QCOMPARE(readText(f.labelB), QString("0 0.1 0.1 0.1 0.1\n"));  // not overwritten
  QVERIFY(editor.messageLabel()->text().contains(f.labelB));
  QVERIFY(editor.reloadButton()->isVisibleTo(&editor));
  QVERIFY(model->dirty());
  // Reload: the other program's labels, the edits here dropped.
  QTest::mouseClick(editor.reloadButton(), Qt::LeftButton);
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded() && model->boxes().size() == 1, 20000);
  QCOMPARE(model->boxes()[0].cls, 0);
  QVERIFY(!model->dirty());
}

void TstLabelEditor::readOnlyKeepsEdits() {
  Fixture f;
  // The label folder's place is taken by a file: whoever runs the test (root included) cannot
  // write there, as on a read-only dataset.
  const QString c = f.root + "/images/train/c.png";
  writeImage(c, 200, 100);
  QDir(f.root + "/labels").removeRecursively();
  writeText(f.root + "/labels", "not a folder\n");
  widgets::LabelEditor editor;
  showEditor(editor, f.root, {EditorImage{c, {}, {}, {}, false}}, 0);
  auto* model = editor.model();
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded(), 20000);
  auto* canvas = editor.canvas();
  drag(canvas, at(canvas, 0.2, 0.2), at(canvas, 0.6, 0.6));
  QCOMPARE(int(model->boxes().size()), 1);
  QSignalSpy failed(model, &studio::LabelEditorModel::failed);
  model->save();
  QVERIFY(failed.wait(20000));
  QCOMPARE(failed.at(0).at(0).value<studio::LabelEditorModel::Failure>(),
           studio::LabelEditorModel::Failure::Write);
  QVERIFY2(editor.messageLabel()->text().contains(f.root + "/labels"),
           qPrintable(editor.messageLabel()->text()));
  QVERIFY(editor.discardButton()->isVisibleTo(&editor));
  QVERIFY(model->dirty());  // the edits are kept in memory
  QCOMPARE(int(model->boxes().size()), 1);
}

void TstLabelEditor::largeImagePaintsQuickly() {
  Fixture f;
  writeImage(f.big, 4000, 3000);
  writeText(f.labelBig, "0 0.5 0.5 0.2 0.2\n");
  widgets::LabelEditor editor;
  showEditor(editor, f.root, {EditorImage{f.big, {}, {}, {}, false}}, 0, QSize(1200, 800));
  QTRY_VERIFY_WITH_TIMEOUT(editor.model()->loaded(), 30000);
  auto* canvas = editor.canvas();
  QVERIFY(editor.model()->picture().width <= studio::LabelEditorModel::kDisplaySide);
  QCOMPARE(editor.model()->imageSize(), QSize(4000, 3000));
  // Paints while dragging a box (the zoom level unchanged: the scaled copy is reused), then
  // zoomed in 4x and panned.
  auto timePaints = [&](int n) {
    std::vector<double> ms;
    for (int i = 0; i < n; ++i) {
      canvas->repaint();
      ms.push_back(canvas->lastPaintMs());
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  canvas->repaint();  // the first paint scales the picture once
  const double fit = timePaints(30);
  canvas->setZoom(4);
  canvas->repaint();
  const double zoomed = timePaints(30);
  qInfo("4000x3000 image, median paint: fitted %.2f ms, zoomed 4x %.2f ms", fit, zoomed);
  QVERIFY2(fit < 50 && zoomed < 50, "a paint of the large image takes longer than 50 ms");
}

void TstLabelEditor::issuesViewFixes() {
  Fixture f;
  // a.png is 400 x 300: the class-0 box is (60, 45)-(140, 105), the class-1 box (240, 180)-(320,
  // 240). Three issues: spurious class-0 box, swapped class-1 box (-> bird), overlooked bird.
  const QString csv = f.root + "/issues.csv";
  writeText(csv, QString::fromLatin1(data::kLabelIssuesCsvHeader) +
                     "images/train/a.png,spurious,0,-1,0.9000,60,45,140,105\n"
                     "images/train/a.png,swapped,1,2,0.8000,240,180,320,240\n"
                     "images/train/b.png,overlooked,-1,0,0.7000,10,10,50,50\n");
  widgets::LabelIssuesView view;
  view.resize(1000, 600);
  view.show();
  view.load(csv, f.root, kNames);
  QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 3, 20000);
  auto* table = view.table();
  QCOMPARE(table->currentIndex().row(), 0);
  table->setFocus();
  // Enter on the spurious issue: its box is deleted; the next issue is selected.
  QTest::keyClick(table, Qt::Key_Return);
  QTRY_COMPARE_WITH_TIMEOUT(int(view.model()->state(0)),
                            int(studio::LabelIssuesModel::State::Fixed), 20000);
  QCOMPARE(readText(f.labelA), QString("1 0.700000 0.700000 0.200000 0.200000\n"));
  QTRY_COMPARE_WITH_TIMEOUT(table->currentIndex().row(), 1, 20000);
  // C on the swapped one: the predicted class.
  QTest::keyClick(table, Qt::Key_C);
  QTRY_VERIFY2_WITH_TIMEOUT(view.model()->state(1) == studio::LabelIssuesModel::State::Fixed,
                            qPrintable(view.messageLabel()->text()), 20000);
  QCOMPARE(readText(f.labelA), QString("2 0.700000 0.700000 0.200000 0.200000\n"));
  // N on the overlooked one: not an issue, remembered for the dataset.
  QTRY_COMPARE_WITH_TIMEOUT(table->currentIndex().row(), 2, 20000);
  QTest::keyClick(table, Qt::Key_N);
  QTRY_COMPARE_WITH_TIMEOUT(int(view.model()->state(2)),
                            int(studio::LabelIssuesModel::State::NotAnIssue), 20000);
  QCOMPARE(readText(f.labelB), QString("2 0.500000 0.500000 0.400000 0.400000\n"));
  data::LabelStore store(f.root.toStdString(), "test");
  QCOMPARE(int(store.log().edits.size()), 2);
  // Read again: the dismissed issue is left out.
  view.load(csv, f.root, kNames);
  QTRY_COMPARE_WITH_TIMEOUT(view.model()->dismissedCount(), 1, 20000);
  QCOMPARE(view.model()->rowCount(), 2);
  // A fix of an issue whose box is gone is refused with the reason.
  table->selectRow(0);
  QTest::keyClick(table, Qt::Key_Delete);
  QTRY_COMPARE_WITH_TIMEOUT(int(view.model()->state(0)),
                            int(studio::LabelIssuesModel::State::Failed), 20000);
  QVERIFY(view.messageLabel()->text().contains("no longer in the file"));
  // E opens the editor on the issue's image with the issue boxes.
  table->selectRow(1);
  QTest::keyClick(table, Qt::Key_E);
  QVERIFY(view.editor());
  QTRY_VERIFY_WITH_TIMEOUT(view.editor()->model()->loaded(), 20000);
  QCOMPARE(int(view.editor()->model()->issues().size()), 2);  // both of a.png
  view.editor()->close();
}

// A badly located issue: with the companion label-issues writes beside the CSV (the predicted
// box), Enter takes that box; without it, Enter opens the editor with no made-up prediction.
void TstLabelEditor::issuesViewTakesPredictedBox() {
  Fixture f;
  // b.png is 400 x 300: its class-2 box is (120, 90)-(280, 210); the model put it at
  // (100, 80)-(300, 220).
  const QString csv = f.root + "/issues.csv";
  const QString text = QString::fromLatin1(data::kLabelIssuesCsvHeader) +
                       "images/train/b.png,badly_located,2,2,0.6000,120,90,280,210\n";
  writeText(csv, text);
  widgets::LabelIssuesView view;
  view.resize(1000, 600);
  view.show();
  // Without the companion: the editor, its only prediction none.
  view.load(csv, f.root, kNames);
  QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 1, 20000);
  QVERIFY(!view.model()->issue(0).hasPredictedBox);
  view.table()->setFocus();
  view.table()->selectRow(0);
  QTest::keyClick(view.table(), Qt::Key_Return);
  QVERIFY(view.editor());
  QTRY_VERIFY_WITH_TIMEOUT(view.editor()->model()->loaded(), 20000);
  QVERIFY(view.editor()->model()->predictions().isEmpty());
  view.editor()->close();
  QCOMPARE(readText(f.labelB), QString("2 0.500000 0.500000 0.400000 0.400000\n"));

  // With it (line 2 of the CSV): Enter writes the predicted box, class kept.
  data::IssuesCompanion c;
  c.csvHash = hashHex(text.toStdString());
  c.predictedBoxes[2] = {100, 80, 300, 220};
  writeText(csv + ".json", QString::fromStdString(data::issuesCompanionJson(c)));
  view.load(csv, f.root, kNames);
  QTRY_VERIFY_WITH_TIMEOUT(view.model()->rowCount() == 1 && view.model()->issue(0).hasPredictedBox,
                           20000);
  view.table()->selectRow(0);
  QTest::keyClick(view.table(), Qt::Key_Return);
  QTRY_VERIFY2_WITH_TIMEOUT(view.model()->state(0) == studio::LabelIssuesModel::State::Fixed,
                            qPrintable(view.messageLabel()->text()), 20000);
  QCOMPARE(readText(f.labelB), QString("2 0.500000 0.500000 0.500000 0.466667\n"));
}

QTEST_MAIN(TstLabelEditor)
#include "tst_label_editor.moc"
