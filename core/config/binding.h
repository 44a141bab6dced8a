#pragma once
// Fields of an option struct bound to run-config keys. An engine library lists, once, which
// member of its options each key fills; applyBindings() copies a config into the struct and
// bindingsJson() lists the bound members, so no key is copied or listed by hand twice. A binding
// table is a member table (member_table.h) whose keys are schema rows.
// tests/unit/train/tst_every_setting.cpp proves that every schema row reaches some binding
// (or the derived values, the run folder, the launcher or the run's telemetry).

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/member_table.h"
#include "core/config/run_config.h"
#include "core/config/schema.h"

namespace stave::config {

/// One member of `S` filled from the key `key` (a schema row of a matching type: bool rows to
/// bool members, int rows to integer members, int or float rows to double members, string, enum
/// and path rows to std::string members). The optional flag means nothing here: a validated
/// config has every row.
template <class S>
using FieldBinding = MemberField<S>;

/// Sets every bound member of `s` from `cfg` (a validated config: every key has its type).
/// A member of a type no row fills (a list) is left alone; bindingProblems() names it.
template <class S>
void applyBindings(const RunConfig& cfg, const std::vector<FieldBinding<S>>& table, S& s) {
  forEachMember(table, [&](const FieldBinding<S>& b, auto member) {
    using M = std::remove_reference_t<decltype(s.*member)>;
    if constexpr (std::is_same_v<M, bool>)
      s.*member = cfg.getBool(b.key);
    else if constexpr (std::is_same_v<M, std::string>)
      s.*member = cfg.getString(b.key);
    else if constexpr (std::is_same_v<M, double>)
      s.*member = cfg.getFloat(b.key);
    else if constexpr (std::is_integral_v<M>)
      s.*member = static_cast<M>(cfg.getInt(b.key));
  });
}

/// The bound members of `s` as a JSON object, by key.
template <class S>
nlohmann::json bindingsJson(const std::vector<FieldBinding<S>>& table, const S& s) {
  return membersToJson(table, s);
}

/// What is wrong with `table`, one line each: a key that is no schema row, a member whose type
/// the row's values do not fit, then the table's own problems (memberTableProblems: a key
/// bound twice, an empty key). Empty when the table is sound (unit tests).
template <class S>
std::vector<std::string> bindingProblems(const std::vector<FieldBinding<S>>& table) {
  std::vector<std::string> problems;
  for (const FieldBinding<S>& b : table) {
    if (b.key == nullptr || *b.key == '\0') continue;  // memberTableProblems says so
    const ParamSpec* spec = findParam(b.key);
    if (spec == nullptr) {
      problems.push_back(std::string(b.key) + ": not a schema row");
      continue;
    }
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
        b.member);
    const bool intToDouble =
        spec->type == ParamType::Int && std::holds_alternative<double S::*>(b.member);
    if (!fits && !intToDouble)
      problems.push_back(std::string(b.key) + ": the member's type does not fit a " +
                         paramTypeName(spec->type) + " row");
  }
  for (auto& p : memberTableProblems(table)) problems.push_back(std::move(p));
  return problems;
}

}  // namespace stave::config
