#pragma once
// One table type for every struct whose members are read and written by key: a list of
// {key, member pointer, optional}. The loops here write such a struct as a JSON object and read
// it back with errors that name the key and the type it wants, so a struct's keys are listed
// once and no reader or writer copies them by hand. Other codecs (the run config's bindings,
// the checkpoint's records) walk the same table with forEachMember(). Header only, no Qt.

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/result.h"

namespace stave::config {

/// A pointer to one member of `S`, of one of the types the table loops know, or of one of
/// `Extra` (a codec outside core, e.g. the studio's QString members, which the JSON loops here
/// do not read: that codec walks the table with forEachMember()).
template <class S, class... Extra>
using MemberPointer =
    std::variant<bool S::*, int S::*, int64_t S::*, uint64_t S::*, double S::*, std::string S::*,
                 std::vector<double> S::*, std::vector<std::string> S::*, Extra S::*...>;

/// One member of `S` stored under `key`. An optional member may be absent from what is read
/// (a record added later): the struct's default stays.
template <class S, class... Extra>
struct MemberField {
  const char* key;                    ///< the key in JSON (or the record name of another codec)
  MemberPointer<S, Extra...> member;  ///< which member of S holds it
  bool optional = false;              ///< absent when read: keep the default instead of an error
};

/// The keyed members of `S`, in the order they are written.
template <class S, class... Extra>
using MemberTable = std::vector<MemberField<S, Extra...>>;

/// Calls `f(field, member)` for each row, `member` being the typed member pointer.
template <class S, class... Extra, class F>
void forEachMember(const MemberTable<S, Extra...>& table, F&& f) {
  for (const MemberField<S, Extra...>& field : table)
    std::visit([&](auto member) { f(field, member); }, field.member);
}

/// The JSON type name a member of type `M` is read from, for error messages.
template <class M>
constexpr const char* memberTypeName() {
  if constexpr (std::is_same_v<M, bool>)
    return "a boolean";
  else if constexpr (std::is_same_v<M, uint64_t>)
    return "a non-negative integer";
  else if constexpr (std::is_integral_v<M>)
    return "an integer";
  else if constexpr (std::is_same_v<M, double>)
    return "a number";
  else if constexpr (std::is_same_v<M, std::string>)
    return "a string";
  else if constexpr (std::is_same_v<M, std::vector<double>>)
    return "a list of numbers";
  else
    return "a list of strings";
}

/// Sets `out` from `v` when `v` holds a value of M's JSON type that M can hold; false when not.
template <class M>
bool memberFromJson(const nlohmann::json& v, M& out) {
  if constexpr (std::is_same_v<M, bool>) {
    if (!v.is_boolean()) return false;
    out = v.get<bool>();
  } else if constexpr (std::is_same_v<M, uint64_t>) {
    if (v.is_number_unsigned()) {
      out = v.get<uint64_t>();
    } else if (v.is_number_integer() && v.get<int64_t>() >= 0) {
      out = static_cast<uint64_t>(v.get<int64_t>());
    } else {
      return false;
    }
  } else if constexpr (std::is_integral_v<M>) {
    if (!v.is_number_integer()) return false;
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<M>::max())) return false;
      out = static_cast<M>(u);
    } else {
      const int64_t i = v.get<int64_t>();
      if (i < static_cast<int64_t>(std::numeric_limits<M>::min()) ||
          i > static_cast<int64_t>(std::numeric_limits<M>::max()))
        return false;
      out = static_cast<M>(i);
    }
  } else if constexpr (std::is_same_v<M, double>) {
    if (!v.is_number()) return false;
    out = v.get<double>();
  } else if constexpr (std::is_same_v<M, std::string>) {
    if (!v.is_string()) return false;
    out = v.get<std::string>();
  } else {
    using E = typename M::value_type;
    if (!v.is_array()) return false;
    M items;
    for (const auto& item : v) {
      E e{};
      if (!memberFromJson(item, e)) return false;
      items.push_back(std::move(e));
    }
    out = std::move(items);
  }
  return true;
}

/// The members of `s` as a JSON object, by key.
template <class S>
nlohmann::json membersToJson(const MemberTable<S>& table, const S& s) {
  nlohmann::json j = nlohmann::json::object();
  forEachMember(table, [&](const MemberField<S>& f, auto member) { j[f.key] = s.*member; });
  return j;
}

/// Reads the keys of `table` from the JSON object `j` into `s`. Each problem is an Error
/// naming `file` and the key: a missing key that is not optional, or a value of another type
/// ("expected an integer, found a string"). Keys not in the table are left alone. A member
/// whose value is wrong keeps what it held.
template <class S>
std::vector<Error> membersFromJson(const nlohmann::json& j, const MemberTable<S>& table, S& s,
                                   const std::string& file = "") {
  std::vector<Error> errors;
  if (!j.is_object()) {
    errors.push_back(Error{file, 0, "", std::string("expected an object, found ") + j.type_name()});
    return errors;
  }
  forEachMember(table, [&](const MemberField<S>& f, auto member) {
    using M = std::remove_reference_t<decltype(s.*member)>;
    const auto it = j.find(f.key);
    if (it == j.end()) {
      if (!f.optional) errors.push_back(Error{file, 0, f.key, "missing"});
      return;
    }
    M value{};
    if (!memberFromJson(*it, value)) {
      errors.push_back(Error{file, 0, f.key,
                             std::string("expected ") + memberTypeName<M>() + ", found " +
                                 (it->is_number() ? "the number " + it->dump() : it->type_name())});
      return;
    }
    s.*member = std::move(value);
  });
  return errors;
}

/// What is wrong with `table` itself, one line each: an empty key, a key listed twice. Empty
/// when the table is sound (each table's unit test checks this).
template <class S, class... Extra>
std::vector<std::string> memberTableProblems(const MemberTable<S, Extra...>& table) {
  std::vector<std::string> problems;
  for (size_t i = 0; i < table.size(); ++i) {
    const std::string key = table[i].key == nullptr ? "" : table[i].key;
    if (key.empty()) {
      problems.push_back("row " + std::to_string(i) + ": empty key");
      continue;
    }
    for (size_t k = 0; k < i; ++k)
      if (table[k].key != nullptr && key == table[k].key) {
        problems.push_back(key + ": listed twice");
        break;
      }
  }
  return problems;
}

}  // namespace stave::config
