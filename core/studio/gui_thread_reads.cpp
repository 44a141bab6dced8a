#include "core/studio/gui_thread_reads.h"

#include <QCoreApplication>
#include <QThread>
#include <array>
#include <atomic>

namespace stave::studio {

namespace {

constexpr size_t kKinds = static_cast<size_t>(OffGuiRead::Count);
std::array<std::atomic<uint64_t>, kKinds> g_total{};
std::array<std::atomic<uint64_t>, kKinds> g_onMain{};

}  // namespace

void countRead(OffGuiRead what) {
  const auto i = static_cast<size_t>(what);
  if (i >= kKinds) return;
  ++g_total[i];
  const QCoreApplication* app = QCoreApplication::instance();
  if (app && QThread::currentThread() == app->thread()) ++g_onMain[i];
}

OffGuiReadCount readCount(OffGuiRead what) {
  const auto i = static_cast<size_t>(what);
  if (i >= kKinds) return {};
  return {g_total[i].load(), g_onMain[i].load()};
}

}  // namespace stave::studio
