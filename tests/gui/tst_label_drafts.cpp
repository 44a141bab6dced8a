// The label loop's remaining studio parts (issue 44 §2, §3): the Label issues list shows each
// image's thumbnail (decoded off the GUI thread); images without a label file get a model's
// predictions as draft labels that are written only when accepted; a read-only dataset's edits
// of several images are saved elsewhere — just those label files, in the dataset's layout.
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDirIterator>
#include <QFile>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "core/base/atomic_file.h"
#include "core/config/project.h"
#include "core/data/label_edits.h"
#include "core/data/label_issues.h"
#include "core/studio/run/draft_labels.h"
#include "core/studio/project/project_document.h"
#include "core/studio/models/thumbnail_loader.h"
#include "widgets/checkpoint_field.h"
#include "widgets/dataset_page.h"
#include "widgets/draft_labels_dialog.h"
#include "widgets/label_canvas.h"
#include "widgets/label_editor.h"
#include "widgets/label_issues_view.h"

using namespace stave;
using studio::EditorImage;

namespace {

const QStringList kNames{"cat", "dog", "bird"};

void writeText(const QString& path, const QString& text) {
  QVERIFY(stave::writeFileAtomic(path.toStdString(), text.toStdString()).ok());
}

QString readText(const QString& path) {
  auto r = stave::readFile(path.toStdString());
  return r ? QString::fromStdString(r.value()) : QStringLiteral("<missing>");
}

// A 400 x 300 image of one colour (so its thumbnail can be told apart on screen).
void writeImage(const QString& path, QColor colour) {
  QImage img(400, 300, QImage::Format_RGB888);
  img.fill(colour);
  QVERIFY(img.save(path));
}

// How many pixels of `img` inside `r` are close to `c`.
int pixelsLike(const QImage& img, const QRect& r, QColor c) {
  int n = 0;
  for (int y = std::max(0, r.top()); y <= std::min(img.height() - 1, r.bottom()); ++y)
    for (int x = std::max(0, r.left()); x <= std::min(img.width() - 1, r.right()); ++x) {
      const QColor p = img.pixelColor(x, y);
      if (std::abs(p.red() - c.red()) < 12 && std::abs(p.green() - c.green()) < 12 &&
          std::abs(p.blue() - c.blue()) < 12)
        ++n;
    }
  return n;
}

// A stand-in for `stave-train predict` (the real one needs a trained checkpoint, which
// gui_tst_predict_dialog covers): it lists the folder it is given into $FAKE_PREDICT_LOG and,
// naming each image by its resolved path relative to the folder (as predict once did), writes
// an "annotated" copy there and predicts a dog at (40,30)-(120,90) with 0.9 and a bird below the
// drafts' confidence, as predictions.csv and the JSON summary predict --json prints. Were the
// images given to it as symbolic links, the copy would land on the dataset's image.
QString writeFakePredict(const QString& dir) {
  const QString path = dir + "/fake-stave-train";
  writeText(path,
            "#!/bin/sh\n"
            "while [ $# -gt 0 ]; do case \"$1\" in --source) src=\"$2\"; shift;; "
            "--out) out=\"$2\"; shift;; esac; shift; done\n"
            "mkdir -p \"$out\" || exit 2\n"
            "ls \"$src\" >> \"$FAKE_PREDICT_LOG\"\n"
            "csv=\"$out/predictions.csv\"\n"
            "printf 'image,cls,conf,x1,y1,x2,y2\\n' > \"$csv\"\n"
            "for f in \"$src\"/*; do b=$(realpath --relative-to=\"$src\" \"$f\");\n"
            "  printf 'annotated' > \"$out/$b\";\n"
            "  printf '%s,1,0.900000,40,30,120,90\\n%s,2,0.100000,0,0,10,10\\n' \"$b\" \"$b\" "
            ">> \"$csv\"; done\n"
            "printf '{\"names\":[\"cat\",\"dog\",\"bird\"],\"csv\":\"%s\",\"problems\":[]}\\n' "
            "\"$csv\"\n");
  QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
  return path;
}

}  // namespace

class TstLabelDrafts : public QObject {
  Q_OBJECT
 private slots:
  void issuesListShowsThumbnails();
  void draftsWrittenOnlyWhenAccepted();
  void newImagesAreFound();
  void datasetPageLabelsNewImages();
  void readOnlySavedElsewhere();
};

void TstLabelDrafts::issuesListShowsThumbnails() {
  QTemporaryDir dir;
  const QString root = dir.path();
  QDir().mkpath(root + "/images/train");
  QDir().mkpath(root + "/labels/train");
  writeImage(root + "/images/train/red.png", QColor(220, 20, 20));
  writeImage(root + "/images/train/blue.png", QColor(20, 40, 220));
  writeText(root + "/labels/train/red.txt", "0 0.5 0.5 0.2 0.2\n");
  writeText(root + "/labels/train/blue.txt", "1 0.5 0.5 0.2 0.2\n");
  const QString csv = root + "/issues.csv";
  writeText(csv, QString::fromLatin1(data::kLabelIssuesCsvHeader) +
                     "images/train/red.png,spurious,0,-1,0.9000,160,120,240,180\n"
                     "images/train/blue.png,swapped,1,2,0.8000,160,120,240,180\n");
  widgets::LabelIssuesView view;
  view.resize(1000, 500);
  view.show();
  QVERIFY(QTest::qWaitForWindowExposed(&view));
  view.load(csv, root, kNames);
  QTRY_COMPARE_WITH_TIMEOUT(view.model()->rowCount(), 2, 20000);
  // Decoded off the GUI thread, then painted in each row's Image cell, beside its name.
  QTRY_VERIFY_WITH_TIMEOUT(view.thumbnails()->cached(root + "/images/train/red.png") &&
                               view.thumbnails()->cached(root + "/images/train/blue.png"),
                           20000);
  auto* table = view.table();
  for (int row = 0; row < 2; ++row) {
    const QColor colour = row == 0 ? QColor(220, 20, 20) : QColor(20, 40, 220);
    const QRect cell =
        table->visualRect(view.model()->index(row, studio::LabelIssuesModel::ImageColumn));
    const QRect thumb(cell.left(), cell.top(), widgets::LabelIssuesView::kThumbnailSide + 8,
                      cell.height());
    // Painted after the thumbnail's arrival: waited for, never assumed.
    QTRY_VERIFY2_WITH_TIMEOUT(pixelsLike(table->viewport()->grab().toImage(), thumb, colour) > 400,
                              qPrintable(QString("row %1").arg(row)), 20000);
    // The file name is still there, right of the thumbnail.
    const QImage shot = table->viewport()->grab().toImage();
    QCOMPARE(pixelsLike(shot, cell.adjusted(thumb.width() + 4, 0, 0, 0), colour), 0);
  }
  QVERIFY(table->rowHeight(0) >= widgets::LabelIssuesView::kThumbnailSide);
  // Bounded: what the list keeps is the loader's byte budget, whatever the list's length.
  QVERIFY(view.thumbnails()->options().cacheBytes <= (64ll << 20));
  QVERIFY(view.thumbnails()->options().maxPending <= 1024);
}

void TstLabelDrafts::draftsWrittenOnlyWhenAccepted() {
  QTemporaryDir dir;
  const QString root = dir.path() + "/data";
  QDir().mkpath(root + "/images/train");
  QDir().mkpath(root + "/labels/train");
  const QString n1 = root + "/images/train/new1.png", n2 = root + "/images/train/new2.png";
  writeImage(n1, QColor(90, 110, 130));
  writeImage(n2, QColor(130, 110, 90));
  const QString l1 = root + "/labels/train/new1.txt", l2 = root + "/labels/train/new2.txt";
  const QString log = dir.path() + "/predict-sources.txt";
  qputenv("FAKE_PREDICT_LOG", log.toUtf8());

  widgets::LabelEditor editor;
  editor.resize(1000, 700);
  editor.draftPredictor()->setExecutable(writeFakePredict(dir.path()));
  editor.setImages(
      root, kNames,
      {EditorImage{n1, {}, {}, {}, false, true}, EditorImage{n2, {}, {}, {}, false, true}});
  editor.show();
  auto* model = editor.model();
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded(), 20000);
  const QString weights = dir.path() + "/best.pt";
  writeText(weights, "not read by the stand-in\n");
  editor.predictDrafts(weights);
  // The drafts arrive: one dog per image (the bird is below the drafts' confidence).
  QTRY_COMPARE_WITH_TIMEOUT(int(model->predictions().size()), 1, 60000);
  QVERIFY2(editor.draftPredictor()->outcome() == studio::DraftPredictor::Outcome::Completed,
           qPrintable(editor.draftPredictor()->errorText()));
  QVERIFY(model->showingDrafts());
  QVERIFY(editor.canvas()->drafts());
  QVERIFY(editor.acceptAllButton()->isVisibleTo(&editor));
  QVERIFY(editor.findChild<QLabel*>("labelEditorDraftHelp")->isVisibleTo(&editor));
  QVERIFY2(editor.messageLabel()->text().contains("nothing is written"),
           qPrintable(editor.messageLabel()->text()));
  QCOMPARE(model->predictions()[0].cls, 1);
  QVERIFY2(editor.statusLabel()->text().contains("1 draft"),
           qPrintable(editor.statusLabel()->text()));
  // Predict was given exactly the two images (as numbered links), not their whole folder.
  QTRY_VERIFY_WITH_TIMEOUT(readText(log).count('\n') == 2, 20000);
  QVERIFY(readText(log).contains("new1.png") && readText(log).contains("new2.png"));
  // The images themselves are untouched by predict's output.
  QVERIFY(!readText(n1).startsWith("annotated"));
  QVERIFY(!readText(n2).startsWith("annotated"));
  QCOMPARE(QImage(n1).size(), QSize(400, 300));
  // Shown, looked at, gone past: nothing is written.
  QVERIFY(model->boxes().isEmpty());
  QVERIFY(!model->dirty());
  QTest::keyClick(editor.canvas(), Qt::Key_Right);
  QTRY_VERIFY_WITH_TIMEOUT(model->current() == 1 && model->loaded(), 20000);
  QCOMPARE(int(model->predictions().size()), 1);
  QVERIFY(!QFile::exists(l1));
  QVERIFY(!QFile::exists(l2));
  data::LabelStore store(root.toStdString(), "test");
  QCOMPARE(int(store.log().edits.size()), 0);
  // Shift+A accepts all of new2's drafts, which writes its label file (through the edit log).
  QSignalSpy saved(model, &studio::LabelEditorModel::saved);
  QTest::keyClick(editor.canvas(), Qt::Key_A, Qt::ShiftModifier);
  QVERIFY(saved.wait(20000));
  QCOMPARE(readText(l2), QString("1 0.200000 0.200000 0.200000 0.200000\n"));
  QVERIFY(!QFile::exists(l1));
  auto edits = store.log().edits;
  QCOMPARE(int(edits.size()), 1);
  QCOMPARE(QString::fromStdString(edits[0].file), QString("labels/train/new2.txt"));
  QVERIFY(!edits[0].oldExisted);
  // An accepted draft is a label box now, not drawn as a draft any more.
  QCOMPARE(int(model->boxes().size()), 1);
  QVERIFY(editor.canvas()->isAccepted(model->predictions()[0]));
  QVERIFY2(editor.statusLabel()->text().contains("0 draft"),
           qPrintable(editor.statusLabel()->text()));
  // new1: one draft accepted with A, then corrected (moved) before going on: written as
  // corrected.
  QTest::keyClick(editor.canvas(), Qt::Key_Left);
  QTRY_VERIFY_WITH_TIMEOUT(model->current() == 0 && model->loaded(), 20000);
  QVERIFY(!QFile::exists(l1));
  QVERIFY(editor.acceptPrediction());
  QVERIFY(saved.wait(20000));
  QCOMPARE(readText(l1), QString("1 0.200000 0.200000 0.200000 0.200000\n"));
  auto boxes = model->boxes();
  boxes[0].rect.translate(0.1, 0);
  editor.edit(boxes, "Move box");
  QTest::keyClick(editor.canvas(), Qt::Key_Right);
  QTRY_VERIFY_WITH_TIMEOUT(model->current() == 1 && model->loaded(), 20000);
  QCOMPARE(readText(l1), QString("1 0.300000 0.200000 0.200000 0.200000\n"));
  QCOMPARE(int(store.log().edits.size()), 3);
}

void TstLabelDrafts::newImagesAreFound() {
  QTemporaryDir dir;
  const QString root = dir.path();
  QDir().mkpath(root + "/images/train");
  QDir().mkpath(root + "/labels/train");
  QVector<studio::ImageAndLabel> candidates;
  for (const char* name : {"old", "empty", "new"}) {
    const QString image = root + "/images/train/" + name + ".png";
    writeImage(image, Qt::gray);
    candidates.push_back({image, {}});
  }
  writeText(root + "/labels/train/old.txt", "0 0.5 0.5 0.2 0.2\n");
  writeText(root + "/labels/train/empty.txt", "");  // labelled as background: not new
  studio::ProjectDocument doc;
  widgets::DraftLabelsDialog dialog(&doc, candidates);
  QSignalSpy found(&dialog, &widgets::DraftLabelsDialog::found);
  QVERIFY(found.wait(20000));
  QCOMPARE(int(dialog.images().size()), 1);
  QCOMPARE(dialog.images()[0].image, root + "/images/train/new.png");
  QCOMPARE(dialog.images()[0].label, root + "/labels/train/new.txt");
  QVERIFY(dialog.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
  QVERIFY(dialog.summaryLabel()->text().contains("1 image"));
  QCOMPARE(dialog.conf(), studio::DraftPredictor::kDefaultConf);
  // The default model: the newest run's best.pt, else its last.pt.
  QDir().mkpath(root + "/runs/r1/weights");
  QDir().mkpath(root + "/runs/r2/weights");
  writeText(root + "/runs/r1/weights/best.pt", "x");
  writeText(root + "/runs/r2/weights/last.pt", "x");
  QCOMPARE(studio::defaultDraftCheckpoint({root + "/runs/r2", root + "/runs/r1"}),
           root + "/runs/r2/weights/last.pt");
  writeText(root + "/runs/r2/weights/best.pt", "x");
  QCOMPARE(studio::defaultDraftCheckpoint({root + "/runs/r2", root + "/runs/r1"}),
           root + "/runs/r2/weights/best.pt");
  QCOMPARE(studio::defaultDraftCheckpoint({}), QString());
}

void TstLabelDrafts::datasetPageLabelsNewImages() {
  QTemporaryDir dir;
  const QString root = dir.path() + "/data";
  QDir().mkpath(root + "/images/train");
  QDir().mkpath(root + "/labels/train");
  writeText(root + "/data.yaml",
            "path: .\ntrain: images/train\nval: images/train\nnames: [cat, dog, bird]\n");
  for (const char* name : {"old", "empty", "new1", "new2"})
    writeImage(root + "/images/train/" + name + ".png", Qt::gray);
  writeText(root + "/labels/train/old.txt", "0 0.5 0.5 0.2 0.2\n");
  writeText(root + "/labels/train/empty.txt", "");
  auto project = config::createProject((dir.path() + "/proj").toStdString(), "demo",
                                       (root + "/data.yaml").toStdString());
  QVERIFY2(project, project.errorText().c_str());
  // A run of the project with a checkpoint: the model offered first.
  const QString best = dir.path() + "/proj/runs/r1/weights/best.pt";
  QDir().mkpath(dir.path() + "/proj/runs/r1/weights");
  writeText(best, "x");
  writeText(dir.path() + "/proj/runs/r1/config.yaml", "model: yolov8n\n");
  studio::ProjectDocument doc;
  QVERIFY(doc.open(QString::fromStdString(project->path)));
  widgets::DatasetPage page(&doc);
  page.resize(1000, 700);
  QTRY_VERIFY_WITH_TIMEOUT(!page.scanning() && page.summary().images, 30000);
  QVERIFY(page.labelNewButton()->isEnabled());
  auto* dialog = page.labelNewImages();
  QTRY_VERIFY_WITH_TIMEOUT(dialog->searched(), 20000);
  QCOMPARE(int(dialog->images().size()), 2);
  QTRY_COMPARE_WITH_TIMEOUT(dialog->weights(), best, 20000);  // the runs are read off the GUI thread
  // Without a model: the editor on the two new images, nothing written by opening them.
  dialog->checkpoint()->box()->setCurrentText(QString());
  dialog->accept();
  auto* editor = page.findChild<widgets::LabelEditor*>();
  QVERIFY(editor);
  QCOMPARE(editor->model()->count(), 2);
  QTRY_VERIFY_WITH_TIMEOUT(editor->model()->loaded(), 20000);
  QVERIFY(editor->model()->currentImage()->image.endsWith("/new1.png"));
  QVERIFY(!editor->model()->showingDrafts());
  QVERIFY(!QFile::exists(root + "/labels/train/new1.txt"));
  QVERIFY(!QFile::exists(root + "/labels/train/new2.txt"));
  editor->close();
}

void TstLabelDrafts::readOnlySavedElsewhere() {
  QTemporaryDir dir;
  const QString root = dir.path() + "/data";
  QDir().mkpath(root + "/images/train");
  QDir().mkpath(root + "/images/val");
  const QString a = root + "/images/train/a.png", b = root + "/images/val/b.png",
                c = root + "/images/train/c.png";
  writeImage(a, Qt::gray);
  writeImage(b, Qt::gray);
  writeImage(c, Qt::gray);
  // The label folder's place is taken by a file: nobody (root included) can write there.
  writeText(root + "/labels", "not a folder\n");
  widgets::LabelEditor editor;
  editor.resize(1000, 700);
  editor.setImages(root, kNames,
                   {EditorImage{a, {}, {}, {}, false}, EditorImage{b, {}, {}, {}, false},
                    EditorImage{c, {}, {}, {}, false}});
  editor.show();
  auto* model = editor.model();
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded(), 20000);
  // a: a box drawn; going on tries to save, is refused, and keeps the edit in memory.
  editor.edit({{0, QRectF(0.1, 0.1, 0.2, 0.2), 1, -1}}, "Draw box");
  QSignalSpy failed(model, &studio::LabelEditorModel::failed);
  QTest::keyClick(editor.canvas(), Qt::Key_Right);
  QVERIFY(failed.wait(20000));
  QCOMPARE(failed.at(0).at(0).value<studio::LabelEditorModel::Failure>(),
           studio::LabelEditorModel::Failure::Write);
  QTRY_VERIFY_WITH_TIMEOUT(model->current() == 1 && model->loaded(), 20000);
  QVERIFY(model->readOnly());
  QVERIFY(editor.saveElsewhereButton()->isVisibleTo(&editor));
  // b: a box of another class; c is left alone.
  editor.edit({{2, QRectF(0.5, 0.5, 0.4, 0.2), 1, -1}}, "Draw box");
  QTest::keyClick(editor.canvas(), Qt::Key_Right);
  QTRY_VERIFY_WITH_TIMEOUT(model->current() == 2 && model->loaded(), 20000);
  QCOMPARE(model->keptCount(), 2);
  // Back on a: its edit is still there.
  QTest::keyClick(editor.canvas(), Qt::Key_Left);
  QTest::keyClick(editor.canvas(), Qt::Key_Left);
  QTRY_VERIFY_WITH_TIMEOUT(model->current() == 0 && model->loaded(), 20000);
  QCOMPARE(int(model->boxes().size()), 1);
  QVERIFY(model->dirty());

  // A folder that cannot be written (a file is in its way) is named in the message.
  const QString blocked = dir.path() + "/blocked";
  writeText(blocked, "a file\n");
  QSignalSpy elsewhere(model, &studio::LabelEditorModel::savedElsewhere);
  // (Reading a label file under the blocked folder fails too: those are Read failures.)
  auto elsewhereFailures = [&] {
    int n = 0;
    for (const auto& f : failed)
      n += f.at(0).value<studio::LabelEditorModel::Failure>() ==
           studio::LabelEditorModel::Failure::Elsewhere;
    return n;
  };
  editor.saveElsewhere(blocked + "/out");
  QTRY_COMPARE_WITH_TIMEOUT(elsewhereFailures(), 1, 20000);
  QVERIFY2(editor.messageLabel()->text().contains(blocked + "/out"),
           qPrintable(editor.messageLabel()->text()));
  // Into the dataset itself: refused.
  editor.saveElsewhere(root + "/fixed");
  QTRY_COMPARE_WITH_TIMEOUT(elsewhereFailures(), 2, 20000);
  QVERIFY2(editor.messageLabel()->text().contains("inside the dataset"),
           qPrintable(editor.messageLabel()->text()));

  // Saved elsewhere: the two edited label files, in the dataset's layout, and nothing else.
  const QString out = dir.path() + "/fixed labels";
  editor.saveElsewhere(out);
  QVERIFY(elsewhere.wait(20000));
  QCOMPARE(readText(out + "/labels/train/a.txt"),
           QString("0 0.200000 0.200000 0.200000 0.200000\n"));
  QCOMPARE(readText(out + "/labels/val/b.txt"), QString("2 0.700000 0.600000 0.400000 0.200000\n"));
  QStringList written;
  QDirIterator it(out, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext()) written << QDir(out).relativeFilePath(it.next());
  written.sort();
  QCOMPARE(written, QStringList({"labels/train/a.txt", "labels/val/b.txt"}));
  QVERIFY2(editor.messageLabel()->text().contains(out) &&
               editor.messageLabel()->text().contains("2 edited label file"),
           qPrintable(editor.messageLabel()->text()));
  QCOMPARE(model->savedElsewhereTo(), out);
  // The dataset is untouched.
  QCOMPARE(readText(root + "/labels"), QString("not a folder\n"));
  // Discard drops the kept edits.
  editor.discardButton()->click();
  QTRY_VERIFY_WITH_TIMEOUT(model->loaded() && model->boxes().isEmpty(), 20000);
  QCOMPARE(model->keptCount(), 0);
}

QTEST_MAIN(TstLabelDrafts)
#include "tst_label_drafts.moc"
