// Cluster profiles in their one file: written and read back field for field, bad files and bad
// fields named, the dataset mapped from this machine's path to the cluster's.
#include <QtTest/QtTest>

#include "core/cluster/profile.h"

using namespace stave::cluster;

class TstProfile : public QObject {
  Q_OBJECT
 private slots:
  void roundTrip() {
    QTemporaryDir dir;
    Profile a;
    a.name = "gpu cluster";
    a.destination = "alice@login";
    a.port = 2222;
    a.runFolder = "/scratch/alice/it's runs";
    a.datasetLocal = "/home/alice/data";
    a.datasetRemote = "/scratch/alice/data";
    a.nodes = 2;
    Profile b;
    b.name = "local";
    const std::string path = dir.filePath("Stave/clusters.json").toStdString();
    QVERIFY(saveProfiles(path, {a, b}).ok());
    auto back = loadProfiles(path);
    QVERIFY2(back.ok(), back.errorText().c_str());
    QCOMPARE(back->size(), size_t{2});
    const Profile& r = back->at(0);
    QVERIFY(stave::config::memberTableProblems(profileFields()).empty());
    QCOMPARE(QString::fromStdString(stave::config::membersToJson(profileFields(), r).dump()),
             QString::fromStdString(stave::config::membersToJson(profileFields(), a).dump()));
    QCOMPARE(r.port, 2222);
    QCOMPARE(r.runFolder, a.runFolder);
    QVERIFY(back->at(1).remote() == false);
    QVERIFY(findProfile(path, "local").ok());
    auto missing = findProfile(path, "nope");
    QVERIFY(!missing.ok());
    QVERIFY(QString::fromStdString(missing.errorText()).contains("gpu cluster"));
  }

  void badFiles() {
    QTemporaryDir dir;
    const QString path = dir.filePath("c.json");
    QVERIFY(loadProfiles(path.toStdString()).ok());  // missing: none
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"clusters": [{"name": "x", "destination": "-oProxyCommand=id", "run_folder": "/r"}, {"name": "y", "port": "22"}]})");
    f.close();
    auto r = loadProfiles(path.toStdString());
    QVERIFY(!r.ok());
    const QString text = QString::fromStdString(r.errorText());
    QVERIFY2(text.contains("destination") && text.contains("clusters[1].port"), qPrintable(text));
    // Each also as catalog messages (the studio's language), saying the same words.
    for (const auto& e : r.errors()) {
      QVERIFY2(!e.text.empty(), e.message.c_str());
      QCOMPARE(stave::english(e.text), e.message);
    }
  }

  void problems() {
    Profile p;
    p.name = "c";
    p.destination = "login";
    QVERIFY(!p.problems().empty());  // no remote run folder
    p.runFolder = "/scratch";
    QVERIFY(p.problems().empty());
    p.datasetLocal = "/home/a/data";
    QVERIFY(!p.problems().empty());  // half a mapping
    Profile local;
    local.name = "l";
    local.port = 22;
    QVERIFY(!local.problems().empty());  // ssh fields without a destination
    // The same problems as catalog messages, for the studio.
    const auto texts = local.problemTexts();
    QCOMPARE(texts.size(), local.problems().size());
    QCOMPARE(texts[0].id, std::string("cluster.problem"));
    QCOMPARE(stave::english(texts[0]), local.problems()[0]);
    QCOMPARE(local.problems()[0], std::string("cluster 'l': port: only a cluster reached over SSH (a destination) uses it"));
  }

  void datasetMapping() {
    Profile p;
    p.name = "c";
    p.datasetLocal = "/home/a/data/";
    p.datasetRemote = "/scratch/a/data";
    QCOMPARE(QString::fromStdString(p.clusterDataPath("/home/a/data/coco/data.yaml").value()),
             QString("/scratch/a/data/coco/data.yaml"));
    QVERIFY(!p.clusterDataPath("/home/a/database/data.yaml").ok());  // a prefix, not a folder
    p.datasetOnCluster = "/datasets/coco/data.yaml";
    QCOMPARE(QString::fromStdString(p.clusterDataPath("/anything/data.yaml").value()), QString("/datasets/coco/data.yaml"));
    Profile none;
    none.name = "n";
    QVERIFY(!none.clusterDataPath("/x/data.yaml").ok());
  }
};

QTEST_GUILESS_MAIN(TstProfile)
#include "tst_profile.moc"
