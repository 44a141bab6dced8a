#pragma once
// Fields of an option struct bound to run-config keys. An engine library lists, once, which
// member of its options each key fills; applyBindings() copies a config into the struct and
// bindingsJson() lists the bound members, so no key is copied or listed by hand twice.
// tests/unit/train/tst_every_setting.cpp proves that every schema row reaches some binding
// (or the derived values, the run folder, the launcher or the run's telemetry).

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/run_config.h"
#include "core/config/schema.h"

namespace stave::config {

/// One member of `S` filled from the key `key` (a schema row of a matching type: bool rows to
/// bool members, int rows to integer members, int or float rows to double members, string, enum
/// and path rows to std::string members).
template <class S>
struct FieldBinding {
  const char* key;
  std::variant<bool S::*, int S::*, int64_t S::*, uint64_t S::*, double S::*, std::string S::*>
      field;
};

/// Sets every bound member of `s` from `cfg` (a validated config: every key has its type).
template <class S>
void applyBindings(const RunConfig& cfg, const std::vector<FieldBinding<S>>& table, S& s) {
  for (const FieldBinding<S>& b : table) {
    std::visit(
        [&](auto member) {
          using M = std::remove_reference_t<decltype(s.*member)>;
          if constexpr (std::is_same_v<M, bool>)
            s.*member = cfg.getBool(b.key);
          else if constexpr (std::is_same_v<M, std::string>)
            s.*member = cfg.getString(b.key);
          else if constexpr (std::is_same_v<M, double>)
            s.*member = cfg.getFloat(b.key);
          else
            s.*member = static_cast<M>(cfg.getInt(b.key));
        },
        b.field);
  }
}

/// The bound members of `s` as a JSON object, by key.
template <class S>
nlohmann::json bindingsJson(const std::vector<FieldBinding<S>>& table, const S& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const FieldBinding<S>& b : table)
    std::visit([&](auto member) { j[b.key] = s.*member; }, b.field);
  return j;
}

/// What is wrong with `table`, one line each: a key that is no schema row, a member whose type
/// the row's values do not fit, a key bound twice. Empty when the table is sound (unit tests).
template <class S>
std::vector<std::string> bindingProblems(const std::vector<FieldBinding<S>>& table) {
  std::vector<std::string> problems;
  std::vector<std::string> seen;
  for (const FieldBinding<S>& b : table) {
    const ParamSpec* spec = findParam(b.key);
    if (spec == nullptr) {
      problems.push_back(std::string(b.key) + ": not a schema row");
      continue;
    }
    for (const auto& k : seen)
      if (k == b.key) problems.push_back(std::string(b.key) + ": bound twice");
    seen.emplace_back(b.key);
    const bool fits = std::visit(
        [&](auto member) {
          using M = std::remove_reference_t<decltype(std::declval<S&>().*member)>;
          switch (spec->type) {
            case ParamType::Bool:
              return std::is_same_v<M, bool>;
            case ParamType::Int:
              return std::is_integral_v<M> && !std::is_same_v<M, bool>;
            case ParamType::Float:
              return std::is_same_v<M, double>;
            case ParamType::String:
            case ParamType::Enum:
            case ParamType::Path:
              return std::is_same_v<M, std::string>;
            case ParamType::IntList:
              return false;
          }
          return false;
        },
        b.field);
    const bool intToDouble =
        spec->type == ParamType::Int && std::holds_alternative<double S::*>(b.field);
    if (!fits && !intToDouble)
      problems.push_back(std::string(b.key) + ": the member's type does not fit a " +
                         paramTypeName(spec->type) + " row");
  }
  return problems;
}

}  // namespace stave::config
