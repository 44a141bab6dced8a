// Which BLAS LibTorch calls, and the warning a CPU run shows for the reference BLAS.
#include <QtTest>

#include <filesystem>

#include "core/train/blas_check.h"

using namespace stave::train;

class TestBlasCheck : public QObject {
  Q_OBJECT
 private slots:
  void detectsTheLoadedBlas() {
    // This test links LibTorch, which links a BLAS: whatever it is, it is named, and the
    // library it names exists.
    const BlasInfo info = detectBlas();
    QVERIFY(!info.name.empty());
    const QStringList known{"openblas", "blis", "mkl", "reference", "unknown", "none"};
    QVERIFY2(known.contains(QString::fromStdString(info.name)), info.name.c_str());
    if (!info.library.empty())
      QVERIFY2(std::filesystem::exists(info.library), info.library.c_str());
    QCOMPARE(info.slow, info.name == "reference");
    QCOMPARE(blasWarning(info).empty(), !info.slow);
  }
  void warnsOnlyForTheReferenceBlas() {
    BlasInfo ref{"reference", "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3", true};
    const std::string w = blasWarning(ref);
    QVERIFY(w.find("reference BLAS") != std::string::npos);
    QVERIFY(w.find(ref.library) != std::string::npos);
    QVERIFY(w.find("libopenblas0-openmp") != std::string::npos);
    QVERIFY(blasWarning({"openblas", "/x/openblas-openmp/libblas.so.3", false}).empty());
    QVERIFY(blasWarning({"none", "", false}).empty());
  }
};

QTEST_GUILESS_MAIN(TestBlasCheck)
#include "tst_blas_check.moc"
