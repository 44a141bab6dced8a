// DistEnv: torchrun variables, Slurm variables, the nodelist expander and the errors.
#include <QtTest>

#include "core/distributed/dist_env.h"

using stave::dist::DistEnv;
using Vars = std::map<std::string, std::string>;
Q_DECLARE_METATYPE(Vars)

namespace {
Vars parseVars(const QString& s) {
  Vars v;
  for (const QString& kv : s.split(' ', Qt::SkipEmptyParts)) {
    const int eq = kv.indexOf('=');
    v[kv.left(eq).toStdString()] = kv.mid(eq + 1).toStdString();
  }
  return v;
}
}  // namespace

class TstDistEnv : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void parses_data() {
    QTest::addColumn<QString>("vars");
    QTest::addColumn<QString>("source");
    QTest::addColumn<int>("rank");
    QTest::addColumn<int>("localRank");
    QTest::addColumn<int>("worldSize");
    QTest::addColumn<int>("localWorldSize");
    QTest::addColumn<QString>("addr");
    QTest::addColumn<int>("port");

    QTest::newRow("none") << ""
                          << "single" << 0 << 0 << 1 << 1 << "127.0.0.1" << 29500;
    QTest::newRow("torchrun")
        << "RANK=3 LOCAL_RANK=1 WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 MASTER_ADDR=node1 MASTER_PORT=1234"
        << "torchrun" << 3 << 1 << 4 << 2 << "node1" << 1234;
    QTest::newRow("torchrun wins over slurm")
        << "RANK=1 WORLD_SIZE=2 MASTER_PORT=5000 SLURM_PROCID=7 SLURM_NTASKS=8"
        << "torchrun" << 1 << 1 << 2 << 2 << "127.0.0.1" << 5000;
    QTest::newRow("slurm launch node")
        << "SLURM_PROCID=5 SLURM_LOCALID=1 SLURM_NTASKS=8 SLURM_NTASKS_PER_NODE=4 "
           "SLURM_LAUNCH_NODE_IPADDR=10.0.0.7 SLURM_JOB_NODELIST=gpu[01-02] SLURM_JOB_ID=123456"
        << "slurm" << 5 << 1 << 8 << 4 << "10.0.0.7" << 15000 + 2 * (123456 % 10000);
    QTest::newRow("slurm nodelist")
        << "SLURM_PROCID=2 SLURM_LOCALID=0 SLURM_NTASKS=6 SLURM_NODEID=1 "
           "SLURM_STEP_TASKS_PER_NODE=2(x2),2 SLURM_JOB_NODELIST=gpu[07-09],cpu5 MASTER_PORT=29400"
        << "slurm" << 2 << 0 << 6 << 2 << "gpu07" << 29400;
    QTest::newRow("slurm uneven tasks per node")
        << "SLURM_PROCID=4 SLURM_LOCALID=0 SLURM_NTASKS=5 SLURM_NODEID=1 "
           "SLURM_STEP_TASKS_PER_NODE=4,1 SLURM_JOB_NODELIST=a,b SLURM_JOB_ID=7"
        << "slurm" << 4 << 0 << 5 << 1 << "a" << 15000 + 2 * 7;
    QTest::newRow("slurm single node")
        << "SLURM_PROCID=1 SLURM_LOCALID=1 SLURM_NTASKS=2 SLURM_NNODES=1 SLURM_NODELIST=box1"
        << "slurm" << 1 << 1 << 2 << 2 << "box1" << 29500;
  }
  void parses() {
    QFETCH(QString, vars);
    auto env = DistEnv::fromMap(parseVars(vars));
    QVERIFY2(env.ok(), env.errorText().c_str());
    QFETCH(QString, source);
    QFETCH(int, rank);
    QFETCH(int, localRank);
    QFETCH(int, worldSize);
    QFETCH(int, localWorldSize);
    QFETCH(QString, addr);
    QFETCH(int, port);
    QCOMPARE(QString::fromStdString(env->source), source);
    QCOMPARE(env->rank, rank);
    QCOMPARE(env->localRank, localRank);
    QCOMPARE(env->worldSize, worldSize);
    QCOMPARE(env->localWorldSize, localWorldSize);
    QCOMPARE(QString::fromStdString(env->masterAddr), addr);
    QCOMPARE(env->masterPort, port);
  }

  // Which node a rank is on, how many the run has, and whether it samples its node for rank 0
  // (the first rank of every other node, when no launcher does it).
  void nodeOfARank_data() {
    QTest::addColumn<QString>("vars");
    QTest::addColumn<int>("node");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<bool>("samples");
    QTest::newRow("single") << "" << 0 << 1 << false;
    QTest::newRow("slurm node 1 first rank")
        << "SLURM_PROCID=2 SLURM_LOCALID=0 SLURM_NTASKS=4 SLURM_NODEID=1 SLURM_NNODES=2 "
           "SLURM_NTASKS_PER_NODE=2 SLURM_JOB_NODELIST=a,b SLURM_JOB_ID=1"
        << 1 << 2 << true;
    QTest::newRow("slurm node 1 second rank")
        << "SLURM_PROCID=3 SLURM_LOCALID=1 SLURM_NTASKS=4 SLURM_NODEID=1 SLURM_NNODES=2 "
           "SLURM_NTASKS_PER_NODE=2 SLURM_JOB_NODELIST=a,b SLURM_JOB_ID=1"
        << 1 << 2 << false;
    QTest::newRow("slurm step nodes win over the job's")
        << "SLURM_PROCID=0 SLURM_LOCALID=0 SLURM_NTASKS=1 SLURM_NODEID=0 SLURM_NNODES=4 "
           "SLURM_STEP_NUM_NODES=1 SLURM_JOB_NODELIST=a"
        << 0 << 1 << false;
    QTest::newRow("slurm rank 0 keeps the log itself")
        << "SLURM_PROCID=0 SLURM_LOCALID=0 SLURM_NTASKS=2 SLURM_NODEID=0 SLURM_NNODES=2 "
           "SLURM_NTASKS_PER_NODE=1 SLURM_JOB_NODELIST=a,b SLURM_JOB_ID=1"
        << 0 << 2 << false;
    QTest::newRow("torchrun group")
        << "RANK=4 LOCAL_RANK=0 WORLD_SIZE=8 LOCAL_WORLD_SIZE=4 GROUP_RANK=1 GROUP_WORLD_SIZE=2 "
           "MASTER_PORT=1"
        << 1 << 2 << true;
    QTest::newRow("torchrun without group variables")
        << "RANK=5 LOCAL_RANK=1 WORLD_SIZE=6 LOCAL_WORLD_SIZE=2 MASTER_PORT=1" << 2 << 3 << false;
    QTest::newRow("Stave's launcher samples its node itself")
        << "RANK=2 LOCAL_RANK=0 WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 GROUP_RANK=1 MASTER_PORT=1 "
           "STAVE_LAUNCHER=1"
        << 1 << 2 << false;
  }
  void nodeOfARank() {
    QFETCH(QString, vars);
    auto env = DistEnv::fromMap(parseVars(vars));
    QVERIFY2(env.ok(), env.errorText().c_str());
    QFETCH(int, node);
    QFETCH(int, nodes);
    QFETCH(bool, samples);
    QCOMPARE(env->node, node);
    QCOMPARE(env->nodes, nodes);
    QCOMPARE(env->samplesOtherNode(), samples);
  }

  void errors_data() {
    QTest::addColumn<QString>("vars");
    QTest::addColumn<QString>("variable");
    QTest::addColumn<QString>("value");
    QTest::newRow("rank not a number") << "RANK=one WORLD_SIZE=2 MASTER_PORT=1"
                                       << "RANK"
                                       << "one";
    QTest::newRow("world size zero") << "RANK=0 WORLD_SIZE=0 MASTER_PORT=1"
                                     << "WORLD_SIZE"
                                     << "0";
    QTest::newRow("rank too large") << "RANK=2 WORLD_SIZE=2 MASTER_PORT=1"
                                    << "RANK"
                                    << "2";
    QTest::newRow("port out of range") << "RANK=0 WORLD_SIZE=2 MASTER_PORT=70000"
                                       << "MASTER_PORT"
                                       << "70000";
    QTest::newRow("world size missing") << "RANK=0 MASTER_PORT=1"
                                        << "WORLD_SIZE"
                                        << "";
    QTest::newRow("port missing") << "RANK=0 WORLD_SIZE=2"
                                  << "MASTER_PORT"
                                  << "";
    QTest::newRow("local rank too large")
        << "RANK=0 LOCAL_RANK=3 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_PORT=1"
        << "LOCAL_RANK"
        << "3";
    QTest::newRow("slurm ntasks bad") << "SLURM_PROCID=0 SLURM_NTASKS=x SLURM_JOB_NODELIST=a"
                                      << "SLURM_NTASKS"
                                      << "x";
    QTest::newRow("slurm nodelist bad")
        << "SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_JOB_NODELIST=gpu[01-"
        << "SLURM_JOB_NODELIST"
        << "gpu[01-";
    QTest::newRow("slurm no master") << "SLURM_PROCID=0 SLURM_NTASKS=2"
                                     << "SLURM_JOB_NODELIST"
                                     << "";
    QTest::newRow("slurm tasks per node bad")
        << "SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_NTASKS_PER_NODE=2(y3) SLURM_JOB_NODELIST=a"
        << "SLURM_NTASKS_PER_NODE"
        << "2(y3)";
    QTest::newRow("slurm node beyond the step's")
        << "SLURM_PROCID=1 SLURM_NTASKS=2 SLURM_NODEID=2 SLURM_NNODES=2 SLURM_JOB_NODELIST=a,b"
        << "SLURM_NODEID"
        << "2";
    QTest::newRow("torchrun group beyond the run's")
        << "RANK=1 WORLD_SIZE=2 LOCAL_WORLD_SIZE=1 GROUP_RANK=5 MASTER_PORT=1"
        << "GROUP_RANK"
        << "5";
    QTest::newRow("slurm job id bad") << "SLURM_PROCID=0 SLURM_NTASKS=1 SLURM_JOB_ID=abc"
                                      << "SLURM_JOB_ID"
                                      << "abc";
  }
  void errors() {
    QFETCH(QString, vars);
    QFETCH(QString, variable);
    QFETCH(QString, value);
    auto env = DistEnv::fromMap(parseVars(vars));
    QVERIFY(!env.ok());
    bool named = false;
    for (const auto& e : env.errors()) {
      if (QString::fromStdString(e.key) == variable &&
          QString::fromStdString(e.toString()).contains(value))
        named = true;
    }
    QVERIFY2(named, env.errorText().c_str());
  }

  void nodelist_data() {
    QTest::addColumn<QString>("list");
    QTest::addColumn<QStringList>("hosts");
    QTest::newRow("plain") << "node1" << QStringList{"node1"};
    QTest::newRow("mixed") << "gpu[01-04,07],cpu5"
                           << QStringList{"gpu01", "gpu02", "gpu03", "gpu04", "gpu07", "cpu5"};
    QTest::newRow("padding grows") << "n[8-11]" << QStringList{"n8", "n9", "n10", "n11"};
    QTest::newRow("suffix") << "rack[1-2]-ib" << QStringList{"rack1-ib", "rack2-ib"};
    QTest::newRow("several groups")
        << "a[1,3],b[009-010],c" << QStringList{"a1", "a3", "b009", "b010", "c"};
    QTest::newRow("dotted") << "10.0.0.[5-6]" << QStringList{"10.0.0.5", "10.0.0.6"};
  }
  void nodelist() {
    QFETCH(QString, list);
    QFETCH(QStringList, hosts);
    auto r = stave::dist::expandNodelist(list.toStdString());
    QVERIFY2(r.ok(), r.errorText().c_str());
    QStringList got;
    for (const auto& h : r.value()) got << QString::fromStdString(h);
    QCOMPARE(got, hosts);
  }

  void nodelistErrors_data() {
    QTest::addColumn<QString>("list");
    QTest::newRow("empty") << "";
    QTest::newRow("unclosed") << "gpu[01-04";
    QTest::newRow("descending") << "gpu[04-01]";
    QTest::newRow("letters") << "gpu[a-b]";
    QTest::newRow("empty range") << "gpu[]";
    QTest::newRow("trailing comma") << "a,b,";
    QTest::newRow("stray bracket") << "gpu]1";
    QTest::newRow("two groups") << "g[1-2]x[3]";
  }
  void nodelistErrors() {
    QFETCH(QString, list);
    auto r = stave::dist::expandNodelist(list.toStdString());
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.errorText()).contains("'" + list + "'"),
             r.errorText().c_str());
  }
};

QTEST_GUILESS_MAIN(TstDistEnv)
#include "tst_dist_env.moc"
