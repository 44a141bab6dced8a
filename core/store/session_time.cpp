#include "core/store/session_time.h"

#include <regex>

namespace stave::store {

std::optional<double> parseDurationWords(const std::string& text) {
  // The forms of the trainer's durationWords (core/train/trainer.cpp), nothing looser: a
  // message that says something else is not read as a time.
  static const std::regex seconds(R"(^\s*(\d+(?:\.\d+)?) s\s*$)");
  static const std::regex minutes(R"(^\s*(\d+) min (\d+) s\s*$)");
  static const std::regex hours(R"(^\s*(\d+) h (\d+) min\s*$)");
  std::smatch m;
  if (std::regex_match(text, m, seconds)) return std::stod(m[1].str());
  if (std::regex_match(text, m, minutes)) return std::stod(m[1].str()) * 60 + std::stod(m[2].str());
  if (std::regex_match(text, m, hours)) return std::stod(m[1].str()) * 3600 + std::stod(m[2].str()) * 60;
  return std::nullopt;
}

SessionTime sessionTimeFromFinished(const std::string& message, double wallSeconds) {
  SessionTime t;
  t.wall = wallSeconds > 0 ? wallSeconds : -1;
  // "[outcome message; ]training X, validation Y[; N non-finite losses, ...]"
  static const std::regex words(R"((?:^|; )training ([^,;]+), validation ([^,;]+)(?:;|$))");
  std::smatch m;
  if (!std::regex_search(message, m, words)) return t;
  const auto train = parseDurationWords(m[1].str());
  const auto val = parseDurationWords(m[2].str());
  if (train && val) {
    t.train = *train;
    t.val = *val;
  }
  return t;
}

SessionTime totalTime(const std::vector<SessionTime>& sessions) {
  SessionTime sum;
  const auto add = [](double& to, double v) {
    if (v >= 0) to = (to < 0 ? 0 : to) + v;
  };
  for (const auto& s : sessions) {
    add(sum.train, s.train);
    add(sum.val, s.val);
    add(sum.wall, s.wall);
  }
  return sum;
}

}  // namespace stave::store
