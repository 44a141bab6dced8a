#pragma once
// The engine's messages in the UI language (issue 43 §4). The engine writes each message a
// person reads as a catalog id with arguments (core/base/message.h) beside its English; the
// studio looks the English template up in its translations (context "stave::engine", listed
// for lupdate in engine_strings.cpp) and fills in the arguments, translating nested messages in
// turn. Logs and stave-train keep the English.

#include <string>

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <vector>

#include "core/base/message.h"
#include "core/base/result.h"

namespace stave::studio {

/// The message in the UI language, or an empty string when an id is not in this studio's
/// catalog (a newer engine): callers then show the English the event carries.
QString engineText(const Text& text);
QString engineText(const TextParts& parts);

/// engineText(parts), or `english` when `parts` is empty (an older engine) or holds an id this
/// studio does not know.
QString engineText(const TextParts& parts, const std::string& english);

/// An input error as Error::toString says it ("file:line: key: message"), its message in the UI
/// language where it is a catalog message.
QString errorText(const Error& error);

/// errorText of each, one per line.
QString errorsText(const std::vector<Error>& errors);

/// An error as stave-train's --json prints it ({file, line, key, message, message_text}).
Error errorFromJson(const QJsonObject& object);
/// A message's catalog form as JSON carries it (docs/events.md); empty when it has none or it
/// cannot be read (then the English beside it is shown).
TextParts textFromJson(const QJsonValue& value);

/// The template of catalog entry `id` in the UI language ("" when there is none).
QString engineTemplate(std::string_view id);

}  // namespace stave::studio
