// The gallery's model and filter on a summary built by hand: roles, and split / class / problem
// filters alone and together, checked against a plain count over the images.
#include <QRectF>
#include <QSize>
#include <QtTest>

#include <random>

#include "core/studio/models/gallery_model.h"

using stave::studio::DatasetSummary;
using stave::studio::GalleryFilterModel;
using stave::studio::GalleryImage;
using stave::studio::GalleryModel;

namespace {
// 300 images: split i % 3 (train, val, test), 0..3 boxes of random classes 0..3 (seed 7), every
// 10th with a label-class problem, every 25th unusable (image-unreadable).
DatasetSummary makeSummary() {
  DatasetSummary s;
  s.names = {"cat", "dog", "bird", "fish"};
  for (const char* n : {"train", "val", "test"}) {
    DatasetSummary::Split sp;
    sp.name = n;
    s.splits << sp;
  }
  auto images = std::make_shared<std::vector<GalleryImage>>();
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    GalleryImage g;
    g.path = QStringLiteral("/data/images/%1.jpg").arg(i);
    g.labelPath = QStringLiteral("/data/labels/%1.txt").arg(i);
    g.split = i % 3;
    if (i % 25 == 0) {
      g.usable = false;
      g.problemKinds << "image-unreadable";
    } else {
      g.width = 640;
      g.height = 480;
      const int n = int(rng() % 4);
      for (int b = 0; b < n; ++b) g.boxes.push_back({int(rng() % 4), 0.5f, 0.5f, 0.2f, 0.4f});
      if (i % 10 == 0) g.problemKinds << "label-class";
    }
    images->push_back(std::move(g));
  }
  s.images = images;
  return s;
}

int count(const DatasetSummary& s, const QString& split, int cls, const QString& problem) {
  int n = 0;
  for (const auto& g : *s.images) {
    if (!split.isEmpty() && s.splits[g.split].name != split) continue;
    if (cls >= 0 && std::none_of(g.boxes.begin(), g.boxes.end(),
                                 [&](const stave::data::Box& b) { return b.cls == cls; }))
      continue;
    if (problem == GalleryFilterModel::kAnyProblem && g.problemKinds.isEmpty()) continue;
    if (problem == GalleryFilterModel::kNoProblem && !g.problemKinds.isEmpty()) continue;
    if (!problem.isEmpty() && problem != GalleryFilterModel::kAnyProblem &&
        problem != GalleryFilterModel::kNoProblem && !g.problemKinds.contains(problem))
      continue;
    ++n;
  }
  return n;
}
}  // namespace

class TestGalleryModel : public QObject {
  Q_OBJECT
 private slots:
  void roles() {
    const DatasetSummary s = makeSummary();
    GalleryModel m;
    m.setSummary(s);
    QCOMPARE(m.rowCount(), 300);
    // Row 1: usable, val split.
    const QModelIndex i1 = m.index(1);
    QCOMPARE(i1.data(Qt::DisplayRole).toString(), QString("1.jpg"));
    QCOMPARE(i1.data(GalleryModel::PathRole).toString(), QString("/data/images/1.jpg"));
    QCOMPARE(i1.data(GalleryModel::LabelPathRole).toString(), QString("/data/labels/1.txt"));
    QCOMPARE(i1.data(GalleryModel::SplitRole).toString(), QString("val"));
    QCOMPARE(i1.data(GalleryModel::SizeRole).toSize(), QSize(640, 480));
    QVERIFY(i1.data(GalleryModel::UsableRole).toBool());
    const auto& g1 = m.image(1);
    const auto rects = i1.data(GalleryModel::BoxesRole).value<QList<QRectF>>();
    const auto classes = i1.data(GalleryModel::BoxClassesRole).value<QList<int>>();
    QCOMPARE(rects.size(), qsizetype(g1.boxes.size()));
    QCOMPARE(classes.size(), qsizetype(g1.boxes.size()));
    for (int b = 0; b < rects.size(); ++b) {
      // Centre 0.5, 0.5, size 0.2 x 0.4 -> left 0.4, top 0.3.
      QVERIFY(qAbs(rects[b].left() - 0.4) < 1e-6 && qAbs(rects[b].top() - 0.3) < 1e-6);
      QVERIFY(qAbs(rects[b].width() - 0.2) < 1e-6 && qAbs(rects[b].height() - 0.4) < 1e-6);
      QCOMPARE(classes[b], g1.boxes[size_t(b)].cls);
    }
    const auto distinct = i1.data(GalleryModel::ClassesRole).value<QList<int>>();
    QVERIFY(std::is_sorted(distinct.begin(), distinct.end()));
    for (int c : classes) QVERIFY(distinct.contains(c));
    // Row 0: unusable, with its problem.
    const QModelIndex i0 = m.index(0);
    QVERIFY(!i0.data(GalleryModel::UsableRole).toBool());
    QVERIFY(!i0.data(GalleryModel::SizeRole).toSize().isValid());
    QCOMPARE(i0.data(GalleryModel::ProblemKindsRole).toStringList(),
             QStringList{"image-unreadable"});
    // An empty summary empties the model.
    m.setSummary(DatasetSummary{});
    QCOMPARE(m.rowCount(), 0);
  }

  void filters_data() {
    QTest::addColumn<QString>("split");
    QTest::addColumn<int>("cls");
    QTest::addColumn<QString>("problem");
    QTest::newRow("all") << "" << -1 << "";
    QTest::newRow("val") << "val" << -1 << "";
    QTest::newRow("test") << "test" << -1 << "";
    QTest::newRow("dog") << "" << 1 << "";
    QTest::newRow("fish in train") << "train" << 3 << "";
    QTest::newRow("any problem") << "" << -1 << GalleryFilterModel::kAnyProblem;
    QTest::newRow("no problem") << "" << -1 << GalleryFilterModel::kNoProblem;
    QTest::newRow("unreadable") << "" << -1 << "image-unreadable";
    QTest::newRow("label-class in val") << "val" << -1 << "label-class";
    QTest::newRow("cat, label-class") << "" << 0 << "label-class";
    QTest::newRow("unknown kind") << "" << -1 << "label-nan";
  }
  void filters() {
    QFETCH(QString, split);
    QFETCH(int, cls);
    QFETCH(QString, problem);
    const DatasetSummary s = makeSummary();
    GalleryModel m;
    m.setSummary(s);
    GalleryFilterModel f;
    f.setSourceModel(&m);
    f.setSplitFilter(split);
    f.setClassFilter(cls);
    f.setProblemFilter(problem);
    const int expected = count(s, split, cls, problem);
    QCOMPARE(f.rowCount(), expected);
    // Every row shown matches; and the filters really filter (except "all").
    for (int r = 0; r < f.rowCount(); ++r) {
      const QModelIndex i = f.index(r, 0);
      if (!split.isEmpty()) QCOMPARE(i.data(GalleryModel::SplitRole).toString(), split);
      if (cls >= 0) QVERIFY(i.data(GalleryModel::ClassesRole).value<QList<int>>().contains(cls));
    }
    if (split.isEmpty() && cls < 0 && problem.isEmpty())
      QCOMPARE(expected, 300);
    else
      QVERIFY(expected < 300);
    // Clearing the filters brings every row back.
    f.setSplitFilter({});
    f.setClassFilter(-1);
    f.setProblemFilter({});
    QCOMPARE(f.rowCount(), 300);
  }
};

QTEST_GUILESS_MAIN(TestGalleryModel)
#include "tst_gallery_model.moc"
