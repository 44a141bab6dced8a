#include "core/train/schedule.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "core/base/result.h"

namespace stave::train {
namespace {
double interp(double x, double x0, double x1, double y0, double y1) {
  if (x <= x0) return y0;
  if (x >= x1) return y1;
  return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}
}  // namespace

int64_t runAccumulate(int64_t accumulate, int64_t itersPerEpoch, int epochs, bool timeLimited) {
  const int64_t nominal = std::max<int64_t>(accumulate, 1);
  if (timeLimited) return nominal;
  const int64_t batches = itersPerEpoch * std::max(epochs, 0);
  return std::max<int64_t>(1, std::min(nominal, batches));
}

Schedule::Schedule(const ScheduleOptions& options) : m_options(options) {
  STAVE_CHECK(options.epochs > 0, "epochs " << options.epochs);
  STAVE_CHECK(options.itersPerEpoch > 0, "itersPerEpoch " << options.itersPerEpoch);
  // Ultralytics 8.4: round(warmup_epochs x batches), the warmup capped so the last epoch trains
  // at the scheduled rate (8.0-8.3 warmed up for at least 100 iterations, which on a small set
  // stretched a 3-epoch warmup over 4 or more).
  const double epochs = std::min(options.warmupEpochs, std::max(options.epochs - 1, 0) * 1.0);
  if (epochs > 0)
    m_warmupIters = static_cast<int64_t>(
        std::nearbyint(epochs * static_cast<double>(options.itersPerEpoch)));
}

double Schedule::lambda(int epoch) const {
  const double x = static_cast<double>(epoch);
  const double n = static_cast<double>(m_options.epochs);
  const double lrf = m_options.lrf;
  if (m_options.cosine) return ((1.0 - std::cos(x * M_PI / n)) / 2.0) * (lrf - 1.0) + 1.0;
  return std::max(1.0 - x / n, 0.0) * (1.0 - lrf) + lrf;
}

SchedulePoint Schedule::at(int epoch, int64_t iter) const {
  SchedulePoint p;
  const double target = m_options.lr0 * lambda(epoch);
  const int64_t ni = iter + m_options.itersPerEpoch * static_cast<int64_t>(epoch);
  p.momentum = m_options.momentum;
  p.accumulate = static_cast<int>(std::max<int64_t>(1, m_options.accumulate));
  if (m_warmupIters > 0 && ni <= m_warmupIters) {
    const double x = static_cast<double>(ni);
    const double xw = static_cast<double>(m_warmupIters);
    p.warmup = true;
    // Accumulation also ramps from 1 to its nominal value, as Ultralytics does, so the first
    // steps are small and frequent. nearbyint rounds half to even, as numpy and Python do.
    p.accumulate =
        std::max(1, static_cast<int>(std::nearbyint(interp(x, 0, xw, 1.0, p.accumulate))));
    for (int g = 0; g < 3; ++g) {
      const double start = g == kGroupBias ? m_options.warmupBiasLr : 0.0;
      p.lr[g] = interp(x, 0, xw, start, target);
    }
    if (m_options.momentumWarmup)
      p.momentum = interp(x, 0, xw, m_options.warmupMomentum, m_options.momentum);
  } else {
    p.lr = {target, target, target};
  }
  return p;
}

}  // namespace stave::train
