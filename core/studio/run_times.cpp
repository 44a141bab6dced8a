#include "core/studio/run_times.h"

#include <QCoreApplication>
#include <QStringList>
#include <cmath>

namespace stave::studio {

QString durationWords(double s) {
  if (!(s >= 0) || !std::isfinite(s)) s = 0;
  if (s < 10) return QCoreApplication::translate("stave::studio::RunTimes", "%1 s").arg(s, 0, 'f', 1);
  if (s < 120) return QCoreApplication::translate("stave::studio::RunTimes", "%1 s").arg(std::llround(s));
  const qint64 t = static_cast<qint64>(s);
  if (s < 7200) return QCoreApplication::translate("stave::studio::RunTimes", "%1 min %2 s").arg(t / 60).arg(t % 60);
  return QCoreApplication::translate("stave::studio::RunTimes", "%1 h %2 min").arg(t / 3600).arg(t % 3600 / 60);
}

std::vector<store::SessionTime> sessionTimes(const std::vector<telemetry::Event>& events) {
  std::vector<store::SessionTime> out;
  for (const auto& e : events) {
    if (e.type != telemetry::event_type::kFinished) continue;
    if (auto f = telemetry::finishedFromEvent(e)) out.push_back(store::sessionTimeFromFinished(f->message, f->totalTime));
  }
  return out;
}

QString sessionTimesText(const std::vector<store::SessionTime>& sessions) {
  const store::SessionTime sum = store::totalTime(sessions);
  if (sum.train < 0) return {};
  const QString total = QCoreApplication::translate("stave::studio::RunTimes", "training %1, validation %2").arg(durationWords(sum.train), durationWords(std::max(0.0, sum.val)));
  if (sessions.size() < 2) return total;
  QStringList train, val;
  for (const auto& s : sessions) {
    train << (s.train >= 0 ? durationWords(s.train) : QCoreApplication::translate("stave::studio::RunTimes", "?"));
    val << (s.val >= 0 ? durationWords(s.val) : QCoreApplication::translate("stave::studio::RunTimes", "?"));
  }
  return QCoreApplication::translate("stave::studio::RunTimes", "%1 in %2 sessions (training %3, validation %4)")
      .arg(total)
      .arg(sessions.size())
      .arg(train.join(QStringLiteral(" + ")), val.join(QStringLiteral(" + ")));
}

}  // namespace stave::studio
