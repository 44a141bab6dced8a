// Validation split across ranks gives the metrics of one rank over the whole set: the images
// DistributedSampler repeats to pad the ranks are not scored twice.
#include <QTemporaryDir>
#include <QtTest/QtTest>

#include <torch/torch.h>

#include "core/data/dataset.h"
#include "core/data/demo.h"
#include "core/data/loader.h"
#include "core/model/yolo.h"
#include "core/train/validator.h"

using namespace stave;

class TstValidator : public QObject {
  Q_OBJECT
 private slots:
  void ranksGiveTheOneRankMetrics() {
    QTemporaryDir dir;
    data::DemoOptions d;
    d.out = dir.path().toStdString();
    d.train = 2;
    d.val = 5;  // odd: with 2 ranks one image is repeated as padding
    d.imgsz = 64;
    QVERIFY(data::makeDemo(d).ok());
    const auto spec = data::loadDataYaml(d.out + "/data.yaml").value();
    const auto val = data::scanSplit(spec, "val").value();
    QCOMPARE(val.images.size(), size_t(5));

    torch::manual_seed(3);
    model::Yolo net(model::ModelOptions{"n", 5});
    train::ValidationOptions vo;
    const auto loaderFor = [&](int rank, int world) {
      data::LoaderOptions o;
      o.imgsz = 64;
      o.batch = 1;  // the same per-image computation on every path
      o.workers = 0;
      o.augment = false;
      o.shuffle = false;
      o.rank = rank;
      o.worldSize = world;
      return std::make_unique<data::Loader>(val, o);
    };

    auto single = loaderFor(0, 1);
    const auto one = train::validate(*net, *single, 5, vo, nullptr, {});
    QCOMPARE(one.images, int64_t(5));

    // Two ranks, run one after the other: rank 1's statistics are captured and handed to
    // rank 0's gather, which returns both in rank order as the collective does.
    std::vector<float> fromRank1;
    auto r1 = loaderFor(1, 2);
    train::validate(*net, *r1, 5, vo, nullptr, [&](const std::vector<float>& mine) {
      fromRank1 = mine;
      return mine;
    });
    auto r0 = loaderFor(0, 2);
    const auto two =
        train::validate(*net, *r0, 5, vo, nullptr, [&](const std::vector<float>& mine) {
          std::vector<float> all = mine;
          all.insert(all.end(), fromRank1.begin(), fromRank1.end());
          return all;
        });
    // An untrained model scores about 0 mAP, so the counts carry this test: a repeated image
    // would add an image and its ground truth to them.
    QCOMPARE(two.images, int64_t(5));
    QCOMPARE(two.map50, one.map50);
    QCOMPARE(two.map5095, one.map5095);
    QCOMPARE(two.precision, one.precision);
    QCOMPARE(two.recall, one.recall);
    QCOMPARE(two.perClass.size(), one.perClass.size());
    for (size_t c = 0; c < one.perClass.size(); ++c) {
      QCOMPARE(two.perClass[c].images, one.perClass[c].images);
      QCOMPARE(two.perClass[c].instances, one.perClass[c].instances);
    }
  }
};

QTEST_GUILESS_MAIN(TstValidator)
#include "tst_validator.moc"
