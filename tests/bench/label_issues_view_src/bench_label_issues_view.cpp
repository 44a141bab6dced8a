// The Label issues list on a large issues CSV (issue 44 §2): each row's thumbnail is decoded off
// the GUI thread for the rows on screen only, into a cache bounded in bytes. Writes K small JPEG
// images and an issues CSV of N rows over them (default 1,000,000 rows, 5,000 images), loads the
// list offscreen, then jumps to J random places as a user scrolling would and waits at each until
// every thumbnail on screen is decoded. Prints JSON: the load time, the time to a complete screen
// (median, max), the cache's bytes and queued requests at their largest against the loader's
// bounds, and the process's resident memory before and after the jumps.
//
//   stave-bench-label-issues-view [--rows N] [--images K] [--jumps J]
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QRandomGenerator>
#include <QScrollBar>
#include <QTableView>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <fstream>

#include "core/data/label_issues.h"
#include "core/studio/models/thumbnail_loader.h"
#include "widgets/label_issues_view.h"

namespace {

long rssKiB() {
  std::ifstream f("/proc/self/status");
  std::string key;
  long value = 0;
  while (f >> key) {
    if (key == "VmRSS:") {
      f >> value;
      return value;
    }
    f.ignore(1 << 12, '\n');
  }
  return 0;
}

int argValue(const QStringList& args, const QString& name, int fallback) {
  const int i = int(args.indexOf(name));
  return i >= 0 && i + 1 < args.size() ? args[i + 1].toInt() : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const QStringList args = app.arguments();
  const int rows = argValue(args, "--rows", 1000000);
  const int images = argValue(args, "--images", 5000);
  const int jumps = argValue(args, "--jumps", 200);
  QTemporaryDir dir;
  const QString root = dir.path();
  QDir().mkpath(root + "/images/train");
  QDir().mkpath(root + "/labels/train");
  for (int i = 0; i < images; ++i) {
    QImage img(640, 480, QImage::Format_RGB888);
    img.fill(QColor::fromHsv(i * 37 % 360, 200, 200));
    QPainter(&img).fillRect(QRect(100 + i % 300, 80, 160, 120), Qt::black);
    img.save(QStringLiteral("%1/images/train/%2.jpg").arg(root).arg(i, 6, 10, QLatin1Char('0')),
             "JPG", 85);
  }
  {
    std::ofstream csv((root + "/issues.csv").toStdString());
    csv << stave::data::kLabelIssuesCsvHeader;
    char line[160];
    for (int r = 0; r < rows; ++r) {
      std::snprintf(line, sizeof line, "images/train/%06d.jpg,spurious,0,-1,%.4f,10,10,50,50\n",
                    r % images, 1.0 - double(r) / rows);
      csv << line;
    }
  }
  stave::widgets::LabelIssuesView view;
  view.resize(1400, 900);
  view.show();
  const long rssBefore = rssKiB();
  QElapsedTimer t;
  t.start();
  view.load(root + "/issues.csv", root, {"cat", "dog", "bird"});
  while (view.model()->rowCount() < rows && t.elapsed() < 600000)
    app.processEvents(QEventLoop::AllEvents, 50);
  const double loadS = t.elapsed() / 1000.0;
  const long rssLoaded = rssKiB();

  auto* table = view.table();
  auto* loader = view.thumbnails();
  QRandomGenerator rng(7);
  std::vector<double> screenMs;
  qint64 maxBytes = 0;
  int maxPending = 0;
  for (int j = 0; j < jumps; ++j) {
    const int row = int(rng.bounded(rows));
    table->scrollTo(view.model()->index(row, 0), QAbstractItemView::PositionAtTop);
    QElapsedTimer s;
    s.start();
    // Complete when every row on screen has its thumbnail decoded (painting asks for them).
    for (;;) {
      app.processEvents(QEventLoop::AllEvents, 5);
      maxBytes = std::max(maxBytes, loader->cacheBytes());
      maxPending = std::max(maxPending, loader->pendingCount());
      const int first = table->rowAt(0), last = table->rowAt(table->viewport()->height() - 1);
      bool done = first >= 0;
      for (int r = first; done && r <= (last < 0 ? rows - 1 : last); ++r)
        done = loader->cached(view.model()->imagePath(r)) != nullptr;
      if (done || s.elapsed() > 30000) break;
    }
    screenMs.push_back(s.nsecsElapsed() / 1e6);
  }
  std::sort(screenMs.begin(), screenMs.end());
  std::printf(
      "{\"rows\": %d, \"images\": %d, \"jumps\": %d, \"load_s\": %.2f, "
      "\"screen_complete_ms_median\": %.1f, \"screen_complete_ms_max\": %.1f, "
      "\"cache_bytes_max\": %lld, \"cache_bytes_bound\": %lld, \"pending_max\": %d, "
      "\"pending_bound\": %d, \"decoded\": %lld, \"rss_kib_before_load\": %ld, "
      "\"rss_kib_loaded\": %ld, \"rss_kib_after_jumps\": %ld}\n",
      rows, images, jumps, loadS, screenMs[screenMs.size() / 2], screenMs.back(),
      static_cast<long long>(maxBytes), static_cast<long long>(loader->options().cacheBytes),
      maxPending, loader->options().maxPending, static_cast<long long>(loader->decodedCount()),
      rssBefore, rssLoaded, rssKiB());
  return 0;
}
