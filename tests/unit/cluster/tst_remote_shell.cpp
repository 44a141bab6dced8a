// Remote commands as data: every argument vector quoted by shellCommand() reaches the program
// unchanged through a real `sh -c` (dash, and bash where installed: what a login shell does
// with the line ssh hands it), for words with spaces, quotes, '$', ';', backslashes, newlines,
// globs and command substitutions, and nothing in them runs. ssh's argument vector has the
// shape the issue fixes (BatchMode, connection sharing, "--" then one line), and OpenSSH's
// own words classify its failures.
#include <QtTest/QtTest>

#include "core/cluster/process.h"
#include "core/cluster/remote_shell.h"
#include "core/cluster/ssh.h"

using namespace stave::cluster;

namespace {

/// What `shell -c LINE` prints for printf '%s\0' WORDS...: the words as the program got them.
std::vector<std::string> echoed(const std::string& shell, const std::vector<std::string>& words) {
  std::vector<std::string> argv{"printf", "%s\\0"};
  // printf's format is itself a quoted word: "%s\0" with a real backslash.
  argv[1] = "%s\\000";
  argv.insert(argv.end(), words.begin(), words.end());
  auto line = shellCommand(argv);
  if (!line) return {"<not quoted: " + line.errorText() + ">"};
  const ProcessResult r = runProcess({shell, "-c", line.value()});
  if (!r.ok()) return {"<" + describeEnd(r) + ": " + r.err + ">"};
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < r.out.size(); ++i)
    if (r.out[i] == '\0') {
      out.push_back(r.out.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

QStringList shells() {
  QStringList out;
  for (const char* s : {"/bin/sh", "/bin/dash", "/bin/bash", "/usr/bin/zsh"})
    if (QFileInfo(s).isExecutable()) out << s;
  return out;
}

}  // namespace

class TstRemoteShell : public QObject {
  Q_OBJECT
 private slots:
  void roundTrip_data() {
    QTest::addColumn<QString>("shell");
    QTest::addColumn<QByteArray>("word");
    const QList<QPair<const char*, QByteArray>> words{
        {"plain", "/scratch/runs/a"},
        {"spaces", "/scratch/my runs/run 1"},
        {"single quote", "/scratch/it's/run'"},
        {"only quotes", "'''"},
        {"double quote", "/scratch/\"quoted\" dir"},
        {"dollar", "/scratch/$HOME/${USER}/$(id)/$1"},
        {"semicolon", "/a; touch /tmp/stave-quoting-pwned; echo"},
        {"backslashes", "C:\\runs\\new\\\\x\\'"},
        {"newlines", "/scratch/line one\nline two\n"},
        {"backticks", "/x/`touch /tmp/stave-quoting-pwned`"},
        {"globs", "/scratch/* ? [ab]"},
        {"pipes and redirects", "a | b > /tmp/stave-quoting-pwned < c & d && e || f"},
        {"leading dash", "--user=root"},
        {"empty", ""},
        {"tabs and cr", "a\tb\rc"},
        {"utf8", "/数据/运行 1"},
        {"percent", "/runs/a%jb%%"},
        {"tilde", "~root/x"},
        {"hash", "#not a comment"},
        {"bang", "!!"}};
    for (const QString& shell : shells())
      for (const auto& [name, word] : words)
        QTest::newRow(qPrintable(QFileInfo(shell).fileName() + ": " + name)) << shell << word;
  }
  void roundTrip() {
    QFETCH(QString, shell);
    QFETCH(QByteArray, word);
    QFile::remove("/tmp/stave-quoting-pwned");
    const std::string w = word.toStdString();
    // Alone, and beside other words (a word's end must not leak into the next).
    const auto one = echoed(shell.toStdString(), {w});
    QCOMPARE(one.size(), size_t{1});
    QCOMPARE(QByteArray::fromStdString(one[0]), word);
    const auto three = echoed(shell.toStdString(), {"before", w, w + "'" + w});
    QCOMPARE(three.size(), size_t{3});
    QCOMPARE(QByteArray::fromStdString(three[1]), word);
    QCOMPARE(QByteArray::fromStdString(three[2]), word + "'" + word);
    QVERIFY2(!QFile::exists("/tmp/stave-quoting-pwned"), "a quoted word ran a command");
  }

  // Several commands joined: each one's words stay its own.
  void commandsJoined() {
    auto line = shellCommands({{"printf", "%s|", "a b; c"}, {"printf", "%s", "$(d)"}}, " && ");
    QVERIFY(line.ok());
    const ProcessResult r = runProcess({"sh", "-c", line.value()});
    QVERIFY(r.ok());
    QCOMPARE(QString::fromStdString(r.out), QString("a b; c|$(d)"));
  }

  void nulRefused() {
    auto line = shellCommand({"echo", std::string("a\0b", 3)});
    QVERIFY(!line.ok());
    QVERIFY(QString::fromStdString(line.errorText()).contains("NUL"));
    QVERIFY(!shellCommand({}).ok());
  }

  void quotedForm() {
    QCOMPARE(QString::fromStdString(shellWord("it's")), QString("'it'\\''s'"));
    QCOMPARE(QString::fromStdString(shellWord("")), QString("''"));
  }

  // ssh's vector: options, then the destination, "--" and exactly one command line.
  void sshVector() {
    SshEndpoint e;
    e.destination = "alice@login";
    e.port = 2222;
    e.configFile = "/tmp/my config";
    e.controlDir = "/tmp/cm";
    const auto line = shellCommand({"ls", "-l", "/a b"}).value();
    const auto a = sshArgv(e, line);
    QCOMPARE(QString::fromStdString(a.front()), QString("ssh"));
    QCOMPARE(QString::fromStdString(a[a.size() - 3]), QString("alice@login"));
    QCOMPARE(QString::fromStdString(a[a.size() - 2]), QString("--"));
    QCOMPARE(QString::fromStdString(a.back()), QString::fromStdString(line));
    QStringList all;
    for (const auto& s : a) all << QString::fromStdString(s);
    QVERIFY(all.contains("BatchMode=yes"));
    QVERIFY(all.contains("ControlMaster=auto"));
    QVERIFY(all.contains("ControlPath=/tmp/cm/%C"));
    QVERIFY(all.filter("ControlPersist=").size() == 1);
    QVERIFY(all.filter("StrictHostKeyChecking").isEmpty());  // the user's configuration decides
    QCOMPARE(all[all.indexOf("-p") + 1], QString("2222"));
    QCOMPARE(all[all.indexOf("-F") + 1], QString("/tmp/my config"));
    QVERIFY(all.indexOf("-p") < all.indexOf("alice@login"));
    // No port, no -F: the user's configuration.
    e.port = 0;
    e.configFile.clear();
    QStringList plain;
    for (const auto& s : sshArgv(e, line)) plain << QString::fromStdString(s);
    QVERIFY(!plain.contains("-p") && !plain.contains("-F"));
  }

  void destinations() {
    QVERIFY(destinationProblem("alice@login.example.org").empty());
    QVERIFY(destinationProblem("cluster").empty());
    QVERIFY(!destinationProblem("").empty());
    QVERIFY(!destinationProblem("-oProxyCommand=touch x").empty());
    QVERIFY(!destinationProblem("a b").empty());
    QVERIFY(!destinationProblem("a\nb").empty());
  }

  void classify_data() {
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("err");
    QTest::addColumn<int>("failure");
    QTest::newRow("ran") << 0 << "" << int(SshFailure::None);
    QTest::newRow("remote exit 3") << 3 << "ls: cannot access" << int(SshFailure::None);
    QTest::newRow("changed") << 255
                             << "@@@@@@@@@@@\r\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n"
                                "Host key verification failed.\r\n"
                             << int(SshFailure::HostKeyChanged);
    QTest::newRow("unknown") << 255
                             << "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict "
                                "checking.\r\nHost key verification failed.\r\n"
                             << int(SshFailure::HostKeyUnknown);
    QTest::newRow("refused key") << 255 << "alice@10.1.1.1: Permission denied (publickey).\r\n"
                                 << int(SshFailure::AuthRefused);
    QTest::newRow("down") << 255 << "ssh: connect to host 10.1.1.1 port 22: Connection refused\r\n"
                          << int(SshFailure::Unreachable);
    QTest::newRow("cut") << 255 << "Connection to 10.1.1.1 closed by remote host.\r\n" << int(SshFailure::Unreachable);
    QTest::newRow("odd") << 255 << "something else" << int(SshFailure::Other);
  }
  void classify() {
    QFETCH(int, code);
    QFETCH(QString, err);
    QFETCH(int, failure);
    ProcessResult r;
    r.end = ProcessEnd::Finished;
    r.exitCode = code;
    r.err = err.toStdString();
    QCOMPARE(int(classifySsh(r)), failure);
    if (failure == int(SshFailure::HostKeyChanged)) {
      SshEndpoint e;
      e.destination = "login";
      const QString m = QString::fromStdString(describeSshFailure(e, classifySsh(r), r));
      QVERIFY(m.contains("CHANGED") && m.contains("nothing was sent"));
      QVERIFY(m.contains("Host key verification failed."));  // OpenSSH's own reason
      QVERIFY(!m.contains('\r'));
    }
  }

  // The process runner: stdin fed, a time limit kept, a missing program said.
  void processRunner() {
    ProcessOptions o;
    o.input = std::string(1 << 20, 'x');
    ProcessResult r = runProcess({"wc", "-c"}, o);
    QVERIFY(r.ok());
    QCOMPARE(QString::fromStdString(r.out).trimmed(), QString::number(1 << 20));
    ProcessOptions slow;
    slow.timeoutMs = 300;
    QElapsedTimer t;
    t.start();
    r = runProcess({"sleep", "30"}, slow);
    QCOMPARE(int(r.end), int(ProcessEnd::TimedOut));
    QVERIFY(t.elapsed() < 10000);
    r = runProcess({"/nonexistent/stave-no-such-program"});
    QCOMPARE(int(r.end), int(ProcessEnd::FailedToStart));
    QVERIFY(!r.err.empty());
    r = runProcess({"sh", "-c", "exit 7"});
    QCOMPARE(r.exitCode, 7);
  }
};

QTEST_GUILESS_MAIN(TstRemoteShell)
#include "tst_remote_shell.moc"
